// /metrics as the Gateway API Inference Extension's endpoint picker reads it: strict Prometheus
// text format 0.0.4 (one malformed line fails a whole scrape; a sample whose family has no
// # TYPE reads as untyped), and the families it routes on: vllm:num_requests_waiting and
// vllm:num_requests_running (gauges that follow the scheduler), vllm:kv_cache_usage_perc (a gauge
// in 0..1), vllm:cache_config_info with integer block_size and num_gpu_blocks labels, and no
// vllm:lora_requests_info (this server has no LoRA).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using testing::Connection;
using testing::request;
using testing::start_server;
using testing::test_options;

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct Exposition {
  std::map<std::string, std::string> types;  // family -> counter | gauge | histogram | ...
  std::vector<Sample> samples;
  std::vector<std::string> errors;  // what would fail the scrape, one per bad line
};

// The family a sample belongs to, given the declared types (histogram and counter suffixes).
std::string family_of(const std::string& name, const std::map<std::string, std::string>& types) {
  if (types.count(name)) return name;
  for (const char* suffix : {"_total", "_bucket", "_count", "_sum", "_created"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      const std::string base = name.substr(0, name.size() - s.size());
      if (types.count(base)) return base;
    }
  }
  return "";
}

// A strict parser of the text format: every line a comment (# HELP / # TYPE, declared once and
// before the family's samples) or a sample NAME{LABELS} VALUE with legal names, quoted and escaped
// label values, a float value, and a declared type. Lists an error per bad line.
Exposition parse_strictly(const std::string& text) {
  static const std::regex kHelp(R"(# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .*)");
  static const std::regex kType(
      R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped))");
  static const std::regex kSample(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*)\})? (\S+))");
  static const std::regex kLabel(R"(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)\")");
  Exposition e;
  auto check = [&e](bool ok, const std::string& what) {
    if (!ok) e.errors.push_back(what);
  };
  std::set<std::string> series;
  check(!text.empty() && text.back() == '\n', "the body must end with a newline");
  std::istringstream in(text);
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    const std::string where = "line " + std::to_string(line_number) + ": " + line;
    std::smatch m;
    if (line.empty()) {
      check(false, "empty " + where);
    } else if (line[0] == '#') {
      if (std::regex_match(line, m, kType)) {
        check(e.types.count(m[1]) == 0, "TYPE declared twice, " + where);
        e.types[m[1]] = m[2];
      } else {
        check(std::regex_match(line, kHelp), "malformed comment, " + where);
      }
    } else if (std::regex_match(line, m, kSample)) {
      Sample s;
      s.name = m[1];
      const std::string labels = m[3];
      for (auto it = std::sregex_iterator(labels.begin(), labels.end(), kLabel);
           it != std::sregex_iterator(); ++it) {
        check(s.labels.count((*it)[1]) == 0, "label repeated, " + where);
        s.labels[(*it)[1]] = (*it)[2];
      }
      const std::string value = m[4];
      char* end = nullptr;
      s.value = std::strtod(value.c_str(), &end);
      check(end && *end == '\0', "value is not a float, " + where);
      check(!family_of(s.name, e.types).empty(), "sample without # TYPE, " + where);
      check(series.insert(line.substr(0, line.rfind(' '))).second, "series repeated, " + where);
      e.samples.push_back(std::move(s));
    } else {
      check(false, "malformed sample, " + where);
    }
  }
  return e;
}

std::vector<Sample> find(const Exposition& e, const std::string& name) {
  std::vector<Sample> out;
  for (const Sample& s : e.samples) {
    if (s.name == name) out.push_back(s);
  }
  return out;
}

double value_of(const std::string& text, const std::string& name) {
  const std::vector<Sample> found = find(parse_strictly(text), name);
  return found.size() == 1 ? found[0].value : NAN;
}

TEST(EndpointPickerMetrics, TheParserRefusesWhatAScrapeWouldFailOn) {
  // The parser above must be able to fail: each of these bodies breaks one rule.
  for (const char* bad : {"vllm:x 1\n",                                  // no # TYPE
                          "# TYPE vllm:x gauge\nvllm:x{a=\"1} 1\n",      // unterminated value
                          "# TYPE vllm:x gauge\nvllm:x one\n",           // not a float
                          "# TYPE vllm:x gauge\nvllm:x 1\nvllm:x 2\n",   // repeated series
                          "# TYPE vllm:x gauge\n# TYPE vllm:x gauge\n",  // TYPE twice
                          "# TYPE vllm:x gauge\nvllm:x 1"}) {            // no final newline
    EXPECT_FALSE(parse_strictly(bad).errors.empty()) << bad;
  }
}

