// llmbench: replays a trace against an OpenAI-compatible server and reports client-side latency
// and throughput figures (docs/llmbench.md). `llmbench fake-server` runs the test server.
#include <sys/resource.h>

#include <csignal>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/build_info.h"
#include "core/flag_set.h"
#include "core/pending_file.h"
#include "loadgen/bench.h"
#include "loadgen/cli.h"
#include "loadgen/fake_server.h"
#include "sim/trace/trace_io.h"

namespace {

using llm::UsageError;
using llm::loadgen::BenchRun;
using llm::loadgen::CliOptions;
using llm::loadgen::FakeOpenAiServer;
using llm::loadgen::FakeServerOptions;
using llm::loadgen::parse_args;
using llm::loadgen::print_report;
using llm::loadgen::report_to_json;
using llm::loadgen::run_benchmark;
using llm::loadgen::usage;

constexpr const char* kFakeServerUsage =
    "usage: llmbench fake-server [--port P] [--chunks N] [--ttft-ms X] [--itl-ms Y] [--threads "
    "T]\n";

int run_fake_server(const std::vector<std::string>& args) {
  if (llm::wants_help(args)) {
    std::cout << kFakeServerUsage;
    return 0;
  }
  FakeServerOptions options;
  int64_t port = 8000;
  auto milliseconds = [](std::chrono::microseconds& out) {
    return [&out](const std::string& flag, const std::string& v) {
      out = std::chrono::microseconds(llm::parse_int_flag(flag, v, 0) * 1000);
    };
  };
  llm::FlagSet flags("llmbench fake-server");
  flags.integer({"--port"}, port, 0, 65535)
      .integer({"--chunks"}, options.chunks, 0)
      .value({"--ttft-ms"}, milliseconds(options.first_delay))
      .value({"--itl-ms"}, milliseconds(options.gap))
      .integer({"--threads"}, options.threads, 1);
  try {
    flags.parse(args);
  } catch (const UsageError& e) {
    return llm::report_usage_error(std::cerr, "llmbench fake-server", e);
  }
  FakeOpenAiServer server(options, static_cast<uint16_t>(port));
  std::cerr << "fake OpenAI server on http://127.0.0.1:" << server.port() << std::endl;
  server.wait();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!llm::wants_help(args) && llm::wants_version(args)) {
    std::cout << llm::version_line("llmbench") << '\n';
    return 0;
  }
  try {
    if (!args.empty() && args[0] == "fake-server")
      return run_fake_server(std::vector<std::string>(args.begin() + 1, args.end()));
    const CliOptions options = parse_args(args);
    if (options.help) {
      std::cout << usage();
      return 0;
    }
    llm::Trace trace;
    try {
      trace = llm::read_trace_file(options.trace_path);
    } catch (const std::exception& e) {
      std::cerr << "llmbench: " << e.what() << '\n';
      return 2;
    }
    if (trace.requests.empty()) {
      std::cerr << "llmbench: " << options.trace_path << ": the trace has no requests\n";
      return 2;
    }
    std::signal(SIGPIPE, SIG_IGN);
    // One connection per request in flight: allow as many descriptors as the system lets us.
    if (rlimit lim{}; getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
      lim.rlim_cur = lim.rlim_max;
      setrlimit(RLIMIT_NOFILE, &lim);
    }
    if (!options.quiet) {
      std::cerr << "llmbench: " << trace.requests.size() << " requests from " << trace.source
                << " -> http://" << options.config.host << ':' << options.config.port
                << options.config.base_path << options.config.endpoint << '\n';
    }
    // Created before the run, so that a --result-json that cannot be written fails at once.
    std::optional<llm::PendingFile> result_json;
    if (!options.result_json.empty()) result_json.emplace("--result-json", options.result_json);
    BenchRun run = run_benchmark(trace, options.config);
    if (!options.quiet) print_report(run.report, options.config.slos, std::cout);
    if (result_json) {
      nlohmann::json j = report_to_json(run.report, options.config.slos);
      j["model"] = run.model;
      j["base_url"] = "http://" + options.config.host + ":" + std::to_string(options.config.port) +
                      options.config.base_path;
      j["endpoint"] = options.config.endpoint;
      j["trace"] = trace.source;
      j["stream"] = options.config.stream;
      j["num_requests"] = run.results.size();
      result_json->stream() << j.dump(2) << '\n';
      result_json->commit();
    }
    return run.report.completed == 0 ? 1 : 0;
  } catch (const UsageError& e) {
    return llm::report_usage_error(std::cerr, "llmbench", e);
  } catch (const std::exception& e) {
    std::cerr << "llmbench: " << e.what() << '\n';
    return 1;
  }
}
