// One chat message as a client sends it to /v1/chat/completions: a role ("system", "user",
// "assistant", ...) and its text content. Shared by the chat templates and the server.
// Thread-safety: plain data.
#pragma once

#include <string>

namespace llm {

struct ChatMessage {
  std::string role;
  std::string content;
};

}  // namespace llm
