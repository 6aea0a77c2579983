#include "backends/cpu/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "backends/cpu/attention.h"
#include "backends/cpu/logprobs.h"
#include "backends/cpu/matmul.h"
#include "backends/cpu/paged_kv_cache.h"
#include "backends/cpu/rope.h"
#include "backends/cpu/sampler.h"
#include "backends/cpu/thread_pool.h"
#include "backends/cpu/vector_ops.h"
#include "core/ceil_div.h"

namespace llm {
namespace {

// With a packed model given, the weights' matrices may have been dropped (drop_packed_matrices,
// after the caller checked them): the packed shapes are checked instead.
void check_config(const ModelWeights& w, const PackedModel* packed) {
  const ModelConfig& c = w.config;
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("cpu backend: unsupported model: " + what);
  };
  check_attention_shape(c, "cpu backend");
  if (c.mlp_bias) fail("mlp_bias");
  if (packed) {
    check_packed_model(*packed, c, "cpu backend");
    if (static_cast<int64_t>(w.layers.size()) != c.num_hidden_layers ||
        static_cast<int64_t>(w.tok_embeddings.size()) != c.vocab_size * c.hidden_size) {
      throw std::invalid_argument(
          "cpu backend: the weights' layers or embeddings are not the config's");
    }
  } else {
    check_weight_shapes(w, "cpu backend");
  }
}

// Token id at absolute position pos of a request's sequence (prompt, then outputs).
int32_t token_at(const Request& r, int64_t pos) { return sequence_token_at(r, pos, "cpu backend"); }

}  // namespace

struct CpuBackend::Impl {
  std::shared_ptr<const ModelWeights> weights;
  CpuBackendOptions options;
  ThreadPool pool;
  std::shared_ptr<const PackedModel> packed;
  PagedKvCache kv;
  std::vector<double> inv_freq;

  // Per-step scratch, reused between steps.
  std::vector<int32_t> tok_id;   // [T]
  std::vector<int64_t> tok_pos;  // [T]
  std::vector<int32_t> tok_seq;  // [T] index into batch.seqs
  // (first token, token count) of each sequence with tokens in the step (they are contiguous).
  std::vector<std::pair<int64_t, int64_t>> seq_tokens;
  std::vector<float> x, xn, q, k, v, attn, tmp, gate, rope_cos, rope_sin;
  std::vector<int64_t> sample_rows;  // [S] token index of each sampling sequence's last token
  std::vector<size_t> sample_seq;    // [S] index into batch.seqs
  // Prompt logprobs: token index of each prompt row (a position whose next token is the prompt's,
  // for requests that ask), its sequence and the position it predicts.
  std::vector<int64_t> prompt_rows;
  std::vector<size_t> prompt_seq;
  std::vector<int64_t> prompt_pos;
  std::vector<float> final_x, logits;
  std::vector<float> adjusted;  // a row's logits masked, biased and penalised, to draw from
  StepLogprobs step_logprobs;   // what the latest execute() computed (empty unless asked)

  Impl(std::shared_ptr<const ModelWeights> w, const CpuBackendOptions& o)
      : weights(std::move(w)), options(o), pool(o.threads) {}

  void forward(const SchedulerOutput& batch, std::vector<int32_t>& sampled);
  void gather(const SchedulerOutput& batch);
  void layer(int64_t index, const SchedulerOutput& batch);
  void head(int64_t row, int64_t out_row);  // final norm of x[row] into final_x[out_row]
  void lm_head(int64_t rows);               // logits of final_x's first `rows` rows
  SeqLogprobs& entry(size_t seq);           // step_logprobs' entry of batch.seqs[seq]
  void prompt_logprobs(const SchedulerOutput& batch);
};

CpuBackend::CpuBackend(std::shared_ptr<const ModelWeights> weights,
                       const CpuBackendOptions& options) {
  if (!weights) throw std::invalid_argument("cpu backend: no model weights");
  check_config(*weights, options.packed.get());
  impl_ = std::make_unique<Impl>(std::move(weights), options);
  const ModelConfig& c = impl_->weights->config;
  impl_->packed = options.packed;
  if (!impl_->packed) {
    impl_->packed = std::make_shared<PackedModel>(pack_model(*impl_->weights, &impl_->pool));
  }
  impl_->kv = PagedKvCache(options.num_blocks, c.num_hidden_layers, c.num_key_value_heads,
                           c.head_dim, options.block_size);
  impl_->inv_freq = rope_inv_freq(c);
}

CpuBackend::~CpuBackend() = default;

const ModelWeights& CpuBackend::weights() const { return *impl_->weights; }

const StepLogprobs& CpuBackend::logprobs() const { return impl_->step_logprobs; }

