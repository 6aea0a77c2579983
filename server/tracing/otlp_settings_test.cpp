#include "server/tracing/otlp_settings.h"

#include <gtest/gtest.h>

#include <map>

#include "core/flag_set.h"

namespace llm {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(OtlpSettings, OffWithoutAnEndpoint) {
  EXPECT_FALSE(resolve_otlp_settings("", env_of({})));
  EXPECT_FALSE(resolve_otlp_settings("", env_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:1"}})));
}

TEST(OtlpSettings, EndpointUrls) {
  struct Case {
    std::string flag;
    std::string env;
    std::string url;
  };
  const Case cases[] = {
      {"http://collector:4318", "", "http://collector:4318/v1/traces"},  // base URL: path added
      {"http://collector:4318/", "", "http://collector:4318/v1/traces"},
      {"http://collector:4318/v1/traces", "", "http://collector:4318/v1/traces"},
      {"http://collector/custom/path", "", "http://collector:80/custom/path"},
      {"", "http://10.0.0.1:4318/v1/traces", "http://10.0.0.1:4318/v1/traces"},
      {"", "http://10.0.0.1:4318", "http://10.0.0.1:4318/"},  // the signal variable is as-is
      {"http://a:1", "http://b:2/v1/traces", "http://a:1/v1/traces"},  // the flag wins
  };
  for (const Case& c : cases) {
    auto s = resolve_otlp_settings(c.flag, env_of({{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", c.env}}));
    ASSERT_TRUE(s) << c.flag << " " << c.env;
    EXPECT_EQ(s->url, c.url);
  }
  auto s = resolve_otlp_settings("http://127.0.0.1:4318", env_of({}));
  EXPECT_EQ(s->host, "127.0.0.1");
  EXPECT_EQ(s->port, 4318);
  EXPECT_EQ(s->path, "/v1/traces");
}

TEST(OtlpSettings, ProtocolCompressionHeadersServiceAndBatching) {
  auto defaults = resolve_otlp_settings("http://c:4318", env_of({}));
  EXPECT_FALSE(defaults->json);
  EXPECT_FALSE(defaults->gzip);
  EXPECT_EQ(defaults->service_name, "llmserve");
  EXPECT_EQ(defaults->max_queue_size, 2048);
  EXPECT_EQ(defaults->max_batch_size, 512);
  EXPECT_EQ(defaults->schedule_delay_ms, 5000);
  EXPECT_EQ(defaults->export_timeout_ms, 30000);
  auto s = resolve_otlp_settings(
      "http://c:4318", env_of({{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"},
                               {"OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"},
                               {"OTEL_EXPORTER_OTLP_HEADERS", " api-key = a%2Cb%20c ,x=1,"},
                               {"OTEL_SERVICE_NAME", "edge-llm"},
                               {"OTEL_BSP_MAX_QUEUE_SIZE", "10"},
                               {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "50"},
                               {"OTEL_BSP_SCHEDULE_DELAY", "20"},
                               {"OTEL_BSP_EXPORT_TIMEOUT", "300"}}));
  EXPECT_TRUE(s->json);
  EXPECT_TRUE(s->gzip);
  using Headers = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(s->headers, (Headers{{"api-key", "a,b c"}, {"x", "1"}}));
  EXPECT_EQ(s->service_name, "edge-llm");
  EXPECT_EQ(s->max_queue_size, 10);
  EXPECT_EQ(s->max_batch_size, 10) << "a batch never exceeds the queue";
  EXPECT_EQ(s->schedule_delay_ms, 20);
  EXPECT_EQ(s->export_timeout_ms, 300);
  // The signal-specific variable wins over the general one.
  auto t = resolve_otlp_settings("http://c:4318",
                                 env_of({{"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"},
                                         {"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf"}}));
  EXPECT_FALSE(t->json);
}

TEST(OtlpSettings, BadValuesNameTheFlagOrVariable) {
  struct Case {
    std::string flag;
    std::map<std::string, std::string> env;
    std::string message;
  };
  const Case cases[] = {
      {"https://c:4318", {}, "--otlp-traces-endpoint: https is not supported"},
      {"c:4318", {}, "--otlp-traces-endpoint: expected an http://host:port URL"},
      {"http://c:0", {}, "--otlp-traces-endpoint: bad port '0'"},
      {"http://c:99999", {}, "bad port"},
      {"http://:4318", {}, "expected a host name"},
      {"http://c:4318/v1/traces?x=1", {}, "may not hold a query"},
      {"",
       {{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "ftp://x"}},
       "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
      {"http://c",
       {{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}},
       "OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc'"},
      {"http://c", {{"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "zstd"}}, "expected gzip or none"},
      {"http://c", {{"OTEL_EXPORTER_OTLP_HEADERS", "novalue"}}, "expected key=value"},
      {"http://c", {{"OTEL_EXPORTER_OTLP_HEADERS", "k=%zz"}}, "two hex digits"},
      {"http://c", {{"OTEL_EXPORTER_OTLP_HEADERS", "k=a%0Db"}}, "line break"},
      {"http://c", {{"OTEL_EXPORTER_OTLP_HEADERS", "bad key=v"}}, "not an HTTP header name"},
      {"http://c", {{"OTEL_BSP_SCHEDULE_DELAY", "soon"}}, "OTEL_BSP_SCHEDULE_DELAY: expected an"},
      {"http://c", {{"OTEL_BSP_MAX_QUEUE_SIZE", "0"}}, "OTEL_BSP_MAX_QUEUE_SIZE: must be at least"},
  };
  for (const Case& c : cases) {
    try {
      resolve_otlp_settings(c.flag, env_of(c.env));
      ADD_FAILURE() << "accepted: " << c.flag << " (" << c.message << ")";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace llm
