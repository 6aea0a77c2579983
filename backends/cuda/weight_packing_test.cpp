#include "backends/cuda/weight_packing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "backends/model/model_weights.h"

namespace llm {
namespace {

TEST(WeightPacking, Bf16RoundsToNearestEven) {
  struct Row {
    float in;
    uint16_t bits;
  };
  const Row table[] = {
      {1.0f, 0x3f80},
      {-2.0f, 0xc000},
      {0.0f, 0x0000},
      {-0.0f, 0x8000},
      {1.00390625f, 0x3f80},                        // 1 + 2^-8: halfway, ties to even (down)
      {1.01171875f, 0x3f82},                        // 1 + 3*2^-8: halfway, ties to even (up)
      {1.0039064f, 0x3f81},                         // just above halfway: up
      {3.3895314e38f, 0x7f7f},                      // largest finite bf16
      {std::numeric_limits<float>::max(), 0x7f80},  // rounds to infinity
      {std::numeric_limits<float>::infinity(), 0x7f80},
  };
  for (const Row& r : table) {
    EXPECT_EQ(float_to_bf16(r.in), r.bits) << r.in;
  }
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::nanf("")))));
}

TEST(WeightPacking, Bf16RoundTripIsWithinHalfAnUlp) {
  for (float x = -70.0f; x < 70.0f; x += 0.0137f) {
    const float y = bf16_to_float(float_to_bf16(x));
    EXPECT_LE(std::fabs(y - x), std::fabs(x) * 0x1.0p-8f) << x;
    EXPECT_EQ(float_to_bf16(y), float_to_bf16(x));  // bf16 values are fixed points
  }
}

TEST(WeightPacking, QkvStacksQThenKThenVRows) {
  LayerWeights l;
  l.q_proj = {1, 2, 3, 4};  // 2 rows of 2
  l.k_proj = {5, 6};
  l.v_proj = {7, 8};
  const std::vector<uint16_t> packed = pack_qkv(l);
  ASSERT_EQ(packed.size(), 8u);
  for (size_t i = 0; i < packed.size(); ++i) {
    EXPECT_EQ(bf16_to_float(packed[i]), static_cast<float>(i + 1));
  }
}

TEST(WeightPacking, GateUpStacksGateThenUp) {
  LayerWeights l;
  l.gate_proj = {1, 2};
  l.up_proj = {3, 4};
  const std::vector<uint16_t> packed = pack_gate_up(l);
  ASSERT_EQ(packed.size(), 4u);
  EXPECT_EQ(bf16_to_float(packed[0]), 1.0f);
  EXPECT_EQ(bf16_to_float(packed[2]), 3.0f);
}

TEST(WeightPacking, WeightBytesCountBf16MatricesAndFp32Vectors) {
  ModelConfig c;
  c.architecture = "llama";
  c.vocab_size = 10;
  c.hidden_size = 4;
  c.intermediate_size = 6;
  c.num_hidden_layers = 1;
  c.num_attention_heads = 2;
  c.num_key_value_heads = 1;
  c.head_dim = 2;
  c.tie_word_embeddings = true;
  const ModelWeights w = random_model_weights(c, 1, false);
  // embeddings 40, q 16, k 8, v 8, o 16, gate 24, up 24, down 24 = 160 bf16; norms 4+4+4 fp32.
  EXPECT_EQ(cuda_weight_bytes(w), 160 * 2 + 12 * 4);
}

}  // namespace
}  // namespace llm