int32_t CpuBackend::eos_token_id() const {
  const auto& eos = impl_->weights->config.eos_token_ids;
  return eos.empty() ? -1 : eos[0];
}

void CpuBackend::release(const Request&) {}  // no per-request state: K/V live in the blocks

Nanos CpuBackend::execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) {
  sampled.assign(batch.seqs.size(), -1);
  impl_->step_logprobs.clear();
  if (batch.seqs.empty()) return 0;
  impl_->forward(batch, sampled);
  return 0;
}

void CpuBackend::Impl::gather(const SchedulerOutput& batch) {
  const ModelConfig& c = weights->config;
  const int64_t h = c.hidden_size, half = c.head_dim / 2;
  tok_id.clear();
  tok_pos.clear();
  tok_seq.clear();
  seq_tokens.clear();
  sample_rows.clear();
  sample_seq.clear();
  prompt_rows.clear();
  prompt_seq.clear();
  prompt_pos.clear();
  for (size_t i = 0; i < batch.seqs.size(); ++i) {
    const ScheduledSeq& s = batch.seqs[i];
    const Request& r = *s.request;
    const int64_t end = s.num_computed_before + s.num_new_tokens;
    if (s.num_new_tokens <= 0) continue;
    const int64_t blocks_read = ceil_div(end, kv.block_size);
    if (blocks_read > static_cast<int64_t>(r.block_ids.size())) {
      throw std::invalid_argument("cpu backend: request " + r.external_id + " has " +
                                  std::to_string(r.block_ids.size()) + " KV blocks for " +
                                  std::to_string(end) + " tokens");
    }
    // The blocks this step reads (attention reads positions 0..end-1); blocks the scheduler
    // allocated ahead are checked when a step first reaches them.
    for (int32_t b :
         std::span<const int32_t>(r.block_ids).first(static_cast<size_t>(blocks_read))) {
      if (b < 0 || b >= kv.num_blocks) {
        throw std::invalid_argument("cpu backend: KV block id " + std::to_string(b) +
                                    " outside the cache's " + std::to_string(kv.num_blocks) +
                                    " blocks");
      }
    }
    seq_tokens.emplace_back(static_cast<int64_t>(tok_id.size()), s.num_new_tokens);
    for (int64_t p = s.num_computed_before; p < end; ++p) {
      const int32_t t = token_at(r, p);
      if (t < 0 || t >= c.vocab_size) {
        throw std::invalid_argument("cpu backend: token id " + std::to_string(t) +
                                    " outside the vocabulary");
      }
      tok_id.push_back(t);
      tok_pos.push_back(p);
      tok_seq.push_back(static_cast<int32_t>(i));
      if (r.params.prompt_logprobs >= 0 && p + 1 < r.prompt_len) {
        prompt_rows.push_back(static_cast<int64_t>(tok_id.size()) - 1);
        prompt_seq.push_back(i);
        prompt_pos.push_back(p + 1);
      }
    }
    if (s.samples) {
      sample_rows.push_back(static_cast<int64_t>(tok_id.size()) - 1);
      sample_seq.push_back(i);
    }
  }
  const int64_t T = static_cast<int64_t>(tok_id.size());
  x.resize(static_cast<size_t>(T * h));
  rope_cos.resize(static_cast<size_t>(T * half));
  rope_sin.resize(static_cast<size_t>(T * half));
  const float* emb = weights->tok_embeddings.data();
  for (int64_t t = 0; t < T; ++t) {
    const float* e = emb + static_cast<int64_t>(tok_id[static_cast<size_t>(t)]) * h;
    std::copy(e, e + h, x.data() + t * h);
    rope_angles(inv_freq, tok_pos[static_cast<size_t>(t)], rope_cos.data() + t * half,
                rope_sin.data() + t * half);
  }
}

