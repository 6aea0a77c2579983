// The OpenAI-style error envelope {"error":{"message","type","param","code"}}, the exception the
// protocol layer throws to produce one, and what any exception that escapes a request becomes.
// Thread-safety: plain values and pure functions.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace llm {

struct ApiError {
  int status = 400;
  std::string message;
  std::string param;  // the offending field; "" prints as null
  std::string type;   // "" means the default for the status (BadRequestError, NotFoundError...)
};

class ApiException : public std::runtime_error {
 public:
  explicit ApiException(ApiError error)
      : std::runtime_error(error.message), error_(std::move(error)) {}
  const ApiError& error() const { return error_; }

 private:
  ApiError error_;
};

// Throws the 400 (BadRequestError) that names `param` as the offending field.
[[noreturn]] inline void throw_bad_request(const std::string& param, const std::string& message) {
  throw ApiException(ApiError{400, message, param, ""});
}

// vLLM's type names: BadRequestError (400), AuthenticationError (401), NotFoundError (404),
// MethodNotAllowedError (405), RequestTimeoutError (408), RequestEntityTooLargeError (413),
// RequestHeaderFieldsTooLargeError (431), InternalServerError (500), ServiceUnavailableError (503).
const char* default_error_type(int status);

// The JSON object {"message","type","param","code"} (without the "error" wrapper).
std::string error_object_json(const ApiError& error);
// The whole envelope {"error":{...}}.
std::string error_body(const ApiError& error);

// What an exception that escaped a request's handling becomes (call inside a catch block, or with
// any exception_ptr): the request's own ApiException as it is; a JSON access error while reading
// the request is the client's, 400; anything else is ours, 500.
ApiError error_of_exception(const std::exception_ptr& error);

}  // namespace llm
