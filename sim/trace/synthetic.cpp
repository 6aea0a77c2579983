// Synthetic load generator and its CLI spec parser. See synthetic.h.
#include "sim/trace/synthetic.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "core/ceil_div.h"
#include "core/rng.h"

namespace llm {
namespace {

constexpr int64_t kMaxLength = 1'000'000'000;  // tokens; a sanity bound for lengths
constexpr int64_t kMaxRequests = 1'000'000'000;
constexpr std::string_view kPrefix = "synthetic:";

// ---------------------------------------------------------------------------------------------
// Validation

[[noreturn]] void bad(std::string_view key, const std::string& what) {
  throw std::invalid_argument("synthetic: " + std::string(key) + ": " + what);
}

std::string num(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

void validate_length(const LengthSpec& s, std::string_view key) {
  auto in_range = [&](int64_t v) { return v >= 1 && v <= kMaxLength; };
  switch (s.kind) {
    case LengthSpec::kFixed:
      if (!std::isfinite(s.median) || s.median < 1 || s.median > kMaxLength) {
        bad(key, "fixed length must be in [1, 1e9], got " + num(s.median));
      }
      return;
    case LengthSpec::kLogNormal:
      if (!std::isfinite(s.median) || s.median <= 0) {
        bad(key, "lognormal median must be finite and > 0, got " + num(s.median));
      }
      if (!std::isfinite(s.sigma) || s.sigma < 0) {
        bad(key, "lognormal sigma must be finite and >= 0, got " + num(s.sigma));
      }
      [[fallthrough]];
    case LengthSpec::kUniform:
      if (!in_range(s.min) || !in_range(s.max) || s.min > s.max) {
        bad(key, "need 1 <= min <= max <= 1e9, got min " + std::to_string(s.min) + ", max " +
                     std::to_string(s.max));
      }
      return;
  }
  bad(key, "unknown length distribution");
}

// ---------------------------------------------------------------------------------------------
// Sampling (llm::Rng only)

// Gamma(shape, 1) by Marsaglia and Tsang (2000); shape < 1 via the boost
// Gamma(a) = Gamma(a + 1) * U^(1/a).
double sample_gamma(Rng& rng, double shape) {
  if (shape < 1.0) {
    double boosted = sample_gamma(rng, shape + 1.0);
    return boosted * std::pow(rng.uniform(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x = rng.normal();
    double v = 1.0 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    double u = rng.uniform();
    double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v;
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v;
  }
}

// One inter-arrival gap in seconds.
double sample_gap_s(Rng& rng, const SyntheticSpec& spec) {
  const double mean = 1.0 / spec.rate_per_s;
  if (spec.arrival == SyntheticSpec::kPoisson) return rng.exponential(mean);
  const double cv2 = spec.gamma_cv * spec.gamma_cv;
  return sample_gamma(rng, 1.0 / cv2) * mean * cv2;  // shape 1/cv^2, scale mean*cv^2
}

int64_t sample_length(Rng& rng, const LengthSpec& s) {
  switch (s.kind) {
    case LengthSpec::kFixed:
      return std::llround(s.median);
    case LengthSpec::kUniform:
      return s.min + static_cast<int64_t>(rng.below(static_cast<uint64_t>(s.max - s.min + 1)));
    case LengthSpec::kLogNormal: {
      double x = s.median * std::exp(s.sigma * rng.normal());
      x = std::clamp(x, static_cast<double>(s.min), static_cast<double>(s.max));
      return std::llround(x);
    }
  }
  return 1;
}

}  // namespace

void validate_synthetic_spec(const SyntheticSpec& spec) {
  if (spec.num_requests < 1 || spec.num_requests > kMaxRequests) {
    bad("n", "number of requests must be in [1, 1e9], got " + std::to_string(spec.num_requests));
  }
  if (!std::isfinite(spec.rate_per_s) || spec.rate_per_s <= 0) {
    bad("rate", "must be finite and > 0, got " + num(spec.rate_per_s));
  }
  if (spec.arrival != SyntheticSpec::kPoisson && spec.arrival != SyntheticSpec::kGamma) {
    bad("arrival", "unknown arrival process");
  }
  if (!std::isfinite(spec.gamma_cv) || spec.gamma_cv <= 0 || spec.gamma_cv > 100) {
    bad("cv", "must be in (0, 100], got " + num(spec.gamma_cv));
  }
  validate_length(spec.prompt, "prompt");
  validate_length(spec.output, "output");
  if (spec.n < 1) bad("seqs", "must be >= 1, got " + std::to_string(spec.n));
  const double f = spec.shared_prefix_fraction;
  if (!std::isfinite(f) || f < 0 || f > 1) bad("prefix", "must be in [0, 1], got " + num(f));
  if (spec.num_shared_prefixes < 1) {
    bad("prefixes", "must be >= 1, got " + std::to_string(spec.num_shared_prefixes));
  }
  if (spec.shared_prefix_len < 1 || spec.shared_prefix_len > kMaxLength) {
    bad("prefix_len", "must be in [1, 1e9], got " + std::to_string(spec.shared_prefix_len));
  }
  if (spec.hash_block_size < 1) {
    bad("block", "must be >= 1, got " + std::to_string(spec.hash_block_size));
  }
}

// The generator's state: independent streams, so that changing e.g. the lengths does not move
// the arrivals.
struct SyntheticStream::State {
  // (PrefixIds is a member, not a type of this file's anonymous namespace: State has external
  // linkage, and gcc warns (-Wsubobject-linkage) when such a type holds one with internal
  // linkage, as in a unity batch.)
  // Hands out prefix hash ids: ids [0, K*blocks) name the shared system prompts, then fresh ids.
  class PrefixIds {
   public:
    explicit PrefixIds(const SyntheticSpec& spec)
        : spec_(spec),
          shared_blocks_(spec.shared_prefix_len / spec.hash_block_size),
          next_unique_(static_cast<uint64_t>(spec.num_shared_prefixes) *
                       static_cast<uint64_t>(shared_blocks_)) {}

    // Sets the ids of r (prompt_len already includes a shared prefix when shared >= 0).
    void assign(TraceRequest& r, int64_t shared) {
      const int64_t blocks = ceil_div(r.prompt_len, spec_.hash_block_size);
      r.prefix_hash_ids.reserve(static_cast<size_t>(blocks));
      int64_t first_unique = 0;
      if (shared >= 0) {
        for (int64_t j = 0; j < shared_blocks_; ++j) {
          r.prefix_hash_ids.push_back(static_cast<uint64_t>(shared * shared_blocks_ + j));
        }
        first_unique = shared_blocks_;
      }
      for (int64_t j = first_unique; j < blocks; ++j) r.prefix_hash_ids.push_back(next_unique_++);
      r.hash_block_size = spec_.hash_block_size;
    }

   private:
    const SyntheticSpec& spec_;
    int64_t shared_blocks_;
    uint64_t next_unique_;
  };

  explicit State(const SyntheticSpec& s)
      : spec(s),
        arrivals(hash_combine(s.seed, 1)),
        lengths(hash_combine(s.seed, 2)),
        sharing(hash_combine(s.seed, 3)),
        ids(spec) {}
  SyntheticSpec spec;
  Rng arrivals, lengths, sharing;
  PrefixIds ids;
  int64_t i = 0;
  int64_t t = 0;
  TraceRequest current;
};

SyntheticStream::SyntheticStream(const SyntheticSpec& spec) {
  validate_synthetic_spec(spec);
  state_ = std::make_unique<State>(spec);
}

SyntheticStream::~SyntheticStream() = default;

const TraceRequest* SyntheticStream::next() {
  State& st = *state_;
  const SyntheticSpec& spec = st.spec;
  if (st.i >= spec.num_requests) return nullptr;
  if (st.i > 0) {
    double gap_ns = std::round(sample_gap_s(st.arrivals, spec) * 1e9);
    if (gap_ns >= static_cast<double>(std::numeric_limits<int64_t>::max() - st.t)) {
      throw std::invalid_argument("synthetic: rate: arrival times overflow int64 nanoseconds");
    }
    st.t += static_cast<int64_t>(gap_ns);
  }
  TraceRequest& r = st.current;
  r.id = std::to_string(st.i);
  r.arrival_ns = st.t;
  r.prompt_len = sample_length(st.lengths, spec.prompt);
  r.output_len = sample_length(st.lengths, spec.output);
  r.n = spec.n;
  r.prefix_hash_ids.clear();
  r.hash_block_size = 0;
  if (spec.shared_prefix_fraction > 0) {
    int64_t shared = -1;
    if (st.sharing.uniform() < spec.shared_prefix_fraction) {
      shared =
          static_cast<int64_t>(st.sharing.below(static_cast<uint64_t>(spec.num_shared_prefixes)));
      r.prompt_len += spec.shared_prefix_len;
    }
    st.ids.assign(r, shared);
  }
  ++st.i;
  return &r;
}

Trace generate_synthetic(const SyntheticSpec& spec) {
  SyntheticStream stream(spec);
  Trace trace;
  trace.source = format_synthetic_spec(spec);
  trace.format = "synthetic";
  trace.requests.reserve(static_cast<size_t>(spec.num_requests));
  while (const TraceRequest* r = stream.next()) trace.requests.push_back(*r);
  return trace;
}

SyntheticSpec sharegpt_like(int64_t num_requests, double rate_per_s, uint64_t seed) {
  SyntheticSpec spec;
  spec.seed = seed;
  spec.num_requests = num_requests;
  spec.rate_per_s = rate_per_s;
  spec.arrival = SyntheticSpec::kPoisson;
  // Prompt: lognormal, median 220 tokens, sigma 1.0 (mean ~360 before clipping), in [4, 4096].
  spec.prompt = LengthSpec{LengthSpec::kLogNormal, 220, 1.0, 4, 4096};
  // Output: lognormal, median 200 tokens, sigma 1.0, in [1, 2048].
  spec.output = LengthSpec{LengthSpec::kLogNormal, 200, 1.0, 1, 2048};
  return spec;
}

// -----------------------------------------------------------------------------------------------
// CLI form

namespace {

[[noreturn]] void parse_fail(std::string_view key, const std::string& what) {
  throw TraceError("synthetic: " + std::string(key) + ": " + what);
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

template <typename T>
T parse_number(std::string_view key, std::string_view text, const char* what) {
  T value{};
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    parse_fail(key, "'" + std::string(text) + "' is not " + what);
  }
  return value;
}

int64_t parse_int(std::string_view key, std::string_view text) {
  return parse_number<int64_t>(key, text, "an integer");
}

double parse_double(std::string_view key, std::string_view text) {
  return parse_number<double>(key, text, "a number");
}

int32_t parse_int32(std::string_view key, std::string_view text) {
  int64_t v = parse_int(key, text);
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    parse_fail(key, "'" + std::string(text) + "' is out of range");
  }
  return static_cast<int32_t>(v);
}

// fixed:L | uniform:MIN:MAX | lognormal:MEDIAN:SIGMA[:MIN:MAX]; MIN/MAX keep `base` when absent.
LengthSpec parse_length(std::string_view key, std::string_view text, const LengthSpec& base) {
  const std::vector<std::string_view> p = split(text, ':');
  LengthSpec s = base;
  if (p[0] == "fixed" && p.size() == 2) {
    s.kind = LengthSpec::kFixed;
    s.median = static_cast<double>(parse_int(key, p[1]));
  } else if (p[0] == "uniform" && p.size() == 3) {
    s.kind = LengthSpec::kUniform;
    s.min = parse_int(key, p[1]);
    s.max = parse_int(key, p[2]);
  } else if (p[0] == "lognormal" && (p.size() == 3 || p.size() == 5)) {
    s.kind = LengthSpec::kLogNormal;
    s.median = parse_double(key, p[1]);
    s.sigma = parse_double(key, p[2]);
    if (p.size() == 5) {
      s.min = parse_int(key, p[3]);
      s.max = parse_int(key, p[4]);
    }
  } else {
    parse_fail(key, "'" + std::string(text) +
                        "' is not fixed:L, uniform:MIN:MAX or lognormal:MEDIAN:SIGMA[:MIN:MAX]");
  }
  return s;
}

void apply_key(SyntheticSpec& spec, std::string_view key, std::string_view value) {
  if (key == "n") {
    spec.num_requests = parse_int(key, value);
  } else if (key == "rate") {
    spec.rate_per_s = parse_double(key, value);
  } else if (key == "seed") {
    spec.seed = parse_number<uint64_t>(key, value, "an unsigned integer");
  } else if (key == "arrival") {
    if (value == "poisson") {
      spec.arrival = SyntheticSpec::kPoisson;
    } else if (value == "gamma") {
      spec.arrival = SyntheticSpec::kGamma;
    } else {
      parse_fail(key, "'" + std::string(value) + "' is not poisson or gamma");
    }
  } else if (key == "cv") {
    spec.gamma_cv = parse_double(key, value);
  } else if (key == "prompt") {
    spec.prompt = parse_length(key, value, spec.prompt);
  } else if (key == "output") {
    spec.output = parse_length(key, value, spec.output);
  } else if (key == "seqs") {
    spec.n = parse_int32(key, value);
  } else if (key == "prefix") {
    spec.shared_prefix_fraction = parse_double(key, value);
  } else if (key == "prefixes") {
    spec.num_shared_prefixes = parse_int32(key, value);
  } else if (key == "prefix_len") {
    spec.shared_prefix_len = parse_int(key, value);
  } else if (key == "block") {
    spec.hash_block_size = parse_int32(key, value);
  } else {
    parse_fail(key,
               "unknown key (expected n, rate, seed, arrival, cv, prompt, output, seqs, prefix, "
               "prefixes, prefix_len, block)");
  }
}

std::string format_length(const LengthSpec& s) {
  switch (s.kind) {
    case LengthSpec::kFixed:
      return "fixed:" + std::to_string(std::llround(s.median));
    case LengthSpec::kUniform:
      return "uniform:" + std::to_string(s.min) + ":" + std::to_string(s.max);
    case LengthSpec::kLogNormal:
      return "lognormal:" + num(s.median) + ":" + num(s.sigma) + ":" + std::to_string(s.min) + ":" +
             std::to_string(s.max);
  }
  return "?";
}

}  // namespace

SyntheticSpec parse_synthetic_spec(const std::string& text) {
  std::string_view body = text;
  if (body.starts_with(kPrefix)) body.remove_prefix(kPrefix.size());
  SyntheticSpec spec = sharegpt_like(100, 1.0, 1);
  std::set<std::string_view> seen;
  if (!body.empty()) {
    for (std::string_view item : split(body, ',')) {
      size_t eq = item.find('=');
      if (eq == std::string_view::npos) parse_fail(item, "expected key=value");
      std::string_view key = item.substr(0, eq);
      if (!seen.insert(key).second) parse_fail(key, "given twice");
      apply_key(spec, key, item.substr(eq + 1));
    }
  }
  try {
    validate_synthetic_spec(spec);
  } catch (const std::invalid_argument& e) {
    throw TraceError(e.what());
  }
  return spec;
}

std::string format_synthetic_spec(const SyntheticSpec& spec) {
  std::string out = "synthetic:n=" + std::to_string(spec.num_requests) +
                    ",rate=" + num(spec.rate_per_s) + ",seed=" + std::to_string(spec.seed);
  if (spec.arrival == SyntheticSpec::kGamma) {
    out += ",arrival=gamma,cv=" + num(spec.gamma_cv);
  } else {
    out += ",arrival=poisson";
  }
  out += ",prompt=" + format_length(spec.prompt) + ",output=" + format_length(spec.output);
  if (spec.n != 1) out += ",seqs=" + std::to_string(spec.n);
  if (spec.shared_prefix_fraction > 0) {
    out += ",prefix=" + num(spec.shared_prefix_fraction) +
           ",prefixes=" + std::to_string(spec.num_shared_prefixes) +
           ",prefix_len=" + std::to_string(spec.shared_prefix_len) +
           ",block=" + std::to_string(spec.hash_block_size);
  }
  return out;
}

}  // namespace llm
