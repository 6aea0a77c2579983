#include "sim/alerts/promql_tokens.h"

#include <algorithm>

namespace llm {
namespace {

bool identifier_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool digit(char c) { return c >= '0' && c <= '9'; }
bool identifier_char(char c) { return identifier_start(c) || digit(c); }
bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

std::vector<PromToken> promql_tokens(std::string_view expr) {
  std::vector<PromToken> tokens;
  size_t i = 0;
  const size_t n = expr.size();
  while (i < n) {
    const char c = expr[i];
    if (space(c)) {
      ++i;
    } else if (c == '#') {
      while (i < n && expr[i] != '\n') ++i;
    } else if (c == '"' || c == '\'' || c == '`') {
      size_t j = i + 1;
      while (j < n && expr[j] != c) j += (expr[j] == '\\' && c != '`') ? 2 : 1;
      j = std::min(j + 1, n);
      tokens.push_back({PromToken::Kind::kString, i, j});
      i = j;
    } else if (digit(c) || (c == '.' && i + 1 < n && digit(expr[i + 1]))) {
      // Digits, letters (units, exponents, hex) and dots; a sign only right after a decimal
      // number's exponent (1e-3).
      const bool hex = c == '0' && i + 1 < n && (expr[i + 1] == 'x' || expr[i + 1] == 'X');
      size_t j = i;
      while (j < n) {
        const bool exponent_sign = (expr[j] == '+' || expr[j] == '-') && !hex &&
                                   (expr[j - 1] == 'e' || expr[j - 1] == 'E');
        if (!identifier_char(expr[j]) && expr[j] != '.' && !exponent_sign) break;
        ++j;
      }
      tokens.push_back({PromToken::Kind::kNumber, i, j});
      i = j;
    } else if (identifier_start(c)) {
      size_t j = i;
      while (j < n && identifier_char(expr[j])) ++j;
      tokens.push_back({PromToken::Kind::kIdentifier, i, j});
      i = j;
    } else {
      tokens.push_back({PromToken::Kind::kPunct, i, i + 1});
      ++i;
    }
  }
  return tokens;
}

}  // namespace llm
