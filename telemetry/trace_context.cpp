#include "telemetry/trace_context.h"

#include <cstdio>

namespace llm {
namespace {

constexpr size_t kVersion00Length = 55;  // 2 + 1 + 32 + 1 + 16 + 1 + 2
constexpr size_t kMaxTraceStateLength = 512;
constexpr int kMaxTraceStateMembers = 32;

int lower_hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Decodes 2 * out.size() lowercase hex digits; false on any other character.
template <size_t N>
bool decode_hex(std::string_view text, std::array<uint8_t, N>& out) {
  for (size_t i = 0; i < N; ++i) {
    const int hi = lower_hex_digit(text[2 * i]);
    const int lo = lower_hex_digit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return true;
}

bool is_lcalpha(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_key_char(char c) {
  return is_lcalpha(c) || is_digit(c) || c == '_' || c == '-' || c == '*' || c == '/';
}

// simple-key = lcalpha 0*255(keychar); multi-tenant-key = tenant-id "@" system-id with
// tenant-id = (lcalpha / DIGIT) 0*240(keychar) and system-id = lcalpha 0*13(keychar).
bool valid_tracestate_key(std::string_view key) {
  const size_t at = key.find('@');
  auto chars_ok = [](std::string_view s) {
    for (char c : s) {
      if (!is_key_char(c)) return false;
    }
    return true;
  };
  if (at == std::string_view::npos) {
    return !key.empty() && key.size() <= 256 && is_lcalpha(key[0]) && chars_ok(key);
  }
  const std::string_view tenant = key.substr(0, at);
  const std::string_view system = key.substr(at + 1);
  return !tenant.empty() && tenant.size() <= 241 &&
         (is_lcalpha(tenant[0]) || is_digit(tenant[0])) && chars_ok(tenant) && !system.empty() &&
         system.size() <= 14 && is_lcalpha(system[0]) && chars_ok(system);
}

// value = 0*255(chr) nblk-chr; chr = %x20 / nblk-chr; nblk-chr = %x21-2B / %x2D-3C / %x3E-7E.
bool valid_tracestate_value(std::string_view value) {
  if (value.empty() || value.size() > 256 || value.back() == ' ') return false;
  for (char c : value) {
    if (c < 0x20 || c > 0x7e || c == ',' || c == '=') return false;
  }
  return true;
}

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<TraceParent> parse_traceparent(std::string_view h) {
  if (h.size() < kVersion00Length) return std::nullopt;
  std::array<uint8_t, 1> version{};
  if (!decode_hex(h.substr(0, 2), version) || version[0] == 0xff) return std::nullopt;
  if (version[0] == 0 && h.size() != kVersion00Length) return std::nullopt;
  // A later version may append fields, each after a '-'.
  if (h.size() > kVersion00Length && h[kVersion00Length] != '-') return std::nullopt;
  if (h[2] != '-' || h[35] != '-' || h[52] != '-') return std::nullopt;
  TraceParent t;
  std::array<uint8_t, 1> flags{};
  if (!decode_hex(h.substr(3, 32), t.trace_id) || !decode_hex(h.substr(36, 16), t.parent_id) ||
      !decode_hex(h.substr(53, 2), flags)) {
    return std::nullopt;
  }
  if (is_zero(t.trace_id) || is_zero(t.parent_id)) return std::nullopt;
  t.flags = flags[0];
  return t;
}

std::string format_traceparent(const TraceId& trace_id, const SpanId& span_id, uint8_t flags) {
  char f[3];
  std::snprintf(f, sizeof f, "%02x", flags);
  return "00-" + to_hex(trace_id) + "-" + to_hex(span_id) + "-" + f;
}

std::string valid_tracestate(std::string_view header) {
  const std::string_view all = trim_blanks(header);
  if (all.empty() || all.size() > kMaxTraceStateLength) return "";
  int members = 0;
  std::string_view rest = all;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view member = trim_blanks(rest.substr(0, comma));
    if (!member.empty()) {  // empty list members are allowed and do not count
      const size_t eq = member.find('=');
      if (eq == std::string_view::npos || !valid_tracestate_key(member.substr(0, eq)) ||
          !valid_tracestate_value(member.substr(eq + 1)) || ++members > kMaxTraceStateMembers) {
        return "";
      }
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return std::string(all);
}

}  // namespace llm
