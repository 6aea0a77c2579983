// A one-line progress bar on stderr for long command-line runs. It appears only when stderr is a
// terminal and the run has lasted more than a second, so scripted and short runs print nothing.
// It is the one place of llmsim that reads a real clock, for display only: it never changes an
// output file or figure.
// Thread-safety: none; one per run.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace llm {

class ProgressBar {
 public:
  ProgressBar(std::string label, bool enabled);
  ~ProgressBar();
  void update(int64_t done, int64_t total);  // cheap; redraws at most ten times a second
  void finish();                             // clears the line if it was drawn

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  int64_t calls_ = 0;
};

}  // namespace llm
