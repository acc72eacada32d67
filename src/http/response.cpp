#include <utility>

#include "http/server.hpp"

namespace sindri::http {

Response on_final_answer(Response response, std::function<void(Response&)> finish) {
  if (!response.later) {
    finish(response);
    return response;
  }
  response.later = [later = std::move(response.later), finish = std::move(finish)](Answer answer) {
    later([finish, answer = std::move(answer)](Response next) { answer(on_final_answer(std::move(next), finish)); });
  };
  return response;
}

}  // namespace sindri::http
