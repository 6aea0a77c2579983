// llmserve: the OpenAI-compatible server (vLLM drop-in) on the shared scheduler core. Parses the
// flags, serves until SIGTERM or SIGINT, then drains gracefully and exits 0. Bad flags exit 2.
#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "core/flag_set.h"
#include "server/app/server_app.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (llm::wants_help(args)) {
    std::cout << llm::server_usage();
    return 0;
  }
  llm::ServerOptions options;
  try {
    options = llm::parse_server_args(args, std::getenv("VLLM_API_KEY"));
  } catch (const llm::UsageError& e) {
    return llm::report_usage_error(std::cerr, "llmserve", e);
  }

  // Signals are taken by sigwait below; every thread started later inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  try {
    llm::LlmServer server(options);
    server.start();
    std::cerr << "llmserve: listening on " << options.host << ":" << server.port() << std::endl;
    for (size_t i = 1; i < server.num_ports(); ++i) {
      std::cerr << "llmserve: engine " << i << " listening on " << options.host << ":"
                << server.port(i) << std::endl;
    }
    int signal_number = 0;
    sigwait(&signals, &signal_number);
    std::cerr << "llmserve: " << (signal_number == SIGINT ? "SIGINT" : "SIGTERM")
              << " received, draining (up to " << options.shutdown_timeout_s << " s)" << std::endl;
    server.shutdown();
    std::cerr << "llmserve: stopped" << std::endl;
  } catch (const llm::UsageError& e) {
    return llm::report_usage_error(std::cerr, "llmserve", e);
  } catch (const std::exception& e) {
    std::cerr << "llmserve: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
