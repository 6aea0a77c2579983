#include "loadgen/cli.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace llm::loadgen {
namespace {

int64_t parse_positive_int(const std::string& flag, const std::string& v, int64_t min = 1) {
  int64_t out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || out < min)
    throw UsageError(flag + ": expected an integer >= " + std::to_string(min) + ", got '" + v + "'");
  return out;
}

double parse_double(const std::string& flag, const std::string& v, bool allow_inf = false) {
  if (allow_inf && (v == "inf" || v == "infinity")) return INFINITY;
  size_t used = 0;
  double out = 0;
  try {
    out = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.size() || !std::isfinite(out) || out <= 0)
    throw UsageError(flag + ": expected a number > 0" + std::string(allow_inf ? " or inf" : "") +
                     ", got '" + v + "'");
  return out;
}

}  // namespace

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
      port = static_cast<uint16_t>(parse_positive_int("--base-url port", hostport.substr(close + 2)));
    }
  } else if (const size_t colon = hostport.rfind(':'); colon != std::string::npos) {
    host = hostport.substr(0, colon);
    const int64_t p = parse_positive_int("--base-url port", hostport.substr(colon + 1));
    if (p > 65535) throw UsageError("--base-url: port out of range in '" + url + "'");
    port = static_cast<uint16_t>(p);
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
)";
}

CliOptions parse_args(const std::vector<std::string>& args) {
  CliOptions o;
  BenchConfig& c = o.config;
  if (const char* key = std::getenv("OPENAI_API_KEY")) c.api_key = key;
  std::optional<bool> token_ids;
  bool arrivals_set = false, rate_set = false, concurrency_set = false, scale_set = false;
  std::string base_url = "http://127.0.0.1:8000";
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string inline_value;
    bool has_inline = false;
    if (flag.rfind("--", 0) == 0) {
      if (const size_t eq = flag.find('='); eq != std::string::npos) {
        inline_value = flag.substr(eq + 1);
        flag = flag.substr(0, eq);
        has_inline = true;
      }
    }
    auto value = [&]() -> std::string {
      if (has_inline) return inline_value;
      if (i + 1 >= args.size()) throw UsageError(flag + ": missing value");
      return args[++i];
    };
    auto no_value = [&] {
      if (has_inline) throw UsageError(flag + ": takes no value");
    };
    if (flag == "--help" || flag == "-h") {
      o.help = true;
    } else if (flag == "--base-url") {
      base_url = value();
    } else if (flag == "--endpoint") {
      c.endpoint = value();
      if (c.endpoint.empty() || c.endpoint.front() != '/')
        throw UsageError("--endpoint: expected a path starting with '/', got '" + c.endpoint + "'");
    } else if (flag == "--model") {
      c.model = value();
      if (c.model.empty()) throw UsageError("--model: empty name");
    } else if (flag == "--api-key") {
      c.api_key = value();
    } else if (flag == "--token-ids") {
      no_value();
      token_ids = true;
    } else if (flag == "--no-token-ids") {
      no_value();
      token_ids = false;
    } else if (flag == "--ignore-eos") {
      no_value();
      c.ignore_eos = true;
    } else if (flag == "--no-ignore-eos") {
      no_value();
      c.ignore_eos = false;
    } else if (flag == "--stream") {
      no_value();
      c.stream = true;
    } else if (flag == "--no-stream") {
      no_value();
      c.stream = false;
    } else if (flag == "--timeout") {
      c.timeout_s = parse_double(flag, value());
    } else if (flag == "--arrivals") {
      const std::string v = value();
      if (v != "trace") throw UsageError("--arrivals: expected 'trace', got '" + v + "' (use --request-rate or --concurrency for other modes)");
      arrivals_set = true;
    } else if (flag == "--arrival-rate-scale") {
      c.arrival_rate_scale = parse_double(flag, value());
      scale_set = true;
    } else if (flag == "--request-rate") {
      c.request_rate = parse_double(flag, value(), /*allow_inf=*/true);
      rate_set = true;
    } else if (flag == "--concurrency") {
      c.concurrency = parse_positive_int(flag, value());
      concurrency_set = true;
    } else if (flag == "--max-concurrency") {
      c.max_concurrency = parse_positive_int(flag, value());
    } else if (flag == "--num-requests" || flag == "--num-prompts") {
      c.num_requests = parse_positive_int(flag, value());
    } else if (flag == "--seed") {
      c.seed = static_cast<uint64_t>(parse_positive_int(flag, value(), 0));
    } else if (flag == "--goodput") {
      bool any = false;
      auto add = [&](const std::string& item) {
        try {
          parse_slo(item, c.slos);
        } catch (const std::invalid_argument& e) {
          throw UsageError("--goodput: " + std::string(e.what()));
        }
        any = true;
      };
      if (has_inline) {
        add(inline_value);
      }
      while (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0 &&
             args[i + 1].find(':') != std::string::npos && args[i + 1].rfind("synthetic:", 0) != 0) {
        add(args[++i]);
      }
      if (!any) throw UsageError("--goodput: expected one or more KEY:MS items (ttft, tpot, e2e)");
    } else if (flag == "--result-json" || flag == "--result-filename") {
      o.result_json = value();
      if (o.result_json.empty()) throw UsageError(flag + ": empty file name");
    } else if (flag == "--quiet") {
      no_value();
      o.quiet = true;
    } else if (flag == "--trace") {
      if (!o.trace_path.empty()) throw UsageError("--trace: a trace was already given ('" + o.trace_path + "')");
      o.trace_path = value();
    } else if (flag.rfind("-", 0) == 0 && flag.size() > 1) {
      throw UsageError("unknown flag " + flag + " (see --help)");
    } else {
      if (!o.trace_path.empty())
        throw UsageError("unexpected argument '" + flag + "': the trace is already '" + o.trace_path + "'");
      o.trace_path = flag;
    }
  }
  if (o.help) return o;
  if (o.trace_path.empty()) throw UsageError("missing TRACE (a trace file or 'synthetic:...'; see --help)");
  parse_base_url(base_url, c);
  c.chat = c.endpoint.find("chat") != std::string::npos;
  if (c.chat && token_ids.value_or(false))
    throw UsageError("--token-ids: not available with the chat endpoint " + c.endpoint);
  c.token_ids = token_ids.value_or(!c.chat);
  if (rate_set && concurrency_set)
    throw UsageError("--concurrency: cannot be combined with --request-rate (use --max-concurrency to cap Poisson arrivals)");
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
