#include "calibrate/prometheus_text.h"

#include <cstdlib>
#include <sstream>

#include "core/rng.h"

namespace llm {
namespace {

// Splits a sample line into its name, its label text (between the braces) and its value text.
bool split_sample(const std::string& line, std::string& name, std::string& labels,
                  std::string& value) {
  if (line.empty() || line[0] == '#') return false;
  const size_t brace = line.find('{');
  const size_t space = line.find(' ');
  if (brace != std::string::npos && brace < space) {
    const size_t close = line.rfind('}');
    if (close == std::string::npos || close < brace) return false;
    name = line.substr(0, brace);
    labels = line.substr(brace + 1, close - brace - 1);
    value = line.substr(close + 1);
  } else {
    if (space == std::string::npos) return false;
    name = line.substr(0, space);
    labels.clear();
    value = line.substr(space);
  }
  const size_t start = value.find_first_not_of(' ');
  if (start == std::string::npos) return false;
  value = value.substr(start, value.find(' ', start) - start);  // drops a timestamp
  return true;
}

}  // namespace

std::optional<double> metric_total(const std::string& exposition, const std::string& name) {
  std::istringstream in(exposition);
  std::optional<double> total;
  std::string line, n, labels, value;
  while (std::getline(in, line)) {
    if (!split_sample(line, n, labels, value) || n != name) continue;
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str()) continue;
    total = total.value_or(0) + v;
  }
  return total;
}

std::map<std::string, std::string> metric_labels(const std::string& exposition,
                                                 const std::string& name) {
  std::istringstream in(exposition);
  std::string line, n, labels, value;
  while (std::getline(in, line)) {
    if (!split_sample(line, n, labels, value) || n != name) continue;
    std::map<std::string, std::string> out;
    size_t pos = 0;
    while (pos < labels.size()) {
      const size_t eq = labels.find('=', pos);
      if (eq == std::string::npos || eq + 1 >= labels.size() || labels[eq + 1] != '"') break;
      std::string text;
      size_t i = eq + 2;
      for (; i < labels.size() && labels[i] != '"'; ++i) {
        if (labels[i] == '\\' && i + 1 < labels.size()) ++i;
        text += labels[i];
      }
      out[labels.substr(pos, eq - pos)] = text;
      pos = labels.find_first_not_of(", ", i + 1);
    }
    return out;
  }
  return {};
}

uint64_t fresh_prompt_salt(const std::string& exposition, uint64_t run) {
  const double seen = metric_total(exposition, "vllm:prompt_tokens_total").value_or(0);
  const uint64_t tokens = seen > 0 && seen < 1.8e19 ? static_cast<uint64_t>(seen) : 0;
  return hash_combine(tokens + 1, run + 1) | 1;  // never 0, which means unsalted
}

}  // namespace llm
