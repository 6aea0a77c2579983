// The log line of the HTTP layer's exception boundary (Session::guarded in http_server.cpp) for an
// exception that escaped a request's handler or job and that the handler calls ours (status 500
// and above; HttpHandler::failure says which), with every byte that is not printable ASCII
// escaped so that a client cannot write control sequences into the server's log.
// Thread-safety: pure functions.
#pragma once

#include <string>

namespace llm {

// "llmserve: error in WHERE of METHOD TARGET: WHAT", escaped, at most 2000 bytes of input.
std::string handler_error_log_line(const std::string& where, const std::string& method,
                                   const std::string& target, const std::string& what);
// Writes that line to stderr.
void log_handler_error(const std::string& where, const std::string& method,
                       const std::string& target, const std::string& what);

}  // namespace llm
