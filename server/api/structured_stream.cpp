#include "server/api/structured_stream.h"

#include <algorithm>

namespace llm {

std::string StructuredStream::advance(int64_t tokens, bool finished) {
  const size_t total = answer_.text.size();
  size_t want = total;
  if (!finished) {
    want = std::min(total,
                    released_ + static_cast<size_t>(std::max<int64_t>(tokens, 0) * kBytesPerToken));
  }
  std::string piece = answer_.text.substr(released_, want - released_);
  released_ = want;
  return piece;
}

bool StructuredStream::fill_delta(const std::string& piece, ChoiceResult& chunk) {
  if (!answer_.tool_call) {
    chunk.text = piece;
    return !piece.empty();
  }
  std::string out = "[{\"index\":0,";
  if (!head_sent_) {
    head_sent_ = true;
    out += "\"id\":";
    append_json_string(out, answer_.tool_call_id);
    out += ",\"type\":\"function\",\"function\":{\"name\":";
    append_json_string(out, answer_.tool_name);
    out += ",\"arguments\":";
  } else if (piece.empty()) {
    return false;
  } else {
    out += "\"function\":{\"arguments\":";
  }
  append_json_string(out, piece);
  out += "}}]";
  chunk.tool_calls = std::move(out);
  return true;
}

void StructuredStream::fill_finish_delta(ChoiceResult& chunk) const {
  chunk.text.clear();
  chunk.empty_delta = answer_.tool_call;
}

void StructuredStream::fill_message(ChoiceResult& result) const {
  if (!answer_.tool_call) {
    result.text = answer_.text;
    return;
  }
  result.text.clear();
  std::string out = "[{\"id\":";
  append_json_string(out, answer_.tool_call_id);
  out += ",\"type\":\"function\",\"function\":{\"name\":";
  append_json_string(out, answer_.tool_name);
  out += ",\"arguments\":";
  append_json_string(out, answer_.text);
  out += "}}]";
  result.tool_calls = std::move(out);
}

}  // namespace llm