TEST(EndpointPickerMetrics, FamiliesTheEndpointPickerReadsAreExact) {
  ServerOptions o = test_options();
  o.step_time_scale = 1;  // real-time steps: streams stay running while we scrape
  o.engine.max_num_seqs = 2;
  auto server = start_server(o);
  const uint16_t port = server->port();
  // Idle: the whole body parses strictly, with the families at their idle values.
  std::string text = request(port, "GET", "/metrics").body;
  Exposition e = parse_strictly(text);
  EXPECT_EQ(e.errors, std::vector<std::string>{});
  EXPECT_EQ(e.types["vllm:num_requests_waiting"], "gauge");
  EXPECT_EQ(e.types["vllm:num_requests_running"], "gauge");
  EXPECT_EQ(e.types["vllm:kv_cache_usage_perc"], "gauge");
  EXPECT_EQ(e.types["vllm:cache_config_info"], "gauge");
  EXPECT_EQ(e.types.count("vllm:lora_requests_info"), 0u);
  EXPECT_TRUE(find(e, "vllm:lora_requests_info").empty());
  const std::vector<Sample> info = find(e, "vllm:cache_config_info");
  ASSERT_EQ(info.size(), 1u);
  const std::regex integer("[0-9]+");
  for (const char* label : {"block_size", "num_gpu_blocks"}) {
    ASSERT_TRUE(info[0].labels.count(label)) << label;
    EXPECT_TRUE(std::regex_match(info[0].labels.at(label), integer))
        << label << "=" << info[0].labels.at(label);
  }
  const SchedulerConfig& sc = server->context().setup.scheduler;
  EXPECT_EQ(info[0].labels.at("block_size"), std::to_string(sc.block_size));
  EXPECT_EQ(info[0].labels.at("num_gpu_blocks"), std::to_string(sc.num_gpu_blocks));
  for (const char* gauge : {"vllm:num_requests_waiting", "vllm:num_requests_running"}) {
    const std::vector<Sample> s = find(e, gauge);
    ASSERT_EQ(s.size(), 1u) << gauge;
    EXPECT_EQ(s[0].value, 0) << gauge;
    EXPECT_EQ(s[0].labels.at("engine"), "0");
    EXPECT_EQ(s[0].labels.at("model_name"), "Llama-3.1-8B");
  }
  EXPECT_EQ(value_of(text, "vllm:kv_cache_usage_perc"), 0);

  // Three long streams on two seats: two run, one waits, and the KV cache is partly used.
  std::vector<std::unique_ptr<Connection>> streams;
  for (int i = 0; i < 3; ++i) {
    streams.push_back(std::make_unique<Connection>(port));
    streams.back()->send_request(
        "POST", "/v1/completions",
        R"({"prompt":"stream )" + std::to_string(i) +
            R"( with some words","max_tokens":5000,"ignore_eos":true,"stream":true})");
  }
  EXPECT_TRUE(testing::eventually([&] {
    text = request(port, "GET", "/metrics").body;
    return value_of(text, "vllm:num_requests_running") == 2 &&
           value_of(text, "vllm:num_requests_waiting") == 1;
  })) << text;
  e = parse_strictly(text);
  EXPECT_EQ(e.errors, std::vector<std::string>{});
  const double usage = value_of(text, "vllm:kv_cache_usage_perc");
  EXPECT_GT(usage, 0);
  EXPECT_LE(usage, 1);
  // The body under load parses as strictly as the idle one (histograms with samples included).
  EXPECT_FALSE(find(e, "vllm:time_to_first_token_seconds_bucket").empty());
  streams.clear();  // disconnect: the requests are aborted
  EXPECT_TRUE(testing::eventually([&] {
    text = request(port, "GET", "/metrics").body;
    return value_of(text, "vllm:num_requests_running") == 0 &&
           value_of(text, "vllm:num_requests_waiting") == 0;
  })) << text;
}

}  // namespace
}  // namespace llm
