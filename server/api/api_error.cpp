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

ApiError error_of_exception(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const ApiException& e) {
    return e.error();
  } catch (const nlohmann::json::exception& e) {  // a request field read without its check
    return ApiError{400, std::string("Invalid request: ") + e.what(), "", ""};
  } catch (const std::exception& e) {
    return ApiError{500, std::string("Internal server error: ") + e.what(), "", ""};
  } catch (...) {
    return ApiError{500, "Internal server error", "", ""};
  }
}

}  // namespace llm