void CpuBackend::Impl::layer(int64_t li, const SchedulerOutput& batch) {
  const ModelConfig& c = weights->config;
  const LayerWeights& w = weights->layers[static_cast<size_t>(li)];
  const PackedLayer& pw = packed->layers[static_cast<size_t>(li)];
  const int64_t T = static_cast<int64_t>(tok_id.size());
  const int64_t h = c.hidden_size, hd = c.head_dim, half = hd / 2, nh = c.num_attention_heads,
                nkv = c.num_key_value_heads, qd = nh * hd, kvd = nkv * hd, f = c.intermediate_size,
                group = nh / nkv;
  xn.resize(static_cast<size_t>(T * h));
  q.resize(static_cast<size_t>(T * qd));
  k.resize(static_cast<size_t>(T * kvd));
  v.resize(static_cast<size_t>(T * kvd));
  attn.resize(static_cast<size_t>(T * qd));
  tmp.resize(static_cast<size_t>(T * h));
  gate.resize(static_cast<size_t>(T * f));

  // Attention block.
  for (int64_t t = 0; t < T; ++t) {
    rms_norm(x.data() + t * h, w.attn_norm.data(), h, c.rms_norm_eps, xn.data() + t * h);
  }
  auto bias = [](const std::vector<float>& b) { return b.empty() ? nullptr : b.data(); };
  const MatmulPart qkv[] = {
      {&pw.q_proj, bias(w.q_bias), q.data(), qd},
      {&pw.k_proj, bias(w.k_bias), k.data(), kvd},
      {&pw.v_proj, bias(w.v_bias), v.data(), kvd},
  };
  matmul(&pool, xn.data(), h, T, h, qkv);
  // RoPE on token t's queries and keys of KV head g, and its K and V into the cache.
  auto cache_token = [&](int64_t t, int64_t g) {
    const float* cs = rope_cos.data() + t * half;
    const float* sn = rope_sin.data() + t * half;
    for (int64_t hh = g * group; hh < (g + 1) * group; ++hh) {
      apply_rope(q.data() + t * qd + hh * hd, cs, sn, hd);
    }
    const Request& r = *batch.seqs[static_cast<size_t>(tok_seq[static_cast<size_t>(t)])].request;
    const int64_t pos = tok_pos[static_cast<size_t>(t)];
    const int64_t block = r.block_ids[static_cast<size_t>(pos / kv.block_size)];
    const int64_t slot = pos % kv.block_size;
    float* kk = k.data() + t * kvd + g * hd;
    apply_rope(kk, cs, sn, hd);
    float* kt = kv.k.get() + kv.k_index(li, block, g, slot, 0);  // transposed: stride block_size
    for (int64_t i = 0; i < hd; ++i) kt[i * kv.block_size] = kk[i];
    const float* vv = v.data() + t * kvd + g * hd;
    std::copy(vv, vv + hd, kv.v.get() + kv.v_offset(li, block, g, slot));
  };
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  // Token t's query heads of KV head g, together (they share the K/V loads).
  auto attend = [&](int64_t t, int64_t g) {
    thread_local std::vector<float> scores;
    const Request& r = *batch.seqs[static_cast<size_t>(tok_seq[static_cast<size_t>(t)])].request;
    const int64_t first_head = g * group;
    // Only a sequence's first token of the step fetches its blocks ahead: the later ones read
    // the blocks it just read.
    const bool first_of_seq =
        t == 0 || tok_seq[static_cast<size_t>(t - 1)] != tok_seq[static_cast<size_t>(t)];
    paged_attention(q.data() + t * qd + first_head * hd, group, kv, li, g, r.block_ids,
                    tok_pos[static_cast<size_t>(t)], scale, scores,
                    attn.data() + t * qd + first_head * hd, first_of_seq);
  };
  // A token's attention reads only its own sequence's K/V of its KV head, so one task per
  // (sequence, KV head) can cache its tokens and then attend for them, all in one parallel loop.
  // With too few such pairs to share out (a long prompt alone), caching runs first on this
  // thread and attention is shared out per (token, KV head). Same arithmetic either way.
  const int64_t pairs = static_cast<int64_t>(seq_tokens.size()) * nkv;
  if (pairs >= 2 * pool.size()) {
    auto cache_and_attend = [&](int64_t task) {
      const auto [first, count] = seq_tokens[static_cast<size_t>(task / nkv)];
      const int64_t g = task % nkv;
      for (int64_t t = first; t < first + count; ++t) cache_token(t, g);
      for (int64_t t = first; t < first + count; ++t) attend(t, g);
    };
    pool.run(pairs, cache_and_attend);
  } else {
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t g = 0; g < nkv; ++g) cache_token(t, g);
    }
    auto attend_task = [&](int64_t task) { attend(task / nkv, task % nkv); };
    if (T * nkv >= 4) {
      pool.run(T * nkv, attend_task);
    } else {
      for (int64_t task = 0; task < T * nkv; ++task) attend_task(task);
    }
  }
  const MatmulPart o[] = {{&pw.o_proj, nullptr, tmp.data(), h}};
  matmul(&pool, attn.data(), qd, T, qd, o);
  add_in_place(x.data(), tmp.data(), T * h);

  // MLP block.
  for (int64_t t = 0; t < T; ++t) {
    rms_norm(x.data() + t * h, w.ffn_norm.data(), h, c.rms_norm_eps, xn.data() + t * h);
  }
  matmul_swiglu(&pool, xn.data(), h, T, h, pw.gate_proj, pw.up_proj, gate.data(), f);
  const MatmulPart down[] = {{&pw.down_proj, nullptr, tmp.data(), h}};
  matmul(&pool, gate.data(), f, T, f, down);
  add_in_place(x.data(), tmp.data(), T * h);
}

