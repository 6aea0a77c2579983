// Test helper for the backends' loaders: the message of the std::invalid_argument a call throws.
// Thread-safety: a plain function; safe from any thread.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace llm::testing {

// The std::invalid_argument message `f` throws, or "" if it does not throw.
inline std::string invalid_argument_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace llm::testing
