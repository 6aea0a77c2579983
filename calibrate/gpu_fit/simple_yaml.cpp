#include "calibrate/gpu_fit/simple_yaml.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace llm {
namespace {

using nlohmann::json;

struct YamlLine {
  int indent = 0;
  std::string content;
  int number = 0;  // 1-based line number in the file
};

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// The line without a trailing " # comment" (outside quotes).
std::string strip_comment(const std::string& s) {
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
      return s.substr(0, i);
    }
  }
  return s;
}

class YamlParser {
 public:
  YamlParser(const std::string& text, std::string file) : file_(std::move(file)) {
    std::istringstream in(text);
    std::string raw;
    int number = 0;
    while (std::getline(in, raw)) {
      ++number;
      const size_t first = raw.find_first_not_of(' ');
      if (first != std::string::npos && raw[first] == '\t') {
        fail(number, "tabs are not allowed for indentation");
      }
      const std::string content = trim(strip_comment(raw));
      if (content.empty() || content == "---") continue;
      if (content == "...") break;
      const int indent = static_cast<int>(raw.find_first_not_of(' '));
      lines_.push_back({indent, content, number});
    }
  }

  json parse() {
    if (lines_.empty()) return json::object();
    const std::string& first = lines_[0].content;
    if (lines_.size() == 1 && (first[0] == '{' || first[0] == '[')) {
      return scalar(first, lines_[0].number);  // a document that is one flow value (JSON)
    }
    size_t i = 0;
    json root = block(i, lines_[0].indent);
    if (i < lines_.size()) fail(lines_[i].number, "unexpected indentation");
    return root;
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw std::invalid_argument(file_ + ":" + std::to_string(line) + ": " + what);
  }

  static bool is_item(const std::string& c) { return c == "-" || c.rfind("- ", 0) == 0; }

  // The position of the ": " (or trailing ":") that ends a mapping key, or npos.
  static size_t key_colon(const std::string& c) {
    if (c.empty() || c[0] == '{' || c[0] == '[' || c[0] == '"' || c[0] == '\'') {
      if (!c.empty() && (c[0] == '"' || c[0] == '\'')) {
        const size_t close = c.find(c[0], 1);
        if (close != std::string::npos && close + 1 < c.size() && c[close + 1] == ':') {
          return close + 1;
        }
      }
      return std::string::npos;
    }
    for (size_t i = 0; i < c.size(); ++i) {
      if (c[i] == ':' && (i + 1 == c.size() || c[i + 1] == ' ')) return i;
    }
    return std::string::npos;
  }

  json block(size_t& i, int indent) {
    if (is_item(lines_[i].content)) return sequence(i, indent);
    return mapping(i, indent);
  }

  json sequence(size_t& i, int indent) {
    json out = json::array();
    while (i < lines_.size() && lines_[i].indent == indent && is_item(lines_[i].content)) {
      const std::string rest = trim(lines_[i].content.substr(1));
      const int number = lines_[i].number;
      if (rest.empty()) {
        ++i;
        if (i < lines_.size() && lines_[i].indent > indent) {
          out.push_back(block(i, lines_[i].indent));
        } else {
          out.push_back(nullptr);
        }
      } else if (is_item(rest) || key_colon(rest) != std::string::npos) {
        // "- - x" or "- key: value": the rest opens a block two columns in.
        lines_[i] = {indent + 2, rest, number};
        out.push_back(block(i, indent + 2));
      } else {
        out.push_back(scalar(rest, number));
        ++i;
      }
    }
    return out;
  }

  json mapping(size_t& i, int indent) {
    json out = json::object();
    while (i < lines_.size() && lines_[i].indent == indent) {
      const std::string& c = lines_[i].content;
      const int number = lines_[i].number;
      if (is_item(c)) fail(number, "a sequence item where a mapping key was expected");
      const size_t colon = key_colon(c);
      if (colon == std::string::npos) fail(number, "expected 'key: value'");
      std::string key = trim(c.substr(0, colon));
      if (key.size() >= 2 && (key[0] == '"' || key[0] == '\'')) key = key.substr(1, key.size() - 2);
      const std::string value = trim(c.substr(colon + 1));
      if (out.contains(key)) fail(number, "duplicate key '" + key + "'");
      ++i;
      if (!value.empty()) {
        if (value[0] == '&' || value[0] == '*' || value[0] == '!' || value[0] == '|' ||
            value[0] == '>') {
          fail(number, "anchors, tags and block scalars are not supported");
        }
        out[key] = scalar(value, number);
      } else if (i < lines_.size() && lines_[i].indent > indent) {
        out[key] = block(i, lines_[i].indent);
      } else if (i < lines_.size() && lines_[i].indent == indent && is_item(lines_[i].content)) {
        out[key] = sequence(i, indent);  // "key:\n- a": a sequence at the key's indentation
      } else {
        out[key] = nullptr;
      }
    }
    if (i < lines_.size() && lines_[i].indent > indent) {
      fail(lines_[i].number, "unexpected indentation");
    }
    return out;
  }

  json scalar(const std::string& s, int number) const {
    if (s.size() >= 2 && (s[0] == '"' || s[0] == '\'') && s.back() == s[0]) {
      return s.substr(1, s.size() - 2);
    }
    if (s[0] == '{' || s[0] == '[') {
      try {
        return json::parse(s);
      } catch (const json::exception&) {
        return s;  // a flow value with plain scalars: kept as its text
      }
    }
    if (s == "true" || s == "True") return true;
    if (s == "false" || s == "False") return false;
    if (s == "null" || s == "~") return nullptr;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end && *end == '\0' && !s.empty()) {
      const bool integral = s.find_first_of(".eE") == std::string::npos &&
                            s.find("inf") == std::string::npos &&
                            s.find("nan") == std::string::npos;
      if (integral) return static_cast<int64_t>(std::strtoll(s.c_str(), nullptr, 10));
      return v;
    }
    return s;
  }

  std::string file_;
  std::vector<YamlLine> lines_;
};

}  // namespace

nlohmann::json parse_simple_yaml(const std::string& text, const std::string& file) {
  return YamlParser(text, file).parse();
}

nlohmann::json read_simple_yaml(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_simple_yaml(text.str(), path);
}

}  // namespace llm
