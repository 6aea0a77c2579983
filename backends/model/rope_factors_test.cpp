// Llama 3.1's per-frequency RoPE factors: spot values for Llama 3.1's own parameters worked out
// from Hugging Face's formula, agreement with Hugging Face's scaled inverse frequencies at every
// frequency, which factors a config uses, and the checks on factors read from a file.
#include "backends/model/rope_factors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace llm {
namespace {

// Llama 3.1 8B: config.json rope_scaling {factor 8, low_freq_factor 1, high_freq_factor 4,
// original_max_position_embeddings 8192}, rope_theta 500000, head_dim 128.
constexpr RopeScaling kLlama31{RopeScaling::Type::kLlama3, 8.0, 1.0, 4.0, 8192};

struct Spot {
  int index;
  double factor;
};

// wavelen_i = 2*pi * 500000^(i/64); high band below 8192/4 = 2048, low band above 8192/1 = 8192.
// i = 28: wavelen 1956.5 < 2048, kept (1). i = 35: 8218.7 > 8192, the full factor 8.
// i = 29: wavelen 2401.738; s = (8192/2401.738 - 1) / 3 = 0.80364; 1/((1 - s)/8 + s) = 1.2074839.
// i = 31: wavelen 3619.249; s = 0.42115; 1/((1 - s)/8 + s) = 2.0263132.
// i = 34: wavelen 6695.109; s = 0.07451; 1/((1 - s)/8 + s) = 5.2573266.
TEST(RopeFactors, Llama31SpotValues) {
  const std::vector<float> f = llama3_rope_freq_factors(128, 500000.0, kLlama31);
  ASSERT_EQ(f.size(), 64u);
  for (const Spot s :
       {Spot{0, 1.0}, Spot{28, 1.0}, Spot{29, 1.207483871283662}, Spot{31, 2.0263132059050557},
        Spot{34, 5.257326588708467}, Spot{35, 8.0}, Spot{63, 8.0}}) {
    EXPECT_FLOAT_EQ(f[static_cast<size_t>(s.index)], static_cast<float>(s.factor))
        << "frequency " << s.index;
  }
  for (size_t i = 1; i < f.size(); ++i) EXPECT_LE(f[i - 1], f[i]) << "factors never decrease";
}

// Dividing the plain frequency by the factor gives Hugging Face's llama3 inverse frequency,
// (1 - s) * inv / factor + s * inv in the middle band, to float32 precision.
TEST(RopeFactors, MatchHuggingFaceScaledFrequencies) {
  const RopeScaling shortened{RopeScaling::Type::kLlama3, 8.0, 1.0, 4.0, 64};
  for (const auto& [head_dim, theta, s] :
       {std::tuple{128, 500000.0, kLlama31}, std::tuple{16, 10000.0, shortened},
        std::tuple{64, 500000.0, RopeScaling{RopeScaling::Type::kLlama3, 32.0, 1.0, 4.0, 8192}}}) {
    const std::vector<float> f = llama3_rope_freq_factors(head_dim, theta, s);
    const double old_len = static_cast<double>(s.original_max_position_embeddings);
    int middle = 0;
    for (int i = 0; i < head_dim / 2; ++i) {
      const double inv = std::pow(theta, -2.0 * i / head_dim);
      const double wavelen = 2 * std::numbers::pi / inv;
      double hf = inv;
      if (wavelen > old_len / s.low_freq_factor) {
        hf = inv / s.factor;
      } else if (wavelen >= old_len / s.high_freq_factor) {
        const double sm =
            (old_len / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
        hf = (1 - sm) * inv / s.factor + sm * inv;
        ++middle;
      }
      EXPECT_NEAR(inv / f[static_cast<size_t>(i)] / hf, 1.0, 1e-7)
          << "head_dim " << head_dim << " frequency " << i;
    }
    EXPECT_GT(middle, 0) << "head_dim " << head_dim << ": the smoothed band is exercised";
  }
}

TEST(RopeFactors, RejectsParametersTheFormulaCannotUse) {
  RopeScaling s = kLlama31;
  EXPECT_THROW(llama3_rope_freq_factors(127, 500000.0, s), std::invalid_argument);
  EXPECT_THROW(llama3_rope_freq_factors(128, 0.0, s), std::invalid_argument);
  s.high_freq_factor = s.low_freq_factor;
  EXPECT_THROW(llama3_rope_freq_factors(128, 500000.0, s), std::invalid_argument);
  s = kLlama31;
  s.original_max_position_embeddings = 0;
  EXPECT_THROW(llama3_rope_freq_factors(128, 500000.0, s), std::invalid_argument);
}

ModelConfig config_with(RopeScaling s) {
  ModelConfig c;
  c.head_dim = 128;
  c.rope_theta = 500000.0;
  c.rope_scaling = s;
  return c;
}

TEST(RopeFactors, WhichFactorsAConfigUses) {
  EXPECT_TRUE(rope_freq_factors_of(config_with({})).empty());
  EXPECT_TRUE(
      rope_freq_factors_of(config_with({RopeScaling::Type::kLinear, 2.0, 1.0, 4.0, 0})).empty());
  ModelConfig c = config_with(kLlama31);
  EXPECT_EQ(rope_freq_factors_of(c), llama3_rope_freq_factors(128, 500000.0, kLlama31));
  // Set factors (a GGUF's rope_freqs.weight) win over the parameters.
  c.rope_freq_factors.assign(64, 2.0f);
  EXPECT_EQ(rope_freq_factors_of(c), c.rope_freq_factors);
  c.rope_freq_factors.assign(63, 2.0f);
  EXPECT_THROW(rope_freq_factors_of(c), std::invalid_argument);
}

TEST(RopeFactors, CheckNamesTheFileAndField) {
  const std::vector<float> good(8, 1.5f);
  EXPECT_NO_THROW(check_rope_freq_factors(good, 16, "m.gguf", "rope_freqs.weight"));
  for (const std::vector<float>& bad :
       {std::vector<float>(7, 1.0f), std::vector<float>(9, 1.0f),
        std::vector<float>{1, 1, 1, 0, 1, 1, 1, 1}, std::vector<float>{1, 1, 1, -2, 1, 1, 1, 1},
        std::vector<float>{1, std::numeric_limits<float>::quiet_NaN(), 1, 1, 1, 1, 1, 1},
        std::vector<float>{1, 1, 1, 1, 1, 1, 1, std::numeric_limits<float>::infinity()}}) {
    try {
      check_rope_freq_factors(bad, 16, "m.gguf", "rope_freqs.weight");
      ADD_FAILURE() << "accepted " << bad.size() << " factors";
    } catch (const ModelFormatError& e) {
      EXPECT_EQ(e.file(), "m.gguf");
      EXPECT_EQ(e.field(), "rope_freqs.weight");
    }
  }
}

}  // namespace
}  // namespace llm
