// The two passes that let our JSON trace format be read without holding the document (private to
// sim/trace/trace_json.cpp). The first, scan_json_top_level, runs nlohmann/json's SAX parser over
// the whole document: it checks the syntax (so a malformed document is refused, with the same
// message and line as parsing it whole, before anything else is checked) and notes the top
// level: its keys, the "metadata" value and the "requests" array's length, as the document
// object would have them (a repeated key: the last one counts). The second, JsonArrayElements,
// cuts the "requests" array of the now valid document into its elements' text, one at a time.
// Thread-safety: one instance per thread; the functions are reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace llm::trace_internal {

// Gives the document's bytes from the start, once per pass.
using OpenInput = std::function<std::unique_ptr<std::istream>()>;

struct JsonTopLevel {
  bool is_object = false;
  std::set<std::string> keys;  // in the order nlohmann::json's object iterates them
  bool has_metadata = false;
  nlohmann::json metadata;         // the last "metadata" value
  int64_t requests_keys = 0;       // how many "requests" keys there are
  bool requests_is_array = false;  // of the last one
  nlohmann::json requests_value;   // the last "requests" value when it is not an array
  size_t requests_count = 0;       // the elements of the last "requests" array
};

// Throws TraceError "NAME:LINE: json: malformed JSON: ..." or "NAME:LINE: json: number out of
// range (non-finite): ..." (reading the input again to find the line), and what the input throws.
JsonTopLevel scan_json_top_level(const OpenInput& open, const std::string& name);

// The elements of the top-level "requests" array numbered `which` (0: the first "requests" key)
// of a document scan_json_top_level accepted.
class JsonArrayElements {
 public:
  JsonArrayElements(std::istream& in, int64_t which, std::string name)
      : buf_(in.rdbuf()), which_(which), name_(std::move(name)) {}
  // The next element's text; false after the last.
  bool next(std::string& text);

 private:
  int peek();
  int get();
  int skip_space();  // the next character that is not white space, not consumed
  bool find_array();
  void read_value(std::string* out);  // null: skipped
  void read_string(std::string* out);

  std::streambuf* buf_;
  int64_t which_;
  std::string name_;
  bool started_ = false, done_ = false;
};

}  // namespace llm::trace_internal
