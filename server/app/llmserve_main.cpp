// llmserve: the OpenAI-compatible server (vLLM drop-in) on the shared scheduler core. Parses the
// flags, serves until SIGTERM or SIGINT, then drains gracefully and exits 0. Bad flags exit 2.
// Everything it logs goes to stderr ("llmserve: listening on HOST:PORT" once it accepts
// connections, vLLM's stats lines, the shutdown); stdout carries only --help and --version.
// Scripts that start it with --port 0 read the port from --port-file rather than from stderr.
#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "core/build_info.h"
#include "core/flag_set.h"
#include "core/pending_file.h"
#include "server/app/server_app.h"
#include "server/app/stats_logger.h"

namespace {

// --port-file: the port, or one line per port with --data-parallel-separate-ports; renamed into
// place once the server listens (created before it starts, so that a bad path fails at once).
void write_port_file(const llm::LlmServer& server, llm::PendingFile& file) {
  for (size_t i = 0; i < server.num_ports(); ++i) file.stream() << server.port(i) << "\n";
  file.commit();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (llm::wants_help(args)) {
    std::cout << llm::server_usage();
    return 0;
  }
  if (llm::wants_version(args)) {
    std::cout << llm::version_line("llmserve") << "\n";
    return 0;
  }
  llm::ServerOptions options;
  try {
    options = llm::parse_server_args(args, std::getenv("VLLM_API_KEY"),
                                     std::getenv("VLLM_LOG_STATS_INTERVAL"));
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
    std::unique_ptr<llm::PendingFile> port_file;
    if (!options.port_file.empty()) {
      port_file = std::make_unique<llm::PendingFile>("--port-file", options.port_file);
    }
    llm::LlmServer server(options);
    server.start();
    std::cerr << "llmserve: listening on " << options.host << ":" << server.port() << std::endl;
    for (size_t i = 1; i < server.num_ports(); ++i) {
      std::cerr << "llmserve: engine " << i << " listening on " << options.host << ":"
                << server.port(i) << std::endl;
    }
    if (port_file) write_port_file(server, *port_file);
    std::unique_ptr<llm::PeriodicStatsLogger> stats;
    if (!options.disable_log_stats) {
      stats = std::make_unique<llm::PeriodicStatsLogger>(
          options.log_stats_interval_s, [&server] { return server.collect_engine_metrics(); },
          std::cerr, "llmserve: ");
      stats->start();
    }
    int signal_number = 0;
    sigwait(&signals, &signal_number);
    std::cerr << "llmserve: " << (signal_number == SIGINT ? "SIGINT" : "SIGTERM")
              << " received, draining (up to " << options.shutdown_timeout_s << " s)" << std::endl;
    if (stats) stats->stop();
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
