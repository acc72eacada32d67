#include "cli/template_mismatch.hpp"

#include "cli/broker_client.hpp"

namespace sindri::cli {

std::string name_mismatch(const std::string& message, const Value& error, const Value& tpl, const Value& stack) {
  if (!has_error_code(error, "template_stack_mismatch")) return message;
  const Value* details = error.find("details");
  const Value* labels = details != nullptr ? details->find("missing_labels") : nullptr;
  const Value* annotations = details != nullptr ? details->find("missing_annotations") : nullptr;
  if (labels == nullptr || !labels->is_array() || annotations == nullptr || !annotations->is_array()) return message;
  std::string lacks;
  for (const Value& label : labels->get_array()) {
    lacks += (lacks.empty() ? " label \"" : ", label \"") + (label.is_string() ? std::string(label.get_string()) : "") +
             "\"";
  }
  for (const Value& annotation : annotations->get_array()) {
    lacks += (lacks.empty() ? " annotation " : ", annotation ") + cell(annotation, "key") + "=" +
             cell(annotation, "value");
  }
  return "template " + cell(tpl, "name") + " v" + cell(tpl, "version") + " (" + cell(tpl, "id") +
         ") does not match stack " + cell(stack, "name") + " (" + cell(stack, "id") + "): the stack lacks" + lacks +
         " (HTTP 422 template_stack_mismatch)";
}

}  // namespace sindri::cli
