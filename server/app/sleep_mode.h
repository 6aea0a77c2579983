// Whether llmserve serves vLLM's sleep endpoints, and their state: as vLLM, the routes exist only
// in dev mode (env VLLM_SERVER_DEV_MODE, an integer, non-zero) and the engine must run with
// --enable-sleep-mode. server/api/sleep_api.h serves them.
// Thread-safety: pure functions.
#pragma once

#include <prometheus/family.h>
#include <prometheus/gauge.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "server/api/sleep_state.h"
#include "server/app/server_options.h"

namespace llm {

// vLLM's reading of VLLM_SERVER_DEV_MODE: bool(int(value)), unset being "0". A value that is not
// an integer is a UsageError naming the variable (vLLM fails at startup too).
bool server_dev_mode(const char* value);

// The sleep state when --enable-sleep-mode and dev mode are both on; null otherwise. It sets the
// vllm:engine_sleep_state series of each engine's family (`families[i]`, null: none).
std::unique_ptr<SleepState> make_sleep_state(
    const ServerOptions& options,
    const std::vector<prometheus::Family<prometheus::Gauge>*>& families,
    const std::string& model_name, const std::function<const char*(const char*)>& env);

}  // namespace llm
