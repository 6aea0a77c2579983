// Small text helpers of the HTML report: XML escaping and compact number text for SVG
// coordinates and axis ticks.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace llm {

// `text` with &, <, >, " and ' escaped, safe inside XML/HTML text and attribute values.
std::string xml_escape(std::string_view text);

// A coordinate with one decimal ("12.5", "-3", "0"), as SVG points need no more.
std::string coordinate_text(double value);

// A tick or figure value with up to 4 significant digits ("0.25", "1200", "1.5e+06"), whole
// below a million ("30000", "12346").
std::string short_number_text(double value);

}  // namespace llm
