// A reader for the subset of YAML that Prometheus rule files use: block maps and sequences by
// indentation, plain, 'single' and "double" quoted scalars, literal (|, |-, |+) and folded (>)
// block scalars, plain scalars continued on more-indented lines, comments, and flow maps and
// sequences of scalars ({a: b, c: "d"}, [x, y], {}, []). No anchors, tags or multi-document files.
// Every node keeps its 1-based line so that callers can say FILE:LINE.
// Thread-safety: pure functions.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace llm {

struct YamlEntry;  // a map's key and value (defined below: a node holds entries of nodes)

struct YamlNode {
  enum class Kind { kScalar, kMap, kSequence };
  Kind kind = Kind::kScalar;
  int line = 0;
  std::string scalar;              // kScalar; empty for a missing value
  std::vector<YamlEntry> entries;  // kMap, in file order
  std::vector<YamlNode> items;     // kSequence

  bool is_map() const { return kind == Kind::kMap; }
  bool is_sequence() const { return kind == Kind::kSequence; }
  bool is_scalar() const { return kind == Kind::kScalar; }
};

// Not a std::pair: pair<string, YamlNode> inside YamlNode would need YamlNode complete (clang
// and libstdc++ refuse it); a struct declared ahead may be completed after.
struct YamlEntry {
  std::string key;
  YamlNode value;
};

// "LINE: what" in what(); line() for callers that prefix the file name.
class YamlError : public std::runtime_error {
 public:
  YamlError(int line, const std::string& what)
      : std::runtime_error(std::to_string(line) + ": " + what), line_(line) {}
  int line() const { return line_; }

 private:
  int line_;
};

// Parses a whole document. Throws YamlError. An empty document is an empty map.
YamlNode parse_yaml_subset(const std::string& text);

}  // namespace llm
