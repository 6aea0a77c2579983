#include "server/http/handler_errors.h"

#include <cstdio>

namespace llm {

std::string handler_error_log_line(const std::string& where, const std::string& method,
                                   const std::string& target, const std::string& what) {
  std::string line = "error in " + where;
  if (!method.empty()) line += " of " + method + " " + target;
  line += ": " + what;
  std::string safe = "llmserve: ";
  for (const char ch : line.substr(0, 2000)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      safe += ch;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      safe += hex;
    }
  }
  return safe;
}

void log_handler_error(const std::string& where, const std::string& method,
                       const std::string& target, const std::string& what) {
  std::fprintf(stderr, "%s\n", handler_error_log_line(where, method, target, what).c_str());
}

}  // namespace llm
