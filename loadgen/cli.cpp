#include "loadgen/cli.h"

#include <cmath>
#include <cstdlib>
#include <optional>

#include "core/flag_set.h"

namespace llm::loadgen {
void parse_base_url(const std::string& url, BenchConfig& config) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) {
    throw UsageError("--base-url: expected http://HOST[:PORT][/PATH], got '" + url + "'" +
                     (url.rfind("https://", 0) == 0 ? " (https is not supported)" : ""));
  }
  std::string rest = url.substr(scheme.size());
  const size_t slash = rest.find('/');
  std::string hostport = rest.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : rest.substr(slash);
  while (!path.empty() && path.back() == '/') path.pop_back();
  uint16_t port = 80;
  std::string host = hostport;
  if (!hostport.empty() && hostport.front() == '[') {  // [v6]:port
    const size_t close = hostport.find(']');
    if (close == std::string::npos) throw UsageError("--base-url: bad IPv6 host in '" + url + "'");
    host = hostport.substr(1, close - 1);
    if (close + 1 < hostport.size()) {
      if (hostport[close + 1] != ':') throw UsageError("--base-url: bad host in '" + url + "'");
      port = static_cast<uint16_t>(
          parse_int_flag("--base-url port", hostport.substr(close + 2), 1, 65535));
    }
  } else if (const size_t colon = hostport.rfind(':'); colon != std::string::npos) {
    host = hostport.substr(0, colon);
    port = static_cast<uint16_t>(
        parse_int_flag("--base-url port", hostport.substr(colon + 1), 1, 65535));
  }
  if (host.empty()) throw UsageError("--base-url: no host in '" + url + "'");
  config.host = host;
  config.port = port;
  config.base_path = path;
}

std::string usage() {
  return R"(usage: llmbench TRACE [flags]
       llmbench fake-server [--port P] [--chunks N] [--ttft-ms X] [--itl-ms Y] [--threads T]

Replays TRACE (our JSON trace, an Azure CSV, a Mooncake JSONL or 'synthetic:...') against an
OpenAI-compatible server and reports client-side TTFT, TPOT, ITL, E2E and goodput as
`vllm bench serve` defines them.

Target:
  --base-url URL            http://HOST[:PORT][/PATH] (default http://127.0.0.1:8000)
  --endpoint PATH           /v1/completions (default) or /v1/chat/completions
  --model NAME              model name to send (default: the first of GET /v1/models)
  --api-key KEY             sent as "Authorization: Bearer KEY" (default: $OPENAI_API_KEY)
Requests:
  --token-ids / --no-token-ids   prompt as token ids (default for /v1/completions) or as words
  --ignore-eos / --no-ignore-eos send ignore_eos so outputs have the trace's lengths (default on)
  --stream / --no-stream         streamed responses with usage (default) or one JSON body
  --timeout S               per-request timeout in seconds (default: none)
Load:
  --arrivals trace          send at the trace's arrival times (default)
  --arrival-rate-scale F    divide the trace's arrival times by F (2 = twice the load)
  --request-rate R          Poisson arrivals at R requests/s instead ('inf': all at once)
  --concurrency N           closed loop: keep N requests in flight, ignore arrival times
  --max-concurrency N       cap on requests in flight with trace or Poisson arrivals
  --num-requests K          send K requests (Poisson and closed loop cycle through the trace)
  --seed S                  seed of Poisson arrivals and generated prompts (default 0)
Report:
  --goodput KEY:MS ...      SLOs for goodput, keys ttft, tpot, e2e (e.g. ttft:500 tpot:50)
  --result-json FILE        write every figure as JSON
  --quiet                   no table on stdout
  --help
  --version                 the version, the commit and whether CUDA is built in
)";
}

