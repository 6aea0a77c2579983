#include "server/api/schema_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

namespace llm {
namespace {

using json = nlohmann::json;

const std::set<std::string>& annotation_keywords() {
  static const std::set<std::string> k = {
      "title",    "description", "default",  "examples",  "format", "$schema",     "$id",
      "$comment", "deprecated",  "readOnly", "writeOnly", "$defs",  "definitions", "strict"};
  return k;
}

const std::set<std::string>& value_keywords() {
  static const std::set<std::string> k = {"type",
                                          "enum",
                                          "const",
                                          "properties",
                                          "required",
                                          "additionalProperties",
                                          "items",
                                          "minItems",
                                          "maxItems",
                                          "minimum",
                                          "maximum",
                                          "exclusiveMinimum",
                                          "exclusiveMaximum",
                                          "minLength",
                                          "maxLength",
                                          "anyOf",
                                          "oneOf",
                                          "$ref",
                                          "uniqueItems"};
  return k;
}

bool known_type(const std::string& t) {
  return t == "string" || t == "number" || t == "integer" || t == "boolean" || t == "array" ||
         t == "object" || t == "null";
}

// The schema a "$ref" names in the root ("#/$defs/X" or "#/definitions/X"), or null.
const json* resolve_ref(const json& root, const std::string& ref) {
  for (const char* prefix : {"#/$defs/", "#/definitions/"}) {
    const std::string p = prefix;
    if (ref.rfind(p, 0) != 0) continue;
    const std::string section = p.substr(2, p.size() - 3);
    const auto defs = root.find(section);
    if (defs == root.end() || !defs->is_object()) return nullptr;
    const auto it = defs->find(ref.substr(p.size()));
    return it == defs->end() ? nullptr : &*it;
  }
  if (ref == "#") return &root;
  return nullptr;
}

// The types a schema allows, in order ("" entries never); empty = any.
std::vector<std::string> types_of(const json& s) {
  std::vector<std::string> out;
  const auto t = s.find("type");
  if (t == s.end()) {
    if (s.contains("properties") || s.contains("required")) out.push_back("object");
    if (s.contains("items")) out.push_back("array");
    return out;
  }
  if (t->is_string()) {
    out.push_back(t->get<std::string>());
  } else {
    for (const json& x : *t) out.push_back(x.get<std::string>());
  }
  return out;
}

struct Range {
  double lo;
  double hi;
  bool lo_open = false;
  bool hi_open = false;
};

Range range_of(const json& s, double default_span) {
  Range r{0, 0};
  const bool has_lo = s.contains("minimum") || s.contains("exclusiveMinimum");
  const bool has_hi = s.contains("maximum") || s.contains("exclusiveMaximum");
  if (s.contains("minimum")) r.lo = s["minimum"].get<double>();
  if (s.contains("exclusiveMinimum")) {
    const double x = s["exclusiveMinimum"].get<double>();
    if (!s.contains("minimum") || x >= r.lo) r = {x, r.hi, true, r.hi_open};
  }
  if (s.contains("maximum")) r.hi = s["maximum"].get<double>();
  if (s.contains("exclusiveMaximum")) {
    const double x = s["exclusiveMaximum"].get<double>();
    if (!s.contains("maximum") || x <= r.hi) {
      r.hi = x;
      r.hi_open = true;
    }
  }
  if (!has_lo && !has_hi) {
    r.lo = 0;
    r.hi = default_span;
  } else if (!has_lo) {
    r.lo = r.hi - default_span;
  } else if (!has_hi) {
    r.hi = r.lo + default_span;
  }
  return r;
}

// Integer bounds of a range, or false when it holds no integer.
bool integer_bounds(const Range& r, int64_t& lo, int64_t& hi) {
  double l = std::ceil(r.lo);
  if (r.lo_open && l == r.lo) l += 1;
  double h = std::floor(r.hi);
  if (r.hi_open && h == r.hi) h -= 1;
  if (!(l <= h) || l < -9.0e15 || h > 9.0e15) return false;
  lo = static_cast<int64_t>(l);
  hi = static_cast<int64_t>(h);
  return true;
}

class Checker {
 public:
  explicit Checker(const json& root) : root_(root) {}

