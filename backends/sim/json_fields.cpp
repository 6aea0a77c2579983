#include "backends/sim/json_fields.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <stdexcept>

namespace llm::sim_json {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

bool is_json_path(const std::string& s) { return s.ends_with(".json"); }

json read_json_object(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open file");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
    throw std::invalid_argument(path + ": invalid JSON: " + e.what());
  }
  if (!j.is_object()) throw std::invalid_argument(path + ": expected a JSON object");
  return j;
}

void FieldReader::read(const std::string& key, std::string& out, bool required) {
  if (const json* v = find(key, required)) {
    if (!v->is_string()) fail(key, std::string("expected a string, got ") + v->type_name());
    out = v->get<std::string>();
  }
}

void FieldReader::read(const std::string& key, double& out, bool required) {
  if (const json* v = find(key, required)) {
    if (!v->is_number()) fail(key, std::string("expected a number, got ") + v->type_name());
    out = v->get<double>();
  }
}

void FieldReader::read(const std::string& key, int64_t& out, bool required) {
  if (const json* v = find(key, required)) {
    if (!v->is_number_integer()) {
      fail(key, std::string("expected an integer, got ") + v->type_name());
    }
    if (v->is_number_unsigned() &&
        v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail(key, "integer out of range");
    }
    out = v->get<int64_t>();
  }
}

void FieldReader::read(const std::string& key, bool& out, bool required) {
  if (const json* v = find(key, required)) {
    if (!v->is_boolean()) fail(key, std::string("expected true or false, got ") + v->type_name());
    out = v->get<bool>();
  }
}

void FieldReader::read(const std::string& key, std::vector<double>& out, bool required) {
  if (const json* v = find(key, required)) {
    if (!v->is_array())
      fail(key, std::string("expected an array of numbers, got ") + v->type_name());
    out.clear();
    for (const json& item : *v) {
      if (!item.is_number()) {
        fail(key, std::string("expected an array of numbers, got an element that is ") +
                      item.type_name());
      }
      out.push_back(item.get<double>());
    }
  }
}

const json& FieldReader::object(const std::string& key) {
  const json* v = find(key, true);
  if (!v->is_object()) fail(key, std::string("expected an object, got ") + v->type_name());
  return *v;
}

const json* FieldReader::object_if(const std::string& key) {
  const json* v = find(key, false);
  if (v && !v->is_object()) fail(key, std::string("expected an object, got ") + v->type_name());
  return v;
}

void FieldReader::reject_unknown() const {
  for (const auto& [key, value] : obj_.items()) {
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
      throw std::invalid_argument(file_ + ": unknown field '" + key +
                                  "' (known fields: " + join(known_) + ")");
    }
  }
}

void FieldReader::fail(const std::string& key, const std::string& what) const {
  throw std::invalid_argument(file_ + ": field '" + key + "': " + what);
}

const json* FieldReader::find(const std::string& key, bool required) {
  known_.push_back(key);
  auto it = obj_.find(key);
  if (it == obj_.end()) {
    if (required) throw std::invalid_argument(file_ + ": missing required field '" + key + "'");
    return nullptr;
  }
  return &*it;
}

void require_positive(const FieldReader& r, const std::string& key, double value) {
  if (!(value > 0)) r.fail(key, "must be > 0");
}

void require_non_negative(const FieldReader& r, const std::string& key, double value) {
  if (!(value >= 0)) r.fail(key, "must be >= 0");
}

void require_fraction(const FieldReader& r, const std::string& key, double value) {
  if (!(value > 0 && value <= 1)) r.fail(key, "must be in (0, 1]");
}

}  // namespace llm::sim_json
