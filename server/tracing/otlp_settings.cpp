#include "server/tracing/otlp_settings.h"

#include "core/flag_set.h"
#include "core/flag_values.h"

namespace llm {
namespace {

std::string env_text(const EnvLookup& env, const char* name) {
  const char* v = env(name);
  return v ? std::string(v) : std::string();
}

// The signal-specific variable, else the general one; `name` gets which was used.
std::string trace_env(const EnvLookup& env, const char* suffix, std::string* name) {
  const std::string specific = std::string("OTEL_EXPORTER_OTLP_TRACES_") + suffix;
  const std::string general = std::string("OTEL_EXPORTER_OTLP_") + suffix;
  std::string v = env_text(env, specific.c_str());
  *name = specific;
  if (v.empty()) {
    v = env_text(env, general.c_str());
    *name = general;
  }
  return v;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string url_decode(const std::string& s, const std::string& what) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size() || hex_value(s[i + 1]) < 0 || hex_value(s[i + 2]) < 0) {
      throw UsageError(what + ": a '%' not followed by two hex digits in '" + s + "'");
    }
    out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
    i += 2;
  }
  return out;
}

// "k=v,k2=v2" (W3C Baggage-like, as the OTel exporter spec says); values URL-decoded.
std::vector<std::pair<std::string, std::string>> parse_headers(const std::string& text,
                                                               const std::string& what) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string key = eq == std::string::npos ? "" : trim(item.substr(0, eq));
    if (key.empty()) throw UsageError(what + ": expected key=value, got '" + item + "'");
    for (char c : key) {
      if (c <= ' ' || c >= 127 || c == ':') {
        throw UsageError(what + ": '" + key + "' is not an HTTP header name");
      }
    }
    const std::string value = url_decode(trim(item.substr(eq + 1)), what);
    for (char c : value) {
      if (c == '\r' || c == '\n') throw UsageError(what + ": a header value holds a line break");
    }
    out.emplace_back(key, value);
  }
  return out;
}

int64_t env_integer(const EnvLookup& env, const char* name, int64_t fallback, int64_t min) {
  const std::string v = env_text(env, name);
  if (v.empty()) return fallback;
  int64_t out = 0;
  try {
    size_t used = 0;
    out = std::stoll(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
  } catch (const std::exception&) {
    throw UsageError(std::string(name) + ": expected an integer, got '" + v + "'");
  }
  if (out < min) {
    throw UsageError(std::string(name) + ": must be at least " + std::to_string(min) + ", got " +
                     v);
  }
  return out;
}

}  // namespace

HttpUrl parse_http_url(const std::string& url, const std::string& what) {
  const std::string scheme = "http://";
  if (url.rfind("https://", 0) == 0) {
    throw UsageError(what +
                     ": https is not supported (no TLS here): send to a local Collector "
                     "over http://, got '" +
                     url + "'");
  }
  if (url.rfind(scheme, 0) != 0) {
    throw UsageError(what + ": expected an http://host:port URL, got '" + url + "'");
  }
  HttpUrl u;
  const std::string rest = url.substr(scheme.size());
  const size_t slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) u.path = rest.substr(slash);
  if (u.path.find_first_of("?# \r\n") != std::string::npos) {
    throw UsageError(what + ": the path may not hold a query, fragment or blank: '" + url + "'");
  }
  const size_t colon = authority.rfind(':');
  u.host = authority.substr(0, colon);
  if (colon != std::string::npos) {
    const std::string port = authority.substr(colon + 1);
    bool digits = !port.empty() && port.size() <= 5;
    for (char c : port) digits = digits && c >= '0' && c <= '9';
    if (!digits || std::stoi(port) < 1 || std::stoi(port) > 65535) {
      throw UsageError(what + ": bad port '" + port + "' in '" + url + "'");
    }
    u.port = std::stoi(port);
  }
  if (u.host.empty() || u.host.find_first_of("@[] ") != std::string::npos) {
    throw UsageError(what + ": expected a host name or IPv4 address in '" + url + "'");
  }
  return u;
}

std::optional<OtlpSettings> resolve_otlp_settings(const std::string& flag_endpoint,
                                                  const EnvLookup& env) {
  OtlpSettings s;
  std::string what = "--otlp-traces-endpoint";
  HttpUrl url;
  if (!flag_endpoint.empty()) {
    url = parse_http_url(flag_endpoint, what);
    if (url.path.empty() || url.path == "/") url.path = "/v1/traces";
    s.url = "http://" + url.host + ":" + std::to_string(url.port) + url.path;
  } else {
    what = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
    const std::string v = env_text(env, what.c_str());
    if (v.empty()) return std::nullopt;
    url = parse_http_url(v, what);
    if (url.path.empty()) url.path = "/";  // the signal-specific URL is used as it is
    s.url = "http://" + url.host + ":" + std::to_string(url.port) + url.path;
  }
  s.host = url.host;
  s.port = url.port;
  s.path = url.path;

  std::string name;
  const std::string protocol = trace_env(env, "PROTOCOL", &name);
  if (protocol == "http/json") {
    s.json = true;
  } else if (!protocol.empty() && protocol != "http/protobuf") {
    throw UsageError(name + ": '" + protocol +
                     "' is not supported; use http/protobuf (the default) or http/json");
  }
  const std::string compression = trace_env(env, "COMPRESSION", &name);
  if (compression == "gzip") {
    s.gzip = true;
  } else if (!compression.empty() && compression != "none") {
    throw UsageError(name + ": expected gzip or none, got '" + compression + "'");
  }
  const std::string headers = trace_env(env, "HEADERS", &name);
  s.headers = parse_headers(headers, name);
  const std::string service = env_text(env, "OTEL_SERVICE_NAME");
  if (!service.empty()) s.service_name = service;
  s.max_queue_size = env_integer(env, "OTEL_BSP_MAX_QUEUE_SIZE", s.max_queue_size, 1);
  s.max_batch_size = env_integer(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", s.max_batch_size, 1);
  if (s.max_batch_size > s.max_queue_size) s.max_batch_size = s.max_queue_size;
  s.schedule_delay_ms = env_integer(env, "OTEL_BSP_SCHEDULE_DELAY", s.schedule_delay_ms, 1);
  s.export_timeout_ms = env_integer(env, "OTEL_BSP_EXPORT_TIMEOUT", s.export_timeout_ms, 1);
  return s;
}

}  // namespace llm