void CpuBackend::Impl::forward(const SchedulerOutput& batch, std::vector<int32_t>& sampled) {
  const ModelConfig& c = weights->config;
  gather(batch);
  for (int64_t li = 0; li < c.num_hidden_layers; ++li) layer(li, batch);
  const int64_t S = static_cast<int64_t>(sample_rows.size());
  if (S > 0) {
    const int64_t h = c.hidden_size, vocab = c.vocab_size;
    final_x.resize(static_cast<size_t>(S * h));
    for (int64_t s = 0; s < S; ++s) head(sample_rows[static_cast<size_t>(s)], s);
    logits.resize(static_cast<size_t>(S * vocab));
    lm_head(S);
    for (int64_t s = 0; s < S; ++s) {
      const size_t i = sample_seq[static_cast<size_t>(s)];
      const Request& r = *batch.seqs[i].request;
      const std::span<const float> row(logits.data() + s * vocab, static_cast<size_t>(vocab));
      if (options.on_logits) options.on_logits(r, row);
      // vLLM's order: allowed_token_ids, min_tokens' mask, logit_bias, then the penalties; the
      // logprobs stay the raw ones.
      std::span<const float> drawn_from = row;
      if (adjusts_logits(r.params, r.num_output_tokens)) {
        if (has_penalties(r.params) && !r.keep_output_tokens) {
          throw std::invalid_argument("cpu backend: request " + r.external_id +
                                      " has penalties but keeps no output tokens");
        }
        adjusted.assign(row.begin(), row.end());
        keep_allowed_tokens(adjusted, r.params);
        hold_back_stop_tokens(adjusted, r.params, c.eos_token_ids, r.num_output_tokens);
        add_logit_bias(adjusted, r.params);
        apply_penalties(adjusted, r.params, r.prompt_tokens, r.output_tokens);
        drawn_from = adjusted;
      }
      sampled[i] = sample_token(drawn_from, r.params, sampling_seed(r.params, r.num_output_tokens));
      if (r.params.logprobs >= 0) {
        entry(i).sampled = position_logprobs(row, sampled[i], r.params.logprobs);
      }
    }
  }
  if (!prompt_rows.empty()) prompt_logprobs(batch);
}

void CpuBackend::Impl::lm_head(int64_t rows) {
  const int64_t vocab = weights->config.vocab_size;
  const int64_t h = weights->config.hidden_size;
  const MatmulPart part[] = {{&packed->output, nullptr, logits.data(), vocab}};
  matmul(&pool, final_x.data(), h, rows, h, part);
}

void CpuBackend::Impl::head(int64_t row, int64_t out_row) {
  const ModelConfig& c = weights->config;
  rms_norm(x.data() + row * c.hidden_size, weights->final_norm.data(), c.hidden_size,
           c.rms_norm_eps, final_x.data() + out_row * c.hidden_size);
}

SeqLogprobs& CpuBackend::Impl::entry(size_t seq) {
  for (SeqLogprobs& e : step_logprobs.seqs) {
    if (e.seq == seq) return e;
  }
  step_logprobs.seqs.emplace_back();
  step_logprobs.seqs.back().seq = seq;
  return step_logprobs.seqs.back();
}

// The log-probability of each prompt row's next prompt token. The rows go through the LM head
// kPromptRowsPerPass at a time, so a long prompt needs no logits buffer of its length; a row's
// logits do not depend on the other rows of the pass.
void CpuBackend::Impl::prompt_logprobs(const SchedulerOutput& batch) {
  constexpr size_t kPromptRowsPerPass = 64;
  const int64_t h = weights->config.hidden_size, vocab = weights->config.vocab_size;
  for (size_t first = 0; first < prompt_rows.size(); first += kPromptRowsPerPass) {
    const size_t n = std::min(kPromptRowsPerPass, prompt_rows.size() - first);
    final_x.resize(n * static_cast<size_t>(h));
    for (size_t j = 0; j < n; ++j) head(prompt_rows[first + j], static_cast<int64_t>(j));
    logits.resize(n * static_cast<size_t>(vocab));
    lm_head(static_cast<int64_t>(n));
    for (size_t j = 0; j < n; ++j) {
      const size_t i = prompt_seq[first + j];
      const Request& r = *batch.seqs[i].request;
      const std::span<const float> row(logits.data() + static_cast<int64_t>(j) * vocab,
                                       static_cast<size_t>(vocab));
      SeqLogprobs& e = entry(i);
      const int64_t position = prompt_pos[first + j];
      if (e.prompt.empty()) e.first_prompt_position = position;
      e.prompt.push_back(position_logprobs(row, token_at(r, position), r.params.prompt_logprobs));
    }
  }
}

}  // namespace llm
