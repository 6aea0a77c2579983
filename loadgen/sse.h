// Server-sent events and OpenAI response scanning for the load generator (llmbench).
// SseParser turns a byte stream, split at arbitrary points, into events (the `data:` payloads);
// scan_chunk looks at one streamed JSON chunk without building a DOM: whether it carries
// non-empty generated text, usage figures, or an error. Only error payloads get a full JSON parse.
// Thread-safety: an SseParser is used by one thread at a time; the free functions are pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace llm::loadgen {

// Incremental parser of a text/event-stream body (the SSE rules of the HTML standard, restricted
// to what OpenAI-compatible servers send): lines end with LF or CRLF; `data:` lines (one optional
// space after the colon) accumulate, joined by LF; `event:` names the event; lines starting with
// ':' are comments; a blank line dispatches the event when it has data. Other fields are ignored.
class SseParser {
 public:
  // Feeds the next bytes. Calls on_event(std::string_view event, std::string_view data) for every
  // event completed by these bytes. The views are valid only during the call.
  template <class F>
  void feed(std::string_view bytes, F&& on_event) {
    while (!bytes.empty()) {
      const size_t nl = bytes.find('\n');
      if (nl == std::string_view::npos) {
        partial_.append(bytes);
        return;
      }
      std::string_view line = bytes.substr(0, nl);
      bytes.remove_prefix(nl + 1);
      if (!partial_.empty()) {
        partial_.append(line);
        line = partial_;
      }
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      on_line(line, on_event);
      partial_.clear();
    }
  }

  // The stream ended: an unterminated last line and an event without its blank line still count.
  template <class F>
  void finish(F&& on_event) {
    if (!partial_.empty()) {
      std::string_view line = partial_;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      on_line(line, on_event);
      partial_.clear();
    }
    on_line(std::string_view{}, on_event);
  }

  void reset() {
    partial_.clear();
    data_.clear();
    event_.clear();
    has_data_ = false;
  }

 private:
  template <class F>
  void on_line(std::string_view line, F& on_event) {
    if (line.empty()) {
      if (has_data_) on_event(std::string_view(event_), std::string_view(data_));
      data_.clear();
      event_.clear();
      has_data_ = false;
      return;
    }
    if (line.front() == ':') return;
    std::string_view field = line;
    std::string_view value;
    if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
      field = line.substr(0, colon);
      value = line.substr(colon + 1);
      if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    }
    if (field == "data") {
      if (has_data_) data_.push_back('\n');
      data_.append(value);
      has_data_ = true;
    } else if (field == "event") {
      event_.assign(value);
    }
  }

  std::string partial_;  // an incomplete line carried over to the next feed
  std::string data_;     // data of the event being read
  std::string event_;    // its event name
  bool has_data_ = false;
};

// What one JSON payload of a response says, found by a scan for keys (whitespace-tolerant; key
// names inside JSON strings cannot match because their quotes are escaped there).
struct ChunkInfo {
  bool has_content = false;        // a "text" or "content" string value that is not empty
  bool has_usage = false;          // a "usage" object
  int64_t prompt_tokens = -1;      // from usage, -1 when absent
  int64_t completion_tokens = -1;  // from usage, -1 when absent
  bool is_error = false;           // an "error" member, or "object": "error"
};

ChunkInfo scan_chunk(std::string_view json);

// The message of an error payload: error.message, message, or the payload itself (shortened).
std::string error_message(std::string_view json);

// The start of the value of the first member named `key` at or after `from` (after the colon and
// any whitespace), or npos.
size_t find_member_value(std::string_view json, std::string_view key, size_t from = 0);

}  // namespace llm::loadgen