  std::optional<std::string> check(const json& s, const std::string& path, int depth) {
    if (depth > kMaxSchemaDepth) return fail(path, "the schema nests too deeply");
    if (s.is_boolean()) {
      if (!s.get<bool>()) return fail(path, "the schema 'false' accepts no value");
      return std::nullopt;
    }
    if (!s.is_object()) return fail(path, "a schema must be an object");
    for (const auto& [key, value] : s.items()) {
      if (annotation_keywords().count(key)) continue;
      if (!value_keywords().count(key)) return fail(path, "unsupported keyword '" + key + "'");
    }
    if (auto t = s.find("type"); t != s.end()) {
      std::vector<json> names = t->is_array() ? t->get<std::vector<json>>() : std::vector<json>{*t};
      if (names.empty()) return fail(path + "/type", "'type' must name at least one type");
      for (const json& n : names) {
        if (!n.is_string() || !known_type(n.get<std::string>())) {
          return fail(path + "/type", "unknown type " + n.dump());
        }
      }
    }
    if (auto e = s.find("enum"); e != s.end() && (!e->is_array() || e->empty())) {
      return fail(path + "/enum", "'enum' must be a non-empty list");
    }
    if (auto p = s.find("properties"); p != s.end()) {
      if (!p->is_object()) return fail(path + "/properties", "'properties' must be an object");
      for (const auto& [name, sub] : p->items()) {
        if (auto why = check(sub, path + "/properties/" + name, depth + 1)) return why;
      }
    }
    if (auto r = s.find("required"); r != s.end()) {
      if (!r->is_array()) return fail(path + "/required", "'required' must be a list of names");
      for (const json& n : *r) {
        if (!n.is_string()) return fail(path + "/required", "'required' must be a list of names");
      }
    }
    if (auto a = s.find("additionalProperties"); a != s.end() && !a->is_boolean()) {
      if (auto why = check(*a, path + "/additionalProperties", depth + 1)) return why;
    }
    if (auto i = s.find("items"); i != s.end()) {
      if (!i->is_object() && !i->is_boolean()) {
        return fail(path + "/items", "'items' must be one schema (tuples are not supported)");
      }
      if (auto why = check(*i, path + "/items", depth + 1)) return why;
    }
    if (auto u = s.find("uniqueItems"); u != s.end() && *u != false) {
      return fail(path + "/uniqueItems", "'uniqueItems' true is not supported");
    }
    for (const char* k : {"minItems", "maxItems", "minLength", "maxLength"}) {
      if (auto v = s.find(k); v != s.end() && (!v->is_number_integer() || v->get<int64_t>() < 0 ||
                                               v->get<int64_t>() > 4096)) {
        return fail(path + "/" + k, std::string("'") + k + "' must be an integer in [0, 4096]");
      }
    }
    if (s.value("minItems", 0) > s.value("maxItems", 4096) ||
        s.value("minLength", 0) > s.value("maxLength", 4096)) {
      return fail(path, "the minimum exceeds the maximum");
    }
    for (const char* k : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}) {
      if (auto v = s.find(k); v != s.end() && !v->is_number()) {
        return fail(path + "/" + k, std::string("'") + k + "' must be a number");
      }
    }
    if (s.contains("minimum") || s.contains("maximum") || s.contains("exclusiveMinimum") ||
        s.contains("exclusiveMaximum")) {
      const Range r = range_of(s, 100);
      int64_t lo = 0, hi = 0;
      const std::vector<std::string> types = types_of(s);
      const bool only_integer = types.size() == 1 && types[0] == "integer";
      if (r.lo > r.hi || ((r.lo_open || r.hi_open) && r.lo == r.hi) ||
          (only_integer && !integer_bounds(r, lo, hi))) {
        return fail(path, "the numeric range is empty");
      }
    }
    for (const char* k : {"anyOf", "oneOf"}) {
      if (auto v = s.find(k); v != s.end()) {
        if (!v->is_array() || v->empty()) {
          return fail(path + "/" + k, std::string("'") + k + "' must be a non-empty list");
        }
        for (size_t i = 0; i < v->size(); ++i) {
          if (auto why = check((*v)[i], path + "/" + k + "/" + std::to_string(i), depth + 1)) {
            return why;
          }
        }
      }
    }
    if (auto r = s.find("$ref"); r != s.end()) {
      const json* target = r->is_string() ? resolve_ref(root_, r->get<std::string>()) : nullptr;
      if (!target) return fail(path + "/$ref", "'$ref' must name an entry of $defs");
      if (seen_refs_.insert(r->get<std::string>()).second) {
        if (auto why = check(*target, r->get<std::string>().substr(1), depth + 1)) return why;
      }
    }
    return std::nullopt;
  }

