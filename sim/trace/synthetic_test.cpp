// Tests for the synthetic load generator (sim/trace/synthetic.h): determinism, the statistics of
// the arrival processes and length distributions, prefix sharing, and the CLI spec parser.
#include "sim/trace/synthetic.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/trace/trace_io.h"

namespace llm {
namespace {

bool same_trace(const Trace& a, const Trace& b) {
  if (a.requests.size() != b.requests.size()) return false;
  for (size_t i = 0; i < a.requests.size(); ++i) {
    const TraceRequest& x = a.requests[i];
    const TraceRequest& y = b.requests[i];
    if (x.id != y.id || x.arrival_ns != y.arrival_ns || x.prompt_len != y.prompt_len ||
        x.output_len != y.output_len || x.prefix_hash_ids != y.prefix_hash_ids ||
        x.hash_block_size != y.hash_block_size || x.n != y.n) {
      return false;
    }
  }
  return true;
}

// Mean and coefficient of variation of the inter-arrival gaps, in seconds.
struct GapStats {
  double mean = 0;
  double cv = 0;
};

GapStats gap_stats(const Trace& t) {
  std::vector<double> gaps;
  for (size_t i = 1; i < t.requests.size(); ++i) {
    gaps.push_back(static_cast<double>(t.requests[i].arrival_ns - t.requests[i - 1].arrival_ns) *
                   1e-9);
  }
  double sum = 0;
  for (double g : gaps) sum += g;
  GapStats s;
  s.mean = sum / static_cast<double>(gaps.size());
  double var = 0;
  for (double g : gaps) var += (g - s.mean) * (g - s.mean);
  var /= static_cast<double>(gaps.size() - 1);
  s.cv = std::sqrt(var) / s.mean;
  return s;
}

template <typename F>
double median_of(const Trace& t, F field) {
  std::vector<int64_t> v;
  for (const TraceRequest& r : t.requests) v.push_back(field(r));
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return static_cast<double>(v[v.size() / 2]);
}

TEST(Synthetic, SameSeedSameTraceDifferentSeedDifferentTrace) {
  SyntheticSpec spec = sharegpt_like(500, 10, 42);
  spec.arrival = SyntheticSpec::kGamma;
  spec.gamma_cv = 3;
  spec.shared_prefix_fraction = 0.3;
  Trace a = generate_synthetic(spec);
  Trace b = generate_synthetic(spec);
  EXPECT_TRUE(same_trace(a, b));
  spec.seed = 43;
  Trace c = generate_synthetic(spec);
  EXPECT_FALSE(same_trace(a, c));
  int equal_prompts = 0;
  for (size_t i = 0; i < a.requests.size(); ++i) {
    equal_prompts += a.requests[i].prompt_len == c.requests[i].prompt_len;
  }
  EXPECT_LT(equal_prompts, 50);
}

TEST(Synthetic, BasicShape) {
  SyntheticSpec spec = sharegpt_like(1000, 4, 7);
  spec.n = 3;
  Trace t = generate_synthetic(spec);
  ASSERT_EQ(t.requests.size(), 1000u);
  EXPECT_EQ(t.format, "synthetic");
  EXPECT_EQ(t.source, format_synthetic_spec(spec));
  EXPECT_EQ(t.requests[0].arrival_ns, 0);
  std::set<std::string> ids;
  for (size_t i = 0; i < t.requests.size(); ++i) {
    const TraceRequest& r = t.requests[i];
    ids.insert(r.id);
    if (i > 0) {
      EXPECT_GE(r.arrival_ns, t.requests[i - 1].arrival_ns);
    }
    EXPECT_GE(r.prompt_len, 4);
    EXPECT_LE(r.prompt_len, 4096);
    EXPECT_GE(r.output_len, 1);
    EXPECT_LE(r.output_len, 2048);
    EXPECT_EQ(r.n, 3);
    EXPECT_TRUE(r.prefix_hash_ids.empty());
    EXPECT_EQ(r.hash_block_size, 0);
  }
  EXPECT_EQ(ids.size(), 1000u);
}

TEST(Synthetic, PoissonGapsHaveTheRightMeanAndCv) {
  Trace t = generate_synthetic(sharegpt_like(200'000, 5, 1));
  GapStats s = gap_stats(t);
  EXPECT_NEAR(s.mean, 0.2, 0.2 * 0.01);
  EXPECT_NEAR(s.cv, 1.0, 0.02);
}

TEST(Synthetic, GammaGapsHaveTheRightMeanAndCv) {
  for (double cv : {0.25, 0.5, 1.0, 2.0, 4.0}) {
    SCOPED_TRACE(cv);
    SyntheticSpec spec = sharegpt_like(200'000, 8, 11);
    spec.arrival = SyntheticSpec::kGamma;
    spec.gamma_cv = cv;
    GapStats s = gap_stats(generate_synthetic(spec));
    EXPECT_NEAR(s.mean, 0.125, 0.125 * 0.01 * std::max(1.0, cv));
    EXPECT_NEAR(s.cv, cv, cv * 0.05);
  }
}

TEST(Synthetic, ShareGptLikeLengths) {
  Trace t = generate_synthetic(sharegpt_like(50'000, 10, 3));
  double prompt_median = median_of(t, [](const TraceRequest& r) { return r.prompt_len; });
  double output_median = median_of(t, [](const TraceRequest& r) { return r.output_len; });
  EXPECT_NEAR(prompt_median, 220, 220 * 0.03);
  EXPECT_NEAR(output_median, 200, 200 * 0.03);
  double prompt_sum = 0;
  for (const TraceRequest& r : t.requests) prompt_sum += static_cast<double>(r.prompt_len);
  EXPECT_NEAR(prompt_sum / 50'000, 360, 25);  // 220 * e^0.5, a little less after clipping
}

TEST(Synthetic, FixedAndUniformLengths) {
  SyntheticSpec spec;
  spec.num_requests = 20'000;
  spec.prompt = LengthSpec{LengthSpec::kFixed, 77, 0, 1, 1};
  spec.output = LengthSpec{LengthSpec::kUniform, 0, 0, 3, 6};
  Trace t = generate_synthetic(spec);
  std::map<int64_t, int> outputs;
  for (const TraceRequest& r : t.requests) {
    EXPECT_EQ(r.prompt_len, 77);
    ++outputs[r.output_len];
  }
  ASSERT_EQ(outputs.size(), 4u);
  for (const auto& [len, count] : outputs) {
    EXPECT_GE(len, 3);
    EXPECT_LE(len, 6);
    EXPECT_NEAR(count, 5000, 300);
  }
}

TEST(Synthetic, LogNormalIsClipped) {
  SyntheticSpec spec;
  spec.num_requests = 5000;
  spec.prompt = LengthSpec{LengthSpec::kLogNormal, 100, 3.0, 50, 200};
  Trace t = generate_synthetic(spec);
  int at_min = 0, at_max = 0;
  for (const TraceRequest& r : t.requests) {
    ASSERT_GE(r.prompt_len, 50);
    ASSERT_LE(r.prompt_len, 200);
    at_min += r.prompt_len == 50;
    at_max += r.prompt_len == 200;
  }
  EXPECT_GT(at_min, 1000);
  EXPECT_GT(at_max, 1000);
}

TEST(Synthetic, SharedPrefixes) {
  SyntheticSpec spec = sharegpt_like(4000, 10, 5);
  spec.shared_prefix_fraction = 0.5;
  spec.num_shared_prefixes = 3;
  spec.shared_prefix_len = 70;  // 4 full blocks of 16; the 5th block mixes in the user's tokens
  spec.hash_block_size = 16;
  Trace t = generate_synthetic(spec);
  const uint64_t shared_ids = 3 * 4;
  int sharing = 0;
  std::set<uint64_t> prefixes_used;
  std::set<uint64_t> unique_ids;
  for (const TraceRequest& r : t.requests) {
    ASSERT_EQ(r.hash_block_size, 16);
    ASSERT_EQ(static_cast<int64_t>(r.prefix_hash_ids.size()), (r.prompt_len + 15) / 16);
    if (r.prefix_hash_ids[0] < shared_ids) {
      ++sharing;
      uint64_t k = r.prefix_hash_ids[0] / 4;
      prefixes_used.insert(k);
      for (uint64_t j = 0; j < 4; ++j) ASSERT_EQ(r.prefix_hash_ids[j], k * 4 + j);
      ASSERT_GE(r.prompt_len, 70 + 4);
    }
    for (uint64_t id : r.prefix_hash_ids) {
      if (id >= shared_ids) {
        ASSERT_TRUE(unique_ids.insert(id).second) << "id reused: " << id;
      }
    }
  }
  EXPECT_NEAR(sharing, 2000, 150);
  EXPECT_EQ(prefixes_used.size(), 3u);
}

TEST(Synthetic, PinnedValues) {
  // Guards against accidental changes of the sampling order (which would change every result).
  Trace t = generate_synthetic(sharegpt_like(3, 1, 2024));
  std::vector<int64_t> got;
  for (const TraceRequest& r : t.requests) {
    got.insert(got.end(), {r.arrival_ns, r.prompt_len, r.output_len});
  }
  // Recorded from this implementation; update only on a deliberate change of the generator.
  EXPECT_EQ(got, (std::vector<int64_t>{0, 213, 43, 912586704, 494, 119, 927096576, 90, 161}));
}

TEST(Synthetic, ValidatesTheSpec) {
  auto bad = [](auto change) {
    SyntheticSpec spec;
    change(spec);
    return spec;
  };
  std::vector<SyntheticSpec> specs = {
      bad([](SyntheticSpec& s) { s.num_requests = 0; }),
      bad([](SyntheticSpec& s) { s.rate_per_s = 0; }),
      bad([](SyntheticSpec& s) { s.rate_per_s = std::nan(""); }),
      bad([](SyntheticSpec& s) { s.gamma_cv = 0; }),
      bad([](SyntheticSpec& s) { s.n = 0; }),
      bad([](SyntheticSpec& s) { s.shared_prefix_fraction = 1.5; }),
      bad([](SyntheticSpec& s) { s.num_shared_prefixes = 0; }),
      bad([](SyntheticSpec& s) { s.hash_block_size = 0; }),
      bad([](SyntheticSpec& s) {
        s.prompt = LengthSpec{LengthSpec::kFixed, 0, 0, 1, 1};
      }),
      bad([](SyntheticSpec& s) {
        s.prompt = LengthSpec{LengthSpec::kUniform, 0, 0, 5, 4};
      }),
      bad([](SyntheticSpec& s) {
        s.output = LengthSpec{LengthSpec::kLogNormal, 10, -1, 1, 9};
      }),
      bad([](SyntheticSpec& s) {
        s.output = LengthSpec{LengthSpec::kLogNormal, 10, 1, 0, 9};
      }),
  };
  for (const SyntheticSpec& spec : specs) {
    EXPECT_THROW(generate_synthetic(spec), std::invalid_argument);
  }
}

// ---------------------------------------------------------------------------------------------
// CLI form

TEST(SyntheticSpecText, ParsesTheExample) {
  SyntheticSpec s = parse_synthetic_spec(
      "synthetic:n=1000,rate=5,arrival=gamma,cv=2,prompt=lognormal:220:1.0,"
      "output=lognormal:200:1.0,seed=3");
  EXPECT_EQ(s.num_requests, 1000);
  EXPECT_EQ(s.rate_per_s, 5);
  EXPECT_EQ(s.arrival, SyntheticSpec::kGamma);
  EXPECT_EQ(s.gamma_cv, 2);
  EXPECT_EQ(s.prompt.kind, LengthSpec::kLogNormal);
  EXPECT_EQ(s.prompt.median, 220);
  EXPECT_EQ(s.prompt.sigma, 1.0);
  EXPECT_EQ(s.prompt.min, 4);  // sharegpt_like clip range kept
  EXPECT_EQ(s.prompt.max, 4096);
  EXPECT_EQ(s.output.median, 200);
  EXPECT_EQ(s.seed, 3u);
}

TEST(SyntheticSpecText, ParsesEveryKey) {
  SyntheticSpec s = parse_synthetic_spec(
      "n=10,rate=0.5,seed=18446744073709551615,arrival=poisson,prompt=uniform:5:9,"
      "output=fixed:3,seqs=2,prefix=0.25,prefixes=4,prefix_len=512,block=32");
  EXPECT_EQ(s.num_requests, 10);
  EXPECT_EQ(s.rate_per_s, 0.5);
  EXPECT_EQ(s.seed, 18446744073709551615ull);
  EXPECT_EQ(s.arrival, SyntheticSpec::kPoisson);
  EXPECT_EQ(s.prompt.kind, LengthSpec::kUniform);
  EXPECT_EQ(s.prompt.min, 5);
  EXPECT_EQ(s.prompt.max, 9);
  EXPECT_EQ(s.output.kind, LengthSpec::kFixed);
  EXPECT_EQ(s.output.median, 3);
  EXPECT_EQ(s.n, 2);
  EXPECT_EQ(s.shared_prefix_fraction, 0.25);
  EXPECT_EQ(s.num_shared_prefixes, 4);
  EXPECT_EQ(s.shared_prefix_len, 512);
  EXPECT_EQ(s.hash_block_size, 32);
  SyntheticSpec d = parse_synthetic_spec("synthetic:");
  EXPECT_EQ(d.num_requests, 100);
  EXPECT_EQ(d.prompt.kind, LengthSpec::kLogNormal);
}

TEST(SyntheticSpecText, FormatThenParseGivesTheSameTrace) {
  for (const std::string& text :
       {std::string("synthetic:n=300,rate=3.3,arrival=gamma,cv=0.7,seed=9,prompt=uniform:1:50"),
        std::string("synthetic:n=300,rate=1e-3,output=fixed:9,seqs=4,prefix=0.6,prefixes=2,"
                    "prefix_len=33,block=8"),
        std::string("synthetic:prompt=lognormal:123.456:0.1234567:3:999")}) {
    SCOPED_TRACE(text);
    SyntheticSpec spec = parse_synthetic_spec(text);
    std::string canonical = format_synthetic_spec(spec);
    EXPECT_EQ(format_synthetic_spec(parse_synthetic_spec(canonical)), canonical);
    EXPECT_TRUE(
        same_trace(generate_synthetic(spec), generate_synthetic(parse_synthetic_spec(canonical))));
  }
}

TEST(SyntheticSpecText, ReportsErrorsByKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"synthetic:foo=1", "synthetic: foo: unknown key"},
      {"synthetic:n=abc", "synthetic: n: 'abc' is not an integer"},
      {"synthetic:n=", "synthetic: n: '' is not an integer"},
      {"synthetic:n=5,n=6", "synthetic: n: given twice"},
      {"synthetic:n", "synthetic: n: expected key=value"},
      {"synthetic:n=0", "synthetic: n: number of requests must be in [1, 1e9]"},
      {"synthetic:rate=-1", "synthetic: rate: must be finite and > 0"},
      {"synthetic:rate=fast", "synthetic: rate: 'fast' is not a number"},
      {"synthetic:seed=-1", "synthetic: seed: '-1' is not an unsigned integer"},
      {"synthetic:arrival=weibull", "synthetic: arrival: 'weibull' is not poisson or gamma"},
      {"synthetic:arrival=gamma,cv=0", "synthetic: cv: must be in (0, 100]"},
      {"synthetic:prompt=normal:3", "synthetic: prompt: 'normal:3' is not fixed:L"},
      {"synthetic:prompt=lognormal:3", "synthetic: prompt: 'lognormal:3' is not fixed:L"},
      {"synthetic:output=uniform:10:5", "synthetic: output: need 1 <= min <= max"},
      {"synthetic:output=fixed:0", "synthetic: output: fixed length must be in [1, 1e9]"},
      {"synthetic:seqs=0", "synthetic: seqs: must be >= 1"},
      {"synthetic:seqs=99999999999", "synthetic: seqs: '99999999999' is out of range"},
      {"synthetic:prefix=1.5", "synthetic: prefix: must be in [0, 1]"},
      {"synthetic:block=0", "synthetic: block: must be >= 1"},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    try {
      parse_synthetic_spec(text);
      ADD_FAILURE() << "no TraceError";
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
    try {
      read_trace_file(text);
      ADD_FAILURE() << "no TraceError from read_trace_file";
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

RC_GTEST_PROP(Synthetic, AnyValidSpecGivesAValidTraceThatRoundTrips, ()) {
  SyntheticSpec spec;
  spec.seed = *rc::gen::arbitrary<uint64_t>();
  spec.num_requests = *rc::gen::inRange<int64_t>(1, 200);
  spec.rate_per_s = *rc::gen::element(0.01, 1.0, 50.0, 1e4);
  spec.arrival = *rc::gen::element(SyntheticSpec::kPoisson, SyntheticSpec::kGamma);
  spec.gamma_cv = *rc::gen::element(0.1, 1.0, 3.0, 10.0);
  const int64_t lo = *rc::gen::inRange<int64_t>(1, 100);
  const int64_t hi = lo + *rc::gen::inRange<int64_t>(0, 3000);
  spec.prompt = LengthSpec{
      *rc::gen::element(LengthSpec::kFixed, LengthSpec::kUniform, LengthSpec::kLogNormal),
      static_cast<double>(*rc::gen::inRange<int64_t>(1, 1000)), *rc::gen::element(0.0, 0.5, 2.0),
      lo, hi};
  spec.output = LengthSpec{LengthSpec::kLogNormal, 50, 1.5, 1, hi};
  spec.n = *rc::gen::inRange(1, 8);
  spec.shared_prefix_fraction = *rc::gen::element(0.0, 0.3, 1.0);
  spec.num_shared_prefixes = *rc::gen::inRange(1, 5);
  spec.shared_prefix_len = *rc::gen::inRange<int64_t>(1, 700);
  spec.hash_block_size = *rc::gen::element(1, 16, 512);

  Trace t = generate_synthetic(spec);
  RC_ASSERT(static_cast<int64_t>(t.requests.size()) == spec.num_requests);
  for (size_t i = 0; i < t.requests.size(); ++i) {
    const TraceRequest& r = t.requests[i];
    RC_ASSERT(r.prompt_len >= 1);
    RC_ASSERT(r.output_len >= 1);
    if (i > 0) RC_ASSERT(r.arrival_ns >= t.requests[i - 1].arrival_ns);
  }
  std::ostringstream out;
  write_trace_json(t, out);
  std::istringstream in(out.str());
  RC_ASSERT(same_trace(t, parse_trace_json(in, "synthetic.json")));
}

}  // namespace
}  // namespace llm
