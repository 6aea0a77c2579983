#include "calibrate/gpu_fit/op_samples.h"

namespace llm {

double predict_op_ns(const GpuStepCoefficients& c, const OpSample& s) {
  switch (s.kind) {
    case OpKind::kGemm:
    case OpKind::kFp8Gemm: {
      double ns = 0;
      for (const GemmCall& g : s.gemms) ns += gemm_ns(c, g.params, g.weight_bytes, g.tokens);
      return ns;
    }
    case OpKind::kDecodeAttention:
      return decode_attention_ns(c, s.decode_sequences, s.decode_kv_bytes);
    case OpKind::kPrefillAttention:
      return prefill_attention_ns(c, s.prefill_tokens, s.heads, s.head_dim, s.pairs,
                                  s.prefill_kv_bytes);
    case OpKind::kMixedAttention:
      return decode_attention_ns(c, s.decode_sequences, s.decode_kv_bytes, true,
                                 s.query_heads_per_kv_head) +
             prefill_attention_ns(c, s.prefill_tokens, s.heads, s.head_dim, s.pairs,
                                  s.prefill_kv_bytes);
    case OpKind::kAllreduce:
      return allreduce_ns(c, s.gpus, s.bytes);
    case OpKind::kElementwise:
      return c.gemm_kernel_ns +
             s.elementwise_bytes / (c.weight_bytes_per_s * c.elementwise_speed) * 1e9;
  }
  return 0;
}

}  // namespace llm
