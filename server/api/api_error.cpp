#include "server/api/api_error.h"

#include <nlohmann/json.hpp>

#include "server/api/json_text.h"

namespace llm {

const char* default_error_type(int status) {
  switch (status) {
    case 400:
      return "BadRequestError";
    case 401:
      return "AuthenticationError";
    case 404:
      return "NotFoundError";
    case 405:
      return "MethodNotAllowedError";
    case 408:
      return "RequestTimeoutError";
    case 413:
      return "RequestEntityTooLargeError";
    case 431:
      return "RequestHeaderFieldsTooLargeError";
    case 503:
      return "ServiceUnavailableError";
    default:
      return "InternalServerError";
  }
}

const char* http_reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Internal Server Error";
  }
}

namespace {
nlohmann::ordered_json error_object(const ApiError& e) {
  nlohmann::ordered_json j;
  j["message"] = e.message;
  j["type"] = e.type.empty() ? default_error_type(e.status) : e.type;
  j["param"] = e.param.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.param);
  j["code"] = e.status;
  return j;
}
}  // namespace

std::string error_object_json(const ApiError& e) { return dump_json(error_object(e)); }

std::string error_body(const ApiError& e) {
  nlohmann::ordered_json j;
  j["error"] = error_object(e);
  return dump_json(j);
}

}  // namespace llm
