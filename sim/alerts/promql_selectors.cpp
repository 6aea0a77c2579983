#include "sim/alerts/promql_selectors.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "sim/alerts/promql_tokens.h"
#include "sim/alerts/rule_file.h"

namespace llm {
namespace {

using Kind = PromToken::Kind;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Keywords followed by a list of label names in parentheses (which may be absent for the
// group modifiers).
const std::set<std::string> kLabelListKeywords = {"by",       "without",    "on",
                                                  "ignoring", "group_left", "group_right"};
// Binary operators, modifiers and number literals spelled as identifiers.
const std::set<std::string> kWordsNotSelectors = {"and",  "or",  "unless", "atan2",
                                                  "bool", "inf", "nan"};
const std::set<std::string> kAggregations = {
    "sum",  "avg",     "count",    "min",          "max",   "stddev", "stdvar",
    "topk", "bottomk", "quantile", "count_values", "group", "limitk", "limit_ratio"};

class SelectorReader {
 public:
  explicit SelectorReader(const std::string& expr) : expr_(expr), tokens_(promql_tokens(expr)) {}

  std::vector<PromSelector> read() {
    for (i_ = 0; i_ < tokens_.size(); ++i_) step();
    std::vector<PromSelector> unique;
    for (const PromSelector& s : found_) {
      auto it = std::find_if(unique.begin(), unique.end(),
                             [&s](const PromSelector& u) { return u.text == s.text; });
      if (it == unique.end()) {
        unique.push_back(s);
      } else {
        it->window_ns = std::max(it->window_ns, s.window_ns);
      }
    }
    return unique;
  }

 private:
  std::string_view text(const PromToken& t) const {
    return std::string_view(expr_).substr(t.begin, t.end - t.begin);
  }
  bool punct_at(size_t k, char c) const {
    return k < tokens_.size() && tokens_[k].kind == Kind::kPunct && expr_[tokens_[k].begin] == c;
  }
  // The index of the token that closes the bracket opened at `open` (or the last token).
  size_t closing(size_t open, char open_c, char close_c) const {
    int depth = 0;
    for (size_t k = open; k < tokens_.size(); ++k) {
      if (punct_at(k, open_c)) ++depth;
      if (punct_at(k, close_c) && --depth == 0) return k;
    }
    return tokens_.size() - 1;
  }

  void step() {
    const PromToken& t = tokens_[i_];
    switch (t.kind) {
      case Kind::kString:
      case Kind::kNumber:
        after_ = After::kOther;
        return;
      case Kind::kIdentifier:
        identifier();
        return;
      case Kind::kPunct:
        punct(expr_[t.begin]);
        return;
    }
  }

  void identifier() {
    const std::string word = lower(text(tokens_[i_]));
    after_ = After::kOther;
    if (kLabelListKeywords.count(word)) {
      if (punct_at(i_ + 1, '(')) i_ = closing(i_ + 1, '(', ')');
      return;
    }
    if (kWordsNotSelectors.count(word)) return;
    if (word == "offset") {
      if (punct_at(i_ + 1, '-')) ++i_;
      ++i_;  // the duration
      return;
    }
    if (punct_at(i_ + 1, '(')) return;  // a function or aggregation: '(' comes next
    if (kAggregations.count(word) && i_ + 1 < tokens_.size() &&
        tokens_[i_ + 1].kind == Kind::kIdentifier) {
      const std::string next = lower(text(tokens_[i_ + 1]));
      if (next == "by" || next == "without") return;
    }
    // A selector: the name, with its matchers when a '{' follows.
    const size_t begin = tokens_[i_].begin;
    if (punct_at(i_ + 1, '{')) i_ = closing(i_ + 1, '{', '}');
    add_selector(begin, tokens_[i_].end);
  }

  void punct(char c) {
    switch (c) {
      case '{': {  // a selector with matchers only
        const size_t begin = tokens_[i_].begin;
        i_ = closing(i_, '{', '}');
        add_selector(begin, tokens_[i_].end);
        return;
      }
      case '(':
        groups_.push_back(found_.size());
        after_ = After::kOther;
        return;
      case ')':
        group_start_ = groups_.empty() ? 0 : groups_.back();
        if (!groups_.empty()) groups_.pop_back();
        after_ = After::kGroup;
        return;
      case '[':
        range();
        return;
      case '@':
        if (punct_at(i_ + 1, '-') || punct_at(i_ + 1, '+')) ++i_;
        if (i_ + 1 < tokens_.size() && tokens_[i_ + 1].kind == Kind::kNumber) ++i_;
        after_ = After::kOther;
        return;
      default:
        after_ = After::kOther;
        return;
    }
  }

  // A range ([5m]) or a subquery's ([1h:1m]): its length goes to the selector before it, or to
  // every selector of the parenthesized expression or function call before it.
  void range() {
    const size_t open = i_;
    i_ = closing(i_, '[', ']');
    const size_t from = tokens_[open].end;
    const size_t to = i_ > open ? tokens_[i_].begin : from;
    std::string inside(expr_.substr(from, to - from));
    inside.erase(
        std::remove_if(inside.begin(), inside.end(),
                       [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); }),
        inside.end());
    const int64_t length = parse_prometheus_duration_ns(inside.substr(0, inside.find(':')));
    if (length > 0) {
      if (after_ == After::kSelector && !found_.empty()) {
        found_.back().window_ns += length;
      } else if (after_ == After::kGroup) {
        for (size_t k = group_start_; k < found_.size(); ++k) found_[k].window_ns += length;
      }
    }
    // A range ends a selector's expression; a subquery's result can take another subquery.
    after_ = after_ == After::kSelector ? After::kOther : after_;
  }

  void add_selector(size_t begin, size_t end) {
    found_.push_back({expr_.substr(begin, end - begin), 0});
    after_ = After::kSelector;
  }

  enum class After { kOther, kSelector, kGroup };
  const std::string& expr_;
  std::vector<PromToken> tokens_;
  size_t i_ = 0;
  std::vector<PromSelector> found_;
  std::vector<size_t> groups_;  // per open parenthesis: the number of selectors before it
  size_t group_start_ = 0;      // of the parenthesis closed last
  After after_ = After::kOther;
};

}  // namespace

std::vector<PromSelector> promql_selectors(const std::string& expr) {
  return SelectorReader(expr).read();
}

}  // namespace llm
