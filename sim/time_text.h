// Parsing and printing of the time values llmsim's flags use: Prometheus-style durations ("5s",
// "500ms", "1m", "1h30m") and RFC 3339 instants ("2026-01-01T00:00:00Z", "...+02:00").
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace llm {

// Nanoseconds, or nullopt when the text is not a positive duration.
std::optional<int64_t> parse_duration_ns(const std::string& text);
// Nanoseconds since the Unix epoch, or nullopt when the text is not RFC 3339.
std::optional<int64_t> parse_rfc3339_ns(const std::string& text);
// Seconds since the epoch with millisecond precision: "1767225600.005", or "1767225600" when whole.
std::string unix_seconds_text(int64_t unix_ns);
// The shortest Prometheus duration for whole milliseconds: "5s", "1m", "250ms", "1h".
std::string duration_text(int64_t ns);
// Trace time `t_ns - start_ns` as a Prometheus duration: "0s", "5m15s", "1h30m", "1m0s250ms".
std::string trace_time_text(int64_t t_ns, int64_t start_ns);

}  // namespace llm
