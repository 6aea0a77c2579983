// An llmserve started by `llmsim calibrate --backend cpu` to measure its API server
// (calibrate/api_probe.h): the binary beside llmsim (or --llmserve PATH), on a free loopback
// port, with the engine arguments calibrate measured; stopped (SIGTERM, then SIGKILL after a few
// seconds) when this object goes.
// Thread-safety: one thread owns a child.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace llm {

class LlmserveChild {
 public:
  // Starts `binary` with `args` plus --host 127.0.0.1 --port 0 and waits (up to timeout_s) for
  // its "listening on" line. Throws std::runtime_error with its last output when it exits or
  // does not listen in time.
  LlmserveChild(const std::string& binary, const std::vector<std::string>& args,
                double timeout_s = 120);
  ~LlmserveChild();
  LlmserveChild(const LlmserveChild&) = delete;
  LlmserveChild& operator=(const LlmserveChild&) = delete;

  uint16_t port() const { return port_; }

 private:
  void stop();

  pid_t pid_ = -1;
  std::string log_path_;  // its stderr
  uint16_t port_ = 0;
};

// The llmserve beside the running executable (/proc/self/exe's folder), or "" when there is none.
std::string llmserve_beside_self();

}  // namespace llm
