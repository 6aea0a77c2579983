#include "sim/alerts/recording_inline.h"

#include <stdexcept>
#include <vector>

#include "sim/alerts/promql_tokens.h"

namespace llm {
namespace {

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
  const std::vector<PromToken> tokens = promql_tokens(expr);
  std::string out;
  size_t copied = 0;  // expr[0, copied) is in out (or replaced)
  for (size_t k = 0; k < tokens.size(); ++k) {
    const PromToken& t = tokens[k];
    if (t.kind != PromToken::Kind::kIdentifier) continue;
    const std::string name = expr.substr(t.begin, t.end - t.begin);
    const auto it = records.find(name);
    if (it == records.end()) continue;
    if (k + 1 < tokens.size() && tokens[k + 1].kind == PromToken::Kind::kPunct &&
        (expr[tokens[k + 1].begin] == '{' || expr[tokens[k + 1].begin] == '[')) {
      throw std::invalid_argument(
          "recorded series " + name + " is used with " +
          (expr[tokens[k + 1].begin] == '{' ? "label matchers" : "a range") +
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
      inner = "label_replace(" + inner + ", " + promql_string(label) + ", " + promql_string(value) +
              ", \"\", \"\")";
    }
    out += expr.substr(copied, t.begin - copied);
    out += inner;
    copied = t.end;
  }
  return out + expr.substr(copied);
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
