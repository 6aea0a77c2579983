#include "server/api/sleep_api.h"

#include <charconv>
#include <mutex>

#include "server/api/api_error.h"

namespace llm {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && hex_digit(s[i + 1]) >= 0 &&
               hex_digit(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Sleeps and wake-ups one at a time, so that the engines' pause follows the last of them.
std::mutex& transitions() {
  static std::mutex m;
  return m;
}

HttpResponse empty_ok() {
  HttpResponse r;
  r.content_type.clear();
  return r;
}

}  // namespace

std::vector<std::string> query_values(std::string_view query, std::string_view key) {
  std::vector<std::string> values;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const size_t eq = pair.find('=');
    if (decode(pair.substr(0, eq)) != key) continue;
    values.push_back(eq == std::string_view::npos ? std::string() : decode(pair.substr(eq + 1)));
  }
  return values;
}

HttpResponse sleep_response(ApiContext& context, std::string_view query) {
  int level = 1;
  if (const std::vector<std::string> v = query_values(query, "level"); !v.empty()) {
    const std::string& s = v.back();
    const auto r = std::from_chars(s.data(), s.data() + s.size(), level);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size() || level < SleepState::kMinLevel ||
        level > SleepState::kMaxLevel) {
      throw_bad_request("level", "'level' must be 1 or 2, got '" + s + "'");
    }
  }
  std::string mode = "abort";
  if (const std::vector<std::string> v = query_values(query, "mode"); !v.empty()) mode = v.back();
  if (mode != "abort" && mode != "wait" && mode != "keep") {
    throw_bad_request("mode", "'mode' must be \"abort\", \"wait\" or \"keep\", got '" + mode + "'");
  }
  {
    std::lock_guard<std::mutex> lock(transitions());
    context.sleep->sleep(level);
    // vLLM's EngineCore.sleep pauses the scheduler (PAUSED_NEW): new requests are queued, not run.
    context.engines.set_admission_paused(true);
  }
  // vLLM's default: what runs is aborted (its clients see finish_reason "abort").
  if (mode == "abort") context.engines.abort_all();
  return empty_ok();
}

HttpResponse wake_up_response(ApiContext& context, std::string_view query) {
  std::lock_guard<std::mutex> lock(transitions());
  context.sleep->wake_up(query_values(query, "tags"));
  // vLLM resumes the scheduler only once every part is awake: what waited is served now.
  if (!context.sleep->sleeping()) context.engines.set_admission_paused(false);
  return empty_ok();
}

HttpResponse is_sleeping_response(const ApiContext& context) {
  HttpResponse r;
  r.body = context.sleep->sleeping() ? R"({"is_sleeping":true})" : R"({"is_sleeping":false})";
  return r;
}

}  // namespace llm