 private:
  static std::optional<std::string> fail(const std::string& path, const std::string& why) {
    return (path.empty() ? std::string("/") : path) + ": " + why;
  }
  const json& root_;
  std::set<std::string> seen_refs_;
};

class Validator {
 public:
  explicit Validator(const json& root) : root_(root) {}

  std::optional<std::string> validate(const json& s, const json& v, const std::string& path,
                                      int depth) {
    if (depth > 4 * kMaxSchemaDepth) return fail(path, "too deep");
    if (s.is_boolean()) return s.get<bool>() ? std::nullopt : fail(path, "schema false");
    if (auto r = s.find("$ref"); r != s.end()) {
      const json* target = resolve_ref(root_, r->get<std::string>());
      if (!target) return fail(path, "unresolved $ref");
      if (auto why = validate(*target, v, path, depth + 1)) return why;
    }
    if (auto c = s.find("const"); c != s.end() && *c != v) return fail(path, "not the const");
    if (auto e = s.find("enum"); e != s.end()) {
      if (std::find(e->begin(), e->end(), v) == e->end()) return fail(path, "not in the enum");
    }
    const std::vector<std::string> types = types_of(s);
    if (!types.empty()) {
      bool any = false;
      for (const std::string& t : types) any = any || has_type(v, t);
      if (!any) return fail(path, "not of type " + json(types).dump());
    }
    if (v.is_number()) {
      const double x = v.get<double>();
      if (auto m = s.find("minimum"); m != s.end() && x < m->get<double>()) {
        return fail(path, "below the minimum");
      }
      if (auto m = s.find("maximum"); m != s.end() && x > m->get<double>()) {
        return fail(path, "above the maximum");
      }
      if (auto m = s.find("exclusiveMinimum"); m != s.end() && x <= m->get<double>()) {
        return fail(path, "not above exclusiveMinimum");
      }
      if (auto m = s.find("exclusiveMaximum"); m != s.end() && x >= m->get<double>()) {
        return fail(path, "not below exclusiveMaximum");
      }
    }
    if (v.is_string()) {
      const int64_t n = code_points(v.get_ref<const std::string&>());
      if (n < s.value("minLength", int64_t{0})) return fail(path, "shorter than minLength");
      if (n > s.value("maxLength", INT64_MAX)) return fail(path, "longer than maxLength");
    }
    if (v.is_array()) {
      const int64_t n = static_cast<int64_t>(v.size());
      if (n < s.value("minItems", int64_t{0})) return fail(path, "fewer than minItems");
      if (n > s.value("maxItems", INT64_MAX)) return fail(path, "more than maxItems");
      if (auto items = s.find("items"); items != s.end()) {
        for (size_t i = 0; i < v.size(); ++i) {
          if (auto why = validate(*items, v[i], path + "/" + std::to_string(i), depth + 1)) {
            return why;
          }
        }
      }
    }
    if (v.is_object()) {
      if (auto r = s.find("required"); r != s.end()) {
        for (const json& name : *r) {
          if (!v.contains(name.get<std::string>())) {
            return fail(path, "missing required property " + name.dump());
          }
        }
      }
      const auto props = s.find("properties");
      const auto extra = s.find("additionalProperties");
      for (const auto& [key, value] : v.items()) {
        if (props != s.end() && props->contains(key)) {
          if (auto why = validate((*props)[key], value, path + "/" + key, depth + 1)) return why;
        } else if (extra != s.end()) {
          if (auto why = validate(*extra, value, path + "/" + key, depth + 1)) return why;
        }
      }
    }
    if (auto a = s.find("anyOf"); a != s.end()) {
      if (matches(*a, v, path, depth) == 0) return fail(path, "matches no branch of anyOf");
    }
    if (auto o = s.find("oneOf"); o != s.end()) {
      if (matches(*o, v, path, depth) != 1) return fail(path, "does not match exactly one oneOf");
    }
    return std::nullopt;
  }

