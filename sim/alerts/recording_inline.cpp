#include "sim/alerts/recording_inline.h"

#include <stdexcept>
#include <vector>

namespace llm {
namespace {

bool identifier_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool identifier_char(char c) { return identifier_start(c) || (c >= '0' && c <= '9'); }

// Escapes a label value for a PromQL double-quoted string.
std::string promql_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string expand(const std::string& expr, const std::map<std::string, PromRule>& records,
                   std::vector<std::string>& stack) {
  std::string out;
  size_t i = 0;
  while (i < expr.size()) {
    const char c = expr[i];
    if (c == '"' || c == '\'' || c == '`') {  // a string: copied as it is
      size_t j = i + 1;
      while (j < expr.size() && expr[j] != c) j += (expr[j] == '\\' && c != '`') ? 2 : 1;
      j = std::min(j + 1, expr.size());
      out += expr.substr(i, j - i);
      i = j;
    } else if (c >= '0' && c <= '9') {  // a number or a duration such as 5m
      size_t j = i;
      while (j < expr.size() && (identifier_char(expr[j]) || expr[j] == '.')) ++j;
      out += expr.substr(i, j - i);
      i = j;
    } else if (identifier_start(c)) {
      size_t j = i;
      while (j < expr.size() && identifier_char(expr[j])) ++j;
      const std::string name = expr.substr(i, j - i);
      const auto it = records.find(name);
      if (it == records.end()) {
        out += name;
        i = j;
        continue;
      }
      size_t k = j;
      while (k < expr.size() && (expr[k] == ' ' || expr[k] == '\n' || expr[k] == '\t')) ++k;
      if (k < expr.size() && (expr[k] == '{' || expr[k] == '[')) {
        throw std::invalid_argument(
            "recorded series " + name + " is used with " +
            (expr[k] == '{' ? "label matchers" : "a range") +
            ", which llmsim alerts cannot inline; use the bare name or the recording rule's "
            "expression");
      }
      for (const std::string& s : stack) {
        if (s == name) throw std::invalid_argument("recording rules form a cycle through " + name);
      }
      stack.push_back(name);
      std::string inner = "(" + expand(it->second.expr, records, stack) + ")";
      stack.pop_back();
      for (const auto& [label, value] : it->second.labels) {
        inner = "label_replace(" + inner + ", " + promql_string(label) + ", " +
                promql_string(value) + ", \"\", \"\")";
      }
      out += inner;
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

}  // namespace

std::map<std::string, PromRule> recording_rules(const PromRuleFile& file) {
  std::map<std::string, PromRule> records;
  for (const PromRuleGroup& g : file.groups) {
    for (const PromRule& r : g.rules) {
      if (r.record.empty()) continue;
      const auto [it, added] = records.emplace(r.record, r);
      if (!added && (it->second.expr != r.expr || it->second.labels != r.labels)) {
        throw std::invalid_argument(
            "series " + r.record + " is recorded by two different rules (lines " +
            std::to_string(it->second.line) + " and " + std::to_string(r.line) + ")");
      }
    }
  }
  return records;
}

std::string inline_recording_rules(const std::string& expr,
                                   const std::map<std::string, PromRule>& records) {
  std::vector<std::string> stack;
  return expand(expr, records, stack);
}

}  // namespace llm
