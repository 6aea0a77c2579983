// llmbench: replays a trace against an OpenAI-compatible server and reports client-side latency
// and throughput figures (docs/llmbench.md). `llmbench fake-server` runs the test server.
#include <charconv>
#include <csignal>
#include <sys/resource.h>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loadgen/bench.h"
#include "loadgen/cli.h"
#include "loadgen/fake_server.h"
#include "sim/trace_io.h"

namespace {

using namespace llm::loadgen;

int64_t int_flag(const std::string& flag, const std::string& v) {
  int64_t out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || out < 0)
    throw UsageError(flag + ": expected an integer >= 0, got '" + v + "'");
  return out;
}

int run_fake_server(const std::vector<std::string>& args) {
  FakeServerOptions options;
  int64_t port = 8000;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& f = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UsageError(f + ": missing value");
      return args[++i];
    };
    if (f == "--port") {
      port = int_flag(f, value());
      if (port > 65535) throw UsageError("--port: out of range");
    } else if (f == "--chunks") {
      options.chunks = int_flag(f, value());
    } else if (f == "--ttft-ms") {
      options.first_delay = std::chrono::microseconds(int_flag(f, value()) * 1000);
    } else if (f == "--itl-ms") {
      options.gap = std::chrono::microseconds(int_flag(f, value()) * 1000);
    } else if (f == "--threads") {
      options.threads = static_cast<int>(std::max<int64_t>(1, int_flag(f, value())));
    } else {
      throw UsageError("unknown flag " + f + " for fake-server");
    }
  }
  FakeOpenAiServer server(options, static_cast<uint16_t>(port));
  std::cerr << "fake OpenAI server on http://127.0.0.1:" << server.port() << std::endl;
  server.wait();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
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
    BenchRun run = run_benchmark(trace, options.config);
    if (!options.quiet) print_report(run.report, options.config.slos, std::cout);
    if (!options.result_json.empty()) {
      nlohmann::json j = report_to_json(run.report, options.config.slos);
      j["model"] = run.model;
      j["base_url"] = "http://" + options.config.host + ":" + std::to_string(options.config.port) +
                      options.config.base_path;
      j["endpoint"] = options.config.endpoint;
      j["trace"] = trace.source;
      j["stream"] = options.config.stream;
      j["num_requests"] = run.results.size();
      const std::string tmp = options.result_json + ".partial";
      {
        std::ofstream out(tmp);
        out << j.dump(2) << '\n';
        if (!out) {
          std::cerr << "llmbench: --result-json: cannot write " << tmp << '\n';
          return 1;
        }
      }
      if (std::rename(tmp.c_str(), options.result_json.c_str()) != 0) {
        std::cerr << "llmbench: --result-json: cannot rename " << tmp << '\n';
        return 1;
      }
    }
    return run.report.completed == 0 ? 1 : 0;
  } catch (const UsageError& e) {
    std::cerr << "llmbench: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "llmbench: " << e.what() << '\n';
    return 1;
  }
}
