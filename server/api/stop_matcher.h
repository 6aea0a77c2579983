// Stop strings applied to a sequence's detokenized text as it grows, across token boundaries:
// text that could still be the start of a stop string is held back; when a stop string appears the
// text is cut just before it (the stop string itself is not returned, as vLLM's default), or
// just after it with include_stop (vLLM's include_stop_str_in_output). Text fed
// with may_end_a_stop false (a request's first min_tokens tokens, as vLLM's detokenizer skips
// them) can start a stop string but not end one.
// Thread-safety: none; one per choice, used on its session's strand.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llm {

class StopMatcher {
 public:
  explicit StopMatcher(std::vector<std::string> stops, bool include_stop = false);

  // Appends `piece`; returns the text that is now safe to send. After a match, matched() is true,
  // the returned text ends before the stop string and later calls return "".
  std::string feed(std::string_view piece, bool may_end_a_stop = true);
  // The text still held back (the sequence ended without a match).
  std::string flush();

  bool matched() const { return matched_ >= 0; }
  const std::string& matched_stop() const { return stops_[static_cast<size_t>(matched_)]; }

 private:
  std::vector<std::string> stops_;
  bool include_stop_ = false;
  size_t hold_ = 0;  // longest stop string - 1
  std::string pending_;
  size_t guarded_ = 0;  // pending_'s first bytes, in which no stop string may end
  int matched_ = -1;
};

}  // namespace llm
