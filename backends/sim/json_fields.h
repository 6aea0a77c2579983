// JSON field reading for the sim backend's input files (GPU profiles, model shapes, engine
// profiles): a whole-file object reader and FieldReader, which reads typed fields into struct
// members and refuses what it was not asked for. Every error is std::invalid_argument
// "FILE: field 'KEY': what" (or "FILE: missing required field 'KEY'", "FILE: unknown field ...").
// Private to backends/sim.
// Thread-safety: a FieldReader is used by one thread; the free functions are pure.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace llm::sim_json {

using json = nlohmann::json;

std::string join(const std::vector<std::string>& items);  // "a, b, c"
bool is_json_path(const std::string& s);                  // ends in ".json"
// The file's top-level object. Throws for an unreadable file, invalid JSON or a non-object.
json read_json_object(const std::string& path);

// Reads a JSON object's fields into struct members, remembering which keys it knows so that the
// rest can be rejected as unknown.
class FieldReader {
 public:
  FieldReader(const json& obj, std::string file) : obj_(obj), file_(std::move(file)) {}

  void read(const std::string& key, std::string& out, bool required);
  void read(const std::string& key, double& out, bool required);
  void read(const std::string& key, int64_t& out, bool required);
  void read(const std::string& key, bool& out, bool required);
  void read(const std::string& key, std::vector<double>& out, bool required);  // numbers
  // The sub-object under key, for a nested FieldReader; object_if gives null when it is absent.
  const json& object(const std::string& key);
  const json* object_if(const std::string& key);
  // The value under key, of any type, marked as known; null when it is absent.
  const json* value_if(const std::string& key) { return find(key, false); }

  // Throws for the first key of the object that no read() asked for.
  void reject_unknown() const;
  bool has(const std::string& key) const { return obj_.contains(key); }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  const std::string& file() const { return file_; }

 private:
  const json* find(const std::string& key, bool required);

  const json& obj_;
  std::string file_;
  std::vector<std::string> known_;
};

void require_positive(const FieldReader& r, const std::string& key, double value);
void require_non_negative(const FieldReader& r, const std::string& key, double value);
void require_fraction(const FieldReader& r, const std::string& key, double value);

}  // namespace llm::sim_json
