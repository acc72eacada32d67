#pragma once
// A repository's `kubernetes` template as a broker template (`sindri repo
// publish`), so that a repository can feed a broker's catalogue. No HTTP
// here: this makes what the broker stores, the caller sends it.
//
// The broker renders one Tera text with one parameter schema, so:
// - template_content is the template's files/** in path order (overrides
//   honoured), one YAML stream: a `.tera` file's text as it is, any other
//   file wrapped in `{% raw %}` so that it comes out verbatim; documents
//   separated by `---`, each ending in a newline.
// - parameters_schema is template_schema.json with every default setting and
//   every published shared setting's default as the `default` of its
//   property, so that the broker fills in what the repository would (a
//   template without a schema gets an object schema built from them).
// - Settings the template subscribes to become ordinary parameters: on a
//   broker there is no other template to publish them, so whoever renders
//   gives them.
// What a broker cannot do is refused: another type than kubernetes, hooks
// (nothing runs them), files_init (there is no project to initialise), no
// files, a file that is not UTF-8 text, a `.tera` file that does not compile
// or pass tera::check, or that names another template (include, import,
// extends: the broker renders its template alone); then the stream that
// the files only make together, compiled and checked as the broker does
// (a macro two files define, a call of `now`), and, when there are several
// `.tera` files, a `set` that would carry from one file into the next.

#include <optional>
#include <string>
#include <string_view>

#include "repo/template.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::repo {

struct BrokerTemplate {
  std::string name;  // the template's directory name
  std::string description;
  std::string template_content;
  Value parameters_schema;
};

// Every refusal of the template at once (problems.hpp), each naming the
// template and the reason; a problem in a `.tera` file names the file, line
// and column.
Result<BrokerTemplate> broker_template(const Template& tpl);

// The newest of `owner`'s templates named `name` (owner null: the system's)
// in a broker's list of templates, if it has one. The name is checked here
// too: Brokkr's API declares no `name` filter, so a broker may list them all.
std::optional<Value> owned_live_template(const Array& listed, std::string_view name, const Value& owner);

// Whether a broker's template holds what would be published: the same
// description and content, and the same schema as data (whatever its
// spacing or key order).
bool broker_holds(const Value& live, const BrokerTemplate& published);

// A file's text as Tera source that renders to exactly that text.
std::string verbatim_tera(std::string_view text);

}  // namespace sindri::repo
