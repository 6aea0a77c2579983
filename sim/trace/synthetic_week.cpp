#include "sim/trace/synthetic_week.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <string_view>
#include <vector>

#include "core/ceil_div.h"
#include "core/rng.h"
#include "sim/trace/trace.h"

namespace llm {
namespace {

constexpr double kWeekDayS = 86400;
constexpr int32_t kWeekBlock = 16;
constexpr int64_t kWeekSystemLen = 512;
constexpr int64_t kWeekSystemPrompts = 8;
constexpr size_t kConversations = 4096;
constexpr int64_t kWeekMaxPrompt = 8192;
constexpr uint64_t kWeekFirstUniqueId = 1ULL << 40;

[[noreturn]] void week_bad(std::string_view key, const std::string& what) {
  throw TraceError("synthetic-week: " + std::string(key) + ": " + what);
}

double week_number(std::string_view key, std::string_view text) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) {
    week_bad(key, "expected a number, got '" + std::string(text) + "'");
  }
  return v;
}

int64_t week_lognormal(Rng& rng, double median, double sigma, int64_t lo, int64_t hi) {
  const double x = median * std::exp(sigma * rng.normal());
  return std::llround(std::clamp(x, static_cast<double>(lo), static_cast<double>(hi)));
}

}  // namespace

WeekSpec parse_week_spec(const std::string& text) {
  std::string_view rest = text;
  if (rest.starts_with("synthetic-week:")) rest.remove_prefix(15);
  WeekSpec s;
  while (!rest.empty()) {
    const size_t comma = std::min(rest.find(','), rest.size());
    const std::string_view item = rest.substr(0, comma);
    rest = comma < rest.size() ? rest.substr(comma + 1) : std::string_view();
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) week_bad(item, "expected key=value");
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    const double v = week_number(key, value);
    if (key == "seed") {
      if (v < 0 || v != std::floor(v)) week_bad(key, "expected an integer >= 0");
      s.seed = static_cast<uint64_t>(v);
    } else if (key == "days") {
      if (v <= 0 || v > 3650) week_bad(key, "expected a number of days in (0, 3650]");
      s.days = v;
    } else if (key == "rate") {
      if (v <= 0) week_bad(key, "expected requests per second > 0");
      s.rate_per_s = v;
    } else if (key == "diurnal") {
      if (v < 0 || v >= 1) week_bad(key, "expected an amplitude in [0, 1)");
      s.diurnal = v;
    } else if (key == "weekend") {
      if (v <= 0) week_bad(key, "expected a factor > 0");
      s.weekend = v;
    } else if (key == "bursts") {
      if (v < 0) week_bad(key, "expected bursts per day >= 0");
      s.bursts_per_day = v;
    } else if (key == "burst_len") {
      if (v <= 0) week_bad(key, "expected seconds > 0");
      s.burst_len_s = v;
    } else if (key == "burst_factor") {
      if (v < 1) week_bad(key, "expected a factor >= 1");
      s.burst_factor = v;
    } else if (key == "code") {
      if (v < 0 || v > 1) week_bad(key, "expected a share in [0, 1]");
      s.code = v;
    } else if (key == "followup") {
      if (v < 0 || v > 1) week_bad(key, "expected a share in [0, 1]");
      s.followup = v;
    } else if (key == "n") {
      if (v < 1 || v != std::floor(v)) week_bad(key, "expected a number of requests >= 1");
      s.max_requests = static_cast<int64_t>(v);
    } else {
      week_bad(key,
               "unknown key (accepted: seed, days, rate, diurnal, weekend, bursts, burst_len, "
               "burst_factor, code, followup, n)");
    }
  }
  return s;
}

std::string format_week_spec(const WeekSpec& s) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "synthetic-week:seed=%llu,days=%g,rate=%g,diurnal=%g,weekend=%g,bursts=%g,"
                "burst_len=%g,burst_factor=%g,code=%g,followup=%g",
                static_cast<unsigned long long>(s.seed), s.days, s.rate_per_s, s.diurnal, s.weekend,
                s.bursts_per_day, s.burst_len_s, s.burst_factor, s.code, s.followup);
  std::string text = buf;
  if (s.max_requests != INT64_MAX) text += ",n=" + std::to_string(s.max_requests);
  return text;
}

struct WeekStream::State {
  // A conversation that later requests may continue. (A member, not a type of this file's
  // anonymous namespace: State has external linkage, and gcc warns (-Wsubobject-linkage) when
  // such a type holds one with internal linkage, as in a unity batch.)
  struct Conversation {
    int64_t context = 0;  // prompt + answer tokens so far
    std::vector<uint64_t> ids;
  };

  explicit State(const WeekSpec& s)
      : spec(s),
        arrivals(hash_combine(s.seed, 11)),
        bursts(hash_combine(s.seed, 12)),
        kinds(hash_combine(s.seed, 13)),
        lengths(hash_combine(s.seed, 14)),
        conversations(kConversations) {
    // Weekdays weigh 1 and weekend days `weekend`; the week's mean is rate_per_s.
    norm = 7.0 / (5.0 + 2.0 * s.weekend);
    max_rate = s.rate_per_s * norm * std::max(1.0, s.weekend) * (1 + s.diurnal) * s.burst_factor;
    end_s = s.days * kWeekDayS;
    next_burst_s =
        s.bursts_per_day > 0 ? bursts.exponential(kWeekDayS / s.bursts_per_day) : INFINITY;
  }

