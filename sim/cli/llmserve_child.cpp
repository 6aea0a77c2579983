#include "sim/cli/llmserve_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace llm {
namespace fs = std::filesystem;

LlmserveChild::LlmserveChild(const std::string& binary, const std::vector<std::string>& args,
                             double timeout_s) {
  // Its stderr goes to a file (a pipe nobody drains could fill and stall it).
  char name[] = "/tmp/llmsim-calibrate-llmserve-XXXXXX";
  const int log_fd = mkstemp(name);
  if (log_fd < 0) throw std::runtime_error("llmserve: cannot create its log file");
  log_path_ = name;
  std::vector<std::string> argv_text = {binary};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  for (const char* extra : {"--host", "127.0.0.1", "--port", "0"}) argv_text.push_back(extra);
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) {
    close(log_fd);
    throw std::runtime_error("llmserve: fork failed");
  }
  if (pid_ == 0) {
    // A calibrate that dies (killed, or a timeout) takes its server with it.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    dup2(log_fd, STDERR_FILENO);
    const int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) dup2(null_fd, STDOUT_FILENO);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(log_fd);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1e3));
  std::string seen;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(log_path_);
    std::stringstream text;
    text << in.rdbuf();
    seen = text.str();
    const size_t at = seen.find("listening on ");
    const size_t eol = at == std::string::npos ? at : seen.find('\n', at);
    if (eol != std::string::npos) {
      const std::string where = seen.substr(at, eol - at);
      port_ = static_cast<uint16_t>(std::atoi(where.substr(where.rfind(':') + 1).c_str()));
      if (port_ > 0) return;
    }
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string tail = seen.size() > 600 ? seen.substr(seen.size() - 600) : seen;
  stop();
  throw std::runtime_error(binary + " did not start listening: " + tail);
}

LlmserveChild::~LlmserveChild() { stop(); }

void LlmserveChild::stop() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100 && pid_ > 0; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) pid_ = -1;
      if (pid_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  if (!log_path_.empty()) {
    std::error_code ec;
    fs::remove(log_path_, ec);
    log_path_.clear();
  }
}

std::string llmserve_beside_self() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const fs::path candidate = self.parent_path() / "llmserve";
  return fs::is_regular_file(candidate, ec) ? candidate.string() : "";
}

}  // namespace llm