CliOptions parse_args(const std::vector<std::string>& args) {
  CliOptions o;
  if (wants_help(args)) {
    o.help = true;
    return o;
  }
  BenchConfig& c = o.config;
  if (const char* key = std::getenv("OPENAI_API_KEY")) c.api_key = key;
  std::optional<bool> token_ids;
  bool arrivals_set = false, rate_set = false, concurrency_set = false, scale_set = false;
  std::string base_url = "http://127.0.0.1:8000";
  auto set_trace = [&o](const std::string& path) {
    if (!o.trace_path.empty()) {
      throw UsageError("unexpected argument '" + path + "': the trace is already '" + o.trace_path +
                       "'");
    }
    o.trace_path = path;
  };
  auto positive = [](double& out, bool* set = nullptr) {
    return [&out, set](const std::string& flag, const std::string& v) {
      out = parse_double_above_flag(flag, v, 0);
      if (set) *set = true;
    };
  };
  FlagSet flags("llmbench");
  flags.text({"--base-url"}, base_url)
      .value({"--endpoint"},
             [&c](const std::string& flag, const std::string& v) {
               if (v.empty() || v.front() != '/') {
                 throw UsageError(flag + ": expected a path starting with '/', got '" + v + "'");
               }
               c.endpoint = v;
             })
      .nonempty({"--model"}, c.model, "name")
      .text({"--api-key"}, c.api_key)
      .toggle({"--token-ids", "--no-token-ids"},
              [&token_ids](const std::string& flag) { token_ids = flag == "--token-ids"; })
      .boolean({"--ignore-eos"}, c.ignore_eos, true)
      .boolean({"--no-ignore-eos"}, c.ignore_eos, false)
      .boolean({"--stream"}, c.stream, true)
      .boolean({"--no-stream"}, c.stream, false)
      .value({"--timeout"}, positive(c.timeout_s))
      .value({"--arrivals"},
             [&arrivals_set](const std::string& flag, const std::string& v) {
               if (v != "trace") {
                 throw UsageError(flag + ": expected 'trace', got '" + v +
                                  "' (use --request-rate or --concurrency for other modes)");
               }
               arrivals_set = true;
             })
      .value({"--arrival-rate-scale"}, positive(c.arrival_rate_scale, &scale_set))
      .value({"--request-rate"},
             [&](const std::string& flag, const std::string& v) {
               c.request_rate =
                   v == "inf" || v == "infinity" ? INFINITY : parse_double_above_flag(flag, v, 0);
               rate_set = true;
             })
      .value({"--concurrency"},
             [&](const std::string& flag, const std::string& v) {
               c.concurrency = parse_int_flag(flag, v, 1);
               concurrency_set = true;
             })
      .integer({"--max-concurrency"}, c.max_concurrency, 1)
      .value({"--num-requests", "--num-prompts"},
             [&c](const std::string& flag, const std::string& v) {
               c.num_requests = parse_int_flag(flag, v, 1);
             })
      .integer({"--seed"}, c.seed, 0)
      .list(
          "--goodput",
          [](const std::string& a) {
            return a.find(':') != std::string::npos && a.rfind("synthetic:", 0) != 0 &&
                   a.rfind("--", 0) != 0;
          },
          [&c](const std::string&, const std::string& item) { parse_slo(item, c.slos); },
          "KEY:MS items (ttft, tpot, e2e)")
      .nonempty({"--result-json", "--result-filename"}, o.result_json, "file name")
      .boolean({"--quiet"}, o.quiet)
      .value({"--trace"}, [&](const std::string&, const std::string& v) { set_trace(v); })
      .positional(set_trace);
  flags.parse(args);
  if (o.trace_path.empty())
    throw UsageError("missing TRACE (a trace file or 'synthetic:...'; see --help)");
  parse_base_url(base_url, c);
  c.chat = c.endpoint.find("chat") != std::string::npos;
  if (c.chat && token_ids.value_or(false))
    throw UsageError("--token-ids: not available with the chat endpoint " + c.endpoint);
  c.token_ids = token_ids.value_or(!c.chat);
  if (rate_set && concurrency_set)
    throw UsageError(
        "--concurrency: cannot be combined with --request-rate (use --max-concurrency to cap "
        "Poisson arrivals)");
  if (arrivals_set && (rate_set || concurrency_set))
    throw UsageError(std::string(rate_set ? "--request-rate" : "--concurrency") +
                     ": cannot be combined with --arrivals trace");
  if (scale_set && (rate_set || concurrency_set))
    throw UsageError("--arrival-rate-scale: only applies to --arrivals trace");
  if (concurrency_set && c.max_concurrency > 0)
    throw UsageError("--max-concurrency: cannot be combined with --concurrency");
  if (rate_set) c.arrivals = BenchConfig::Arrivals::kRate;
  if (concurrency_set) c.arrivals = BenchConfig::Arrivals::kClosedLoop;
  return o;
}

}  // namespace llm::loadgen
