#include "sim/trace/json_trace_scan.h"

#include <algorithm>
#include <vector>

#include "sim/trace/trace_io_internal.h"

namespace llm::trace_internal {
namespace {

// nlohmann's own document builder, fed the events of the values kept whole.
using DomBuilder = nlohmann::detail::json_sax_dom_parser<json>;

// SAX events of the whole document into a JsonTopLevel. Depth 0 is outside the document, 1
// inside the top-level object, 2 inside a top-level value (the "requests" array's elements).
class TopLevelHandler {
 public:
  explicit TopLevelHandler(JsonTopLevel& out) : out_(out) {}

  bool null() { return scalar(nullptr); }
  bool boolean(bool v) { return scalar(v); }
  bool number_integer(json::number_integer_t v) { return scalar(v); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    if (dom_) return dom_->number_float(v, s);
    return scalar(v);
  }
  bool string(json::string_t& v) {
    if (dom_) return dom_->string(v);
    return scalar(v);
  }
  bool binary(json::binary_t&) { return true; }  // JSON text has none
  bool key(json::string_t& k) {
    if (dom_) return dom_->key(k);
    if (depth_ == 1) {
      key_ = k;
      out_.keys.insert(k);
    }
    return true;
  }
  bool start_object(std::size_t n) { return open(true, n); }
  bool start_array(std::size_t n) { return open(false, n); }
  bool end_object() { return close(true); }
  bool end_array() { return close(false); }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    failed_ = true;
    overflow_ = e.id == 406;  // out_of_range.406: a number that overflows a double
    position_ = position;
    what_ = e.what();
    return false;
  }

  bool failed() const { return failed_; }
  bool overflow() const { return overflow_; }
  size_t position() const { return position_; }
  const std::string& what() const { return what_; }

 private:
  template <typename V>
  bool scalar(V&& v) {
    if (dom_) return forward_scalar(std::forward<V>(v));
    if (depth_ == 1 && out_.is_object) {
      if (json* target = begin_value()) *target = json(std::forward<V>(v));
    } else if (depth_ == 2 && in_requests_) {
      ++out_.requests_count;
    }
    return true;
  }
  template <typename V>
  bool forward_scalar(V&& v) {
    json tmp(std::forward<V>(v));
    switch (tmp.type()) {
      case json::value_t::null:
        return dom_->null();
      case json::value_t::boolean:
        return dom_->boolean(tmp.get<bool>());
      case json::value_t::number_integer:
        return dom_->number_integer(tmp.get<json::number_integer_t>());
      case json::value_t::number_unsigned:
        return dom_->number_unsigned(tmp.get<json::number_unsigned_t>());
      default:
        return true;  // strings and floats are forwarded as they come
    }
  }

  // A top-level value starts: where to keep it (null: not kept).
  json* begin_value() {
    if (key_ == "requests") {
      ++out_.requests_keys;
      out_.requests_is_array = false;
      out_.requests_count = 0;
      out_.requests_value = json();
      return &out_.requests_value;
    }
    if (key_ == "metadata") {
      out_.has_metadata = true;
      out_.metadata = json();
      return &out_.metadata;
    }
    return nullptr;
  }

  bool open(bool object, std::size_t n) {
    if (dom_) {
      ++depth_;
      return object ? dom_->start_object(n) : dom_->start_array(n);
    }
    if (depth_ == 0) {
      out_.is_object = object;
    } else if (depth_ == 1 && out_.is_object) {
      json* target = begin_value();
      if (target == &out_.requests_value && !object) {
        out_.requests_is_array = true;
        in_requests_ = true;
      } else if (target != nullptr) {
        dom_ = std::make_unique<DomBuilder>(*target);
        kept_depth_ = depth_;
        ++depth_;
        return object ? dom_->start_object(n) : dom_->start_array(n);
      }
    } else if (depth_ == 2 && in_requests_) {
      ++out_.requests_count;
    }
    ++depth_;
    return true;
  }

  bool close(bool object) {
    --depth_;
    if (dom_) {
      const bool ok = object ? dom_->end_object() : dom_->end_array();
      if (depth_ == kept_depth_) dom_.reset();
      return ok;
    }
    if (depth_ == 1) in_requests_ = false;
    return true;
  }

