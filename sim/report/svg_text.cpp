#include "sim/report/svg_text.h"

#include <cmath>
#include <cstdio>

namespace llm {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters other than tab and newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string coordinate_text(double value) {
  char buf[32];
  const double rounded = std::round(value * 10) / 10;
  if (rounded == std::floor(rounded)) {
    std::snprintf(buf, sizeof buf, "%.0f", rounded == 0 ? 0.0 : rounded);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f", rounded);
  }
  return buf;
}

std::string short_number_text(double value) {
  if (!std::isfinite(value)) return "n/a";
  if (std::abs(value) < 1e-12) return "0";
  char buf[32];
  // Up to a million, whole numbers as such ("30000", not "3e+04"); beyond, 4 significant digits.
  if (std::abs(value) >= 1e4 && std::abs(value) < 1e6) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", value);
  }
  return buf;
}

}  // namespace llm
