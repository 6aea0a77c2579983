#include "server/app/sleep_mode.h"

#include <charconv>
#include <cstring>

#include "core/flag_values.h"

namespace llm {

bool server_dev_mode(const char* value) {
  if (!value) return false;
  const char* end = value + std::strlen(value);
  long long v = 0;
  const auto r = std::from_chars(value, end, v);
  if (r.ec != std::errc() || r.ptr != end) {
    throw UsageError(std::string("VLLM_SERVER_DEV_MODE must be an integer (0 or 1), got '") +
                     value + "'");
  }
  return v != 0;
}

std::unique_ptr<SleepState> make_sleep_state(
    const ServerOptions& options,
    const std::vector<prometheus::Family<prometheus::Gauge>*>& families,
    const std::string& model_name, const std::function<const char*(const char*)>& env) {
  if (!options.enable_sleep_mode || !server_dev_mode(env("VLLM_SERVER_DEV_MODE"))) return nullptr;
  return std::make_unique<SleepState>(families, model_name);
}

}  // namespace llm