  static bool has_type(const json& v, const std::string& t) {
    if (t == "string") return v.is_string();
    if (t == "number") return v.is_number();
    if (t == "integer") {
      return v.is_number_integer() || (v.is_number_float() && std::isfinite(v.get<double>()) &&
                                       std::floor(v.get<double>()) == v.get<double>());
    }
    if (t == "boolean") return v.is_boolean();
    if (t == "array") return v.is_array();
    if (t == "object") return v.is_object();
    return v.is_null();
  }

 private:
  size_t matches(const json& branches, const json& v, const std::string& path, int depth) {
    size_t n = 0;
    for (const json& b : branches) n += validate(b, v, path, depth + 1) ? 0 : 1;
    return n;
  }
  static int64_t code_points(const std::string& s) {
    int64_t n = 0;
    for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
  }
  static std::optional<std::string> fail(const std::string& path, const std::string& why) {
    return (path.empty() ? std::string("/") : path) + ": " + why;
  }
  const json& root_;
};

constexpr const char* kWords[] = {"alpha", "river", "stone",  "cloud",  "amber", "delta",
                                  "maple", "orbit", "quartz", "harbor", "lumen", "cedar"};

class Generator {
 public:
  Generator(const json& root, Rng& rng) : root_(root), rng_(rng) {}

  json generate(const json& s, int depth) {
    // A schema that requires itself, or more values than kMaxGeneratedValues, is cut off (the
    // value will not validate): the answer's size stays bounded whatever the schema asks.
    if (depth > 2 * kMaxSchemaDepth || ++values_ > kMaxGeneratedValues) return nullptr;
    if (s.is_boolean() || s.empty()) return word();
    if (auto r = s.find("$ref"); r != s.end()) {
      return generate(with_branch(s, "$ref", *resolve_ref(root_, r->get<std::string>())),
                      depth + 1);
    }
    if (auto c = s.find("const"); c != s.end()) return *c;
    if (auto e = s.find("enum"); e != s.end()) return (*e)[rng_.below(e->size())];
    if (auto a = s.find("anyOf"); a != s.end()) {
      return generate(with_branch(s, "anyOf", (*a)[rng_.below(a->size())]), depth + 1);
    }
    if (auto o = s.find("oneOf"); o != s.end()) return one_of(s, *o, depth);
    std::vector<std::string> types = types_of(s);
    if (types.empty()) return word();
    // Prefer a non-null type: a synthetic answer with content is the useful one.
    std::string type = types[rng_.below(types.size())];
    if (type == "null" && types.size() > 1) type = types[0] == "null" ? types[1] : types[0];
    if (type == "string") return string_value(s);
    if (type == "integer") return integer_value(s);
    if (type == "number") return number_value(s);
    if (type == "boolean") return rng_.below(2) == 1;
    if (type == "null") return nullptr;
    if (type == "array") return array_value(s, depth);
    return object_value(s, depth);
  }

 private:
  // `s` without `key`, with `branch`'s keywords: its properties and required added to the
  // schema's, the others where the schema has none (a branch of anyOf / oneOf, or a $ref's target,
  // together with the constraints beside it).
  static json with_branch(const json& s, const char* key, const json& branch) {
    json merged = s;
    merged.erase(key);
    if (!branch.is_object()) return merged.empty() ? json::object() : merged;
    for (const auto& [k, v] : branch.items()) {
      if (k == "properties" && merged.contains(k)) {
        for (const auto& [name, sub] : v.items()) {
          if (!merged[k].contains(name)) merged[k][name] = sub;
        }
      } else if (k == "required" && merged.contains(k)) {
        for (const json& name : v) {
          if (std::find(merged[k].begin(), merged[k].end(), name) == merged[k].end()) {
            merged[k].push_back(name);
          }
        }
      } else if (!merged.contains(k)) {
        merged[k] = v;
      }
    }
    return merged;
  }

  json one_of(const json& s, const json& branches, int depth) {
    // A value of one branch that the others refuse; the first draw when none is found.
    json first;
    for (int attempt = 0; attempt < 8; ++attempt) {
      json v = generate(with_branch(s, "oneOf", branches[rng_.below(branches.size())]), depth + 1);
      if (!Validator(root_).validate(s, v, "", 0)) return v;
      if (attempt == 0) first = v;
    }
    return first;
  }

  std::string word() { return kWords[rng_.below(std::size(kWords))]; }