  JsonTopLevel& out_;
  int64_t depth_ = 0;
  std::string key_;
  bool in_requests_ = false;
  std::unique_ptr<DomBuilder> dom_;
  int64_t kept_depth_ = 0;
  bool failed_ = false, overflow_ = false;
  size_t position_ = 0;
  std::string what_;
};

// 1 + the newlines among the input's first `pos` bytes (as many as it has).
int64_t json_line_of(const OpenInput& open, size_t pos) {
  std::unique_ptr<std::istream> in = open();
  std::vector<char> buf(1 << 16);
  int64_t line = 1;
  while (pos > 0) {
    in->read(buf.data(), static_cast<std::streamsize>(std::min(pos, buf.size())));
    const size_t got = static_cast<size_t>(in->gcount());
    if (got == 0) break;
    line += std::count(buf.data(), buf.data() + got, '\n');
    pos -= got;
  }
  return line;
}

// The line where `needle` first occurs in the input; 0 when it does not.
int64_t json_line_of_text(const OpenInput& open, const std::string& needle) {
  std::unique_ptr<std::istream> in = open();
  std::vector<char> chunk(1 << 16);
  std::string window;  // the unsearched rest: a chunk and the tail of the last
  int64_t line = 1;    // of window's first byte
  for (;;) {
    in->read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const size_t got = static_cast<size_t>(in->gcount());
    if (got == 0) return 0;
    window.append(chunk.data(), got);
    const size_t at = window.find(needle);
    if (at != std::string::npos) {
      return line +
             std::count(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(at), '\n');
    }
    const size_t keep = std::min(window.size(), needle.size() - 1);
    const auto drop = window.begin() + static_cast<std::ptrdiff_t>(window.size() - keep);
    line += std::count(window.begin(), drop, '\n');
    window.erase(window.begin(), drop);
  }
}

// nlohmann reports overflowing numbers ("1e999") without a position: find the literal it quotes.
std::string json_overflow_location(const OpenInput& open, const std::string& what,
                                   const std::string& name) {
  const size_t open_quote = what.find('\'');
  const size_t close_quote = what.rfind('\'');
  if (open_quote == std::string::npos || close_quote <= open_quote + 1) return name;
  const int64_t line =
      json_line_of_text(open, what.substr(open_quote + 1, close_quote - open_quote - 1));
  return line == 0 ? name : at_line(name, line);
}

}  // namespace

JsonTopLevel scan_json_top_level(const OpenInput& open, const std::string& name) {
  JsonTopLevel top;
  TopLevelHandler handler(top);
  {
    std::unique_ptr<std::istream> in = open();
    json::sax_parse(*in, &handler);
  }
  if (!handler.failed()) return top;
  if (handler.overflow()) {
    fail(json_overflow_location(open, handler.what(), name), "json",
         "number out of range (non-finite): " + handler.what());
  }
  const size_t byte = handler.position();
  fail(at_line(name, json_line_of(open, byte == 0 ? 0 : byte - 1)), "json",
       "malformed JSON: " + handler.what());
}

int JsonArrayElements::peek() { return buf_->sgetc(); }
int JsonArrayElements::get() {
  const int c = buf_->sbumpc();
  if (c == std::char_traits<char>::eof()) {
    fail(name_, "json", "the input ended early (did the file change while it was read?)");
  }
  return c;
}

int JsonArrayElements::skip_space() {
  for (;;) {
    const int c = peek();
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return c;
    buf_->sbumpc();
  }
}

void JsonArrayElements::read_string(std::string* out) {
  for (bool first = true;; first = false) {
    const char c = static_cast<char>(get());
    if (out) out->push_back(c);
    if (c == '\\') {
      const char escaped = static_cast<char>(get());
      if (out) out->push_back(escaped);
    } else if (c == '"' && !first) {
      return;
    }
  }
}

void JsonArrayElements::read_value(std::string* out) {
  int depth = 0;
  for (;;) {
    const int c = peek();
    if (c == '"') {
      read_string(out);
      if (depth == 0) return;
      continue;
    }
    if (depth == 0 && c != '{' && c != '[') {
      // A number or a literal: up to the next delimiter.
      while (true) {
        const int d = peek();
        if (d == std::char_traits<char>::eof() || d == ',' || d == '}' || d == ']' || d == ' ' ||
            d == '\t' || d == '\n' || d == '\r') {
          return;
        }
        if (out) out->push_back(static_cast<char>(d));
        buf_->sbumpc();
      }
    }
    get();
    if (out) out->push_back(static_cast<char>(c));
    if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return;
    }
  }
}

bool JsonArrayElements::find_array() {
  if (peek() == 0xEF) {  // a UTF-8 byte order mark, which nlohmann skips
    for (int i = 0; i < 3; ++i) get();
  }
  skip_space();
  get();  // '{'
  int64_t seen = 0;
  std::string raw;
  for (;;) {
    if (skip_space() == '}') return false;
    raw.clear();
    read_string(&raw);
    const std::string key = json::parse(raw).get<std::string>();
    skip_space();
    get();  // ':'
    skip_space();
    if (key == "requests" && seen++ == which_) {
      get();  // '['
      return true;
    }
    read_value(nullptr);
    if (skip_space() == ',') get();
  }
}

bool JsonArrayElements::next(std::string& text) {
  if (!started_) {
    started_ = true;
    done_ = !find_array();
  }
  if (done_) return false;
  if (skip_space() == ']') {
    done_ = true;
    return false;
  }
  text.clear();
  read_value(&text);
  if (skip_space() == ',') get();
  return true;
}

}  // namespace llm::trace_internal
