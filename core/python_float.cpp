#include "core/python_float.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace llm {

void append_python_float(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
    return;
  }
  if (value == 0) {
    out += std::signbit(value) ? "-0.0" : "0.0";
    return;
  }
  // Shortest round-trip digits and the decimal exponent, from scientific notation.
  char sci[40];
  auto res = std::to_chars(sci, sci + sizeof sci, value, std::chars_format::scientific);
  *res.ptr = '\0';
  const char* p = sci;
  const bool negative = *p == '-';
  if (negative) ++p;
  char digits[24];
  int num_digits = 0;
  for (; *p != 'e'; ++p) {
    if (*p != '.') digits[num_digits++] = *p;
  }
  const int exponent = std::atoi(p + 1);  // value = 0.d1d2d3... x 10^(exponent + 1)

  if (negative) out += '-';
  if (!negative && exponent >= 6) {
    // Go style, as prometheus_client rewrites Python's repr for values >= 1e6: d.ddde+XX.
    out += digits[0];
    int last = num_digits;
    while (last > 1 && digits[last - 1] == '0') --last;
    if (last > 1) {
      out += '.';
      out.append(digits + 1, static_cast<size_t>(last - 1));
    }
    char e[16];
    std::snprintf(e, sizeof e, "e+%02d", exponent);
    out += e;
    return;
  }
  if (exponent < -4 || exponent >= 16) {
    // Python repr's scientific form: d[.ddd]e[+-]XX.
    out += digits[0];
    if (num_digits > 1) {
      out += '.';
      out.append(digits + 1, static_cast<size_t>(num_digits - 1));
    }
    char e[16];
    std::snprintf(e, sizeof e, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += e;
    return;
  }
  if (exponent < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exponent - 1), '0');
    out.append(digits, static_cast<size_t>(num_digits));
    return;
  }
  // exponent + 1 digits before the point.
  const int int_digits = exponent + 1;
  if (num_digits <= int_digits) {
    out.append(digits, static_cast<size_t>(num_digits));
    out.append(static_cast<size_t>(int_digits - num_digits), '0');
    out += ".0";
  } else {
    out.append(digits, static_cast<size_t>(int_digits));
    out += '.';
    out.append(digits + int_digits, static_cast<size_t>(num_digits - int_digits));
  }
}

std::string python_float(double value) {
  std::string s;
  append_python_float(s, value);
  return s;
}

}  // namespace llm