  // The rate at time t (seconds), without bursts.
  double base_rate(double t) const {
    const double hour = std::fmod(t, kWeekDayS) / 3600.0;
    const auto day = static_cast<int64_t>(t / kWeekDayS) % 7;
    const double weekly = day >= 5 ? spec.weekend : 1.0;
    const double daily = 1 + spec.diurnal * std::cos(2 * std::numbers::pi * (hour - 15) / 24);
    return spec.rate_per_s * norm * weekly * daily;
  }

  bool in_burst(double t) {
    while (t >= next_burst_s) {  // the latest burst begun by t
      burst_start_s = next_burst_s;
      burst_end_s = burst_start_s + spec.burst_len_s;
      next_burst_s += bursts.exponential(kWeekDayS / spec.bursts_per_day);
    }
    return t >= burst_start_s && t < burst_end_s;
  }

  void fill(TraceRequest& r) {
    r.prefix_hash_ids.clear();
    r.hash_block_size = kWeekBlock;
    r.n = 1;
    if (kinds.uniform() < spec.code) {
      const int64_t own = week_lognormal(lengths, 2048, 0.8, 16, 7680 - kWeekSystemLen);
      r.prompt_len = kWeekSystemLen + own;
      r.output_len = week_lognormal(lengths, 28, 1.0, 1, 1024);
      const auto system = static_cast<uint64_t>(kinds.below(kWeekSystemPrompts));
      for (int64_t j = 0; j < kWeekSystemLen / kWeekBlock; ++j) {
        r.prefix_hash_ids.push_back(system * (kWeekSystemLen / kWeekBlock) +
                                    static_cast<uint64_t>(j));
      }
      const int64_t blocks = ceil_div(r.prompt_len, kWeekBlock);
      while (static_cast<int64_t>(r.prefix_hash_ids.size()) < blocks) {
        r.prefix_hash_ids.push_back(next_id++);
      }
    } else {
      const int64_t message = week_lognormal(lengths, 220, 1.0, 4, 4096);
      r.output_len = week_lognormal(lengths, 200, 1.0, 1, 2048);
      Conversation* c = nullptr;
      if (kinds.uniform() < spec.followup && started > 0) {
        const size_t k =
            static_cast<size_t>(kinds.below(std::min<uint64_t>(started, kConversations)));
        Conversation& prev = conversations[k];
        if (prev.context + message <= kWeekMaxPrompt) c = &prev;
      }
      if (c) {
        r.prompt_len = c->context + message;
        const size_t shared = static_cast<size_t>(c->context / kWeekBlock);
        c->ids.resize(std::min(c->ids.size(), shared));
        r.prefix_hash_ids = c->ids;
      } else {
        c = &conversations[started % kConversations];
        ++started;
        c->ids.clear();
        r.prompt_len = message;
      }
      const int64_t blocks = ceil_div(r.prompt_len, kWeekBlock);
      while (static_cast<int64_t>(r.prefix_hash_ids.size()) < blocks) {
        r.prefix_hash_ids.push_back(next_id++);
      }
      // The next turn sees this prompt's full blocks and its answer.
      c->ids.assign(r.prefix_hash_ids.begin(),
                    r.prefix_hash_ids.begin() + static_cast<ptrdiff_t>(r.prompt_len / kWeekBlock));
      c->context = r.prompt_len + r.output_len;
    }
  }

  WeekSpec spec;
  Rng arrivals, bursts, kinds, lengths;
  std::vector<Conversation> conversations;
  uint64_t started = 0;  // conversations begun
  uint64_t next_id = kWeekFirstUniqueId;
  double norm = 1, max_rate = 1, end_s = 0;
  double t_s = 0;
  double burst_start_s = -1, burst_end_s = -1, next_burst_s = 0;
  int64_t count = 0;
  TraceRequest current;
};

WeekStream::WeekStream(const WeekSpec& spec) : state_(std::make_unique<State>(spec)) {}
WeekStream::~WeekStream() = default;

const TraceRequest* WeekStream::next() {
  State& st = *state_;
  if (st.count >= st.spec.max_requests) return nullptr;
  // Thinning: candidates at the highest rate, each kept with probability rate(t) / max_rate.
  while (true) {
    st.t_s += st.arrivals.exponential(1.0 / st.max_rate);
    if (st.t_s >= st.end_s) return nullptr;
    double rate = st.base_rate(st.t_s);
    if (st.in_burst(st.t_s)) rate *= st.spec.burst_factor;
    if (st.arrivals.uniform() * st.max_rate < rate) break;
  }
  TraceRequest& r = st.current;
  r.id = std::to_string(st.count);
  r.arrival_ns = std::llround(st.t_s * 1e9);
  st.fill(r);
  ++st.count;
  return &r;
}

}  // namespace llm
