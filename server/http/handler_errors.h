// What the HTTP layer's exception boundary (Session::guarded in http_server.cpp) makes of an
// exception that escaped a request's handler: the error response the client gets (the request's
// own ApiException as it is; a JSON access error while reading the request is the client's, 400;
// anything else is ours, 500), and the log line for ours, with every byte that is not printable
// ASCII escaped so that a client cannot write control sequences into the server's log.
// Thread-safety: pure functions.
#pragma once

#include <exception>
#include <string>

#include "server/api/api_error.h"

namespace llm {

// Call inside a catch block (or with any exception_ptr).
ApiError error_of_exception(const std::exception_ptr& error);

// "llmserve: error in WHERE of METHOD TARGET: WHAT", escaped, at most 2000 bytes of input.
std::string handler_error_log_line(const std::string& where, const std::string& method,
                                   const std::string& target, const std::string& what);

}  // namespace llm
