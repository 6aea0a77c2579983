#include "core/nearest_name.h"

#include <algorithm>
#include <limits>

namespace llm {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: two back (for swaps), one back, current.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string nearest_name(std::string_view word, const std::vector<std::string>& candidates) {
  const size_t dashes = std::min(word.find_first_not_of('-'), word.size());
  const size_t allowed = std::max<size_t>(1, (word.size() - dashes) / 3);
  size_t best = std::numeric_limits<size_t>::max();
  std::string nearest;
  for (const std::string& candidate : candidates) {
    const size_t d = edit_distance(word, candidate);
    if (d <= allowed && d < best) {
      best = d;
      nearest = candidate;
    }
  }
  return nearest;
}

}  // namespace llm