  json string_value(const json& s) {
    const int64_t min_len = s.value("minLength", int64_t{0});
    const int64_t max_len = s.value("maxLength", int64_t{-1});
    if (auto f = s.find("format"); f != s.end() && f->is_string() && min_len == 0 && max_len < 0) {
      const std::string format = f->get<std::string>();
      const uint64_t k = rng_.below(28) + 1;
      const std::string day = (k < 10 ? "0" : "") + std::to_string(k);
      if (format == "date-time") return "2025-03-" + day + "T12:00:00Z";
      if (format == "date") return "2025-03-" + day;
      if (format == "time") return "12:00:00Z";
      if (format == "email") return word() + "@example.com";
      if (format == "uri" || format == "url") return "https://example.com/" + word();
      if (format == "uuid") return "00000000-0000-4000-8000-0000000000" + day;
    }
    std::string out;
    const uint64_t words = 1 + rng_.below(3);
    for (uint64_t i = 0; i < words; ++i) out += (i ? " " : "") + word();
    while (static_cast<int64_t>(out.size()) < min_len) out += " " + word();
    if (max_len >= 0 && static_cast<int64_t>(out.size()) > max_len) {
      out.resize(static_cast<size_t>(max_len));
    }
    if (static_cast<int64_t>(out.size()) < min_len) out.append(min_len - out.size(), 'x');
    return out;
  }

  json integer_value(const json& s) {
    int64_t lo = 0, hi = 0;
    if (!integer_bounds(range_of(s, 100), lo, hi)) return 0;
    const uint64_t span = static_cast<uint64_t>(hi - lo);
    return lo + static_cast<int64_t>(span == UINT64_MAX ? rng_.next_u64() : rng_.below(span + 1));
  }

  json number_value(const json& s) {
    const Range r = range_of(s, 100);
    if (r.lo == r.hi) return r.lo;
    // A grid point strictly inside the range (exclusive bounds hold), as a short decimal when the
    // bounds are integers.
    const double x = r.lo + (r.hi - r.lo) * static_cast<double>(1 + rng_.below(7)) / 8.0;
    return x;
  }

  json array_value(const json& s, int depth) {
    const int64_t min_items = s.value("minItems", int64_t{0});
    const int64_t max_items = s.value("maxItems", min_items + 3);
    int64_t n = min_items;
    if (depth < kMaxSchemaDepth && !frugal()) {
      n += static_cast<int64_t>(rng_.below(
          static_cast<uint64_t>(std::min<int64_t>(max_items, min_items + 3) - min_items + 1)));
    }
    const json any = json::object();
    const auto items = s.find("items");
    json out = json::array();
    for (int64_t i = 0; i < n; ++i)
      out.push_back(generate(items == s.end() ? any : *items, depth + 1));
    return out;
  }

  json object_value(const json& s, int depth) {
    json out = json::object();
    std::set<std::string> required;
    if (auto r = s.find("required"); r != s.end()) {
      for (const json& n : *r) required.insert(n.get<std::string>());
    }
    const json any = json::object();
    if (auto p = s.find("properties"); p != s.end()) {
      for (const auto& [name, sub] : p->items()) {
        // Optional properties: most of them near the root, none deep down.
        const bool include = required.count(name) ||
                             (depth < kMaxSchemaDepth / 2 && !frugal() && rng_.below(4) != 0);
        if (include) out[name] = generate(sub, depth + 1);
      }
    }
    for (const std::string& name : required) {
      if (!out.contains(name)) {
        const auto extra = s.find("additionalProperties");
        out[name] = generate(extra != s.end() && extra->is_object() ? *extra : any, depth + 1);
      }
    }
    return out;
  }

  // Past half the budget, only what the schema requires is generated.
  bool frugal() const { return values_ > kMaxGeneratedValues / 2; }

  const json& root_;
  Rng& rng_;
  int64_t values_ = 0;
};

}  // namespace

std::optional<std::string> check_schema(const json& schema) {
  return Checker(schema).check(schema, "", 0);
}

json generate_conforming(const json& schema, Rng& rng) {
  return Generator(schema, rng).generate(schema, 0);
}

std::optional<std::string> validate_against(const json& schema, const json& value) {
  return Validator(schema).validate(schema, value, "", 0);
}

}  // namespace llm
