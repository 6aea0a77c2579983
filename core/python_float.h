// Formats numbers exactly as Python's prometheus_client prints them (its floatToGoString): the
// shortest round-trip repr of the double ("1.0", "0.25", "2560.0", "1e-05"), "+Inf", "-Inf",
// "NaN", and, for positive values of one million and above, Go-style exponents ("1e+06",
// "1.5e+07"). PromQL compares label strings, so `le` must match byte for byte.
// Thread-safety: pure function.
#pragma once

#include <string>

namespace llm {

std::string python_float(double value);
// Appends the same text to out (no allocation when out has capacity).
void append_python_float(std::string& out, double value);

}  // namespace llm
