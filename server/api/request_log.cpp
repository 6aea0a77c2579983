#include "server/api/request_log.h"

#include <cctype>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "server/api/json_text.h"
#include "server/api/openai_response.h"

namespace llm {

RequestLog::RequestLog(const std::string& path, bool log_content)
    : file_(std::fopen(path.c_str(), "a")), log_content_(log_content) {
  if (!file_) throw std::runtime_error("--request-log: cannot open " + path + " for writing");
}

RequestLog::~RequestLog() {
  if (file_) std::fclose(file_);
}

void RequestLog::write(const RequestLogEntry& e) {
  using json = nlohmann::ordered_json;
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[64];
  std::snprintf(stamp, sizeof(stamp), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms.count()));
  json j;
  j["time"] = stamp;
  j["request_id"] = e.request_id;
  j["traceparent"] = e.traceparent.empty() ? json(nullptr) : json(e.traceparent);
  j["endpoint"] = e.endpoint;
  j["model"] = e.model;
  j["prompt_tokens"] = e.prompt_tokens;
  j["completion_tokens"] = e.completion_tokens;
  j["finish_reasons"] = e.finish_reasons;
  j["metrics"] = json::parse(metrics_json(e.metrics));
  if (log_content_) {
    j["prompts"] = e.prompts;
    j["completions"] = e.completions;
  }
  const std::string line = dump_json(j) + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

bool valid_traceparent(const std::string& v) {
  if (v.size() != 55 || v[2] != '-' || v[35] != '-' || v[52] != '-') return false;
  auto hex = [&](size_t from, size_t len) {
    bool nonzero = false;
    for (size_t i = from; i < from + len; ++i) {
      const char c = v[i];
      if (!std::isxdigit(static_cast<unsigned char>(c)) ||
          std::isupper(static_cast<unsigned char>(c))) {
        return false;
      }
      nonzero = nonzero || c != '0';
    }
    return nonzero || len == 2;
  };
  return v.substr(0, 2) != "ff" && hex(0, 2) && hex(3, 32) && hex(36, 16) && hex(53, 2);
}

}  // namespace llm
