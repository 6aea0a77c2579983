// CudaBackend: the decoder on the GPU (cuda_backend.h). One stream; per step: the StepLayout
// (tokens, positions, CSR page table, sample rows) and the sampling rows are uploaded with one copy
// each, the layers run as cuBLAS GEMMs and kernels/ launches, and the sampled tokens come back in
// one copy. Pure-decode steps replay a CUDA graph captured per batch-size bucket; prefill and mixed
// steps run eagerly.
#include "backends/cuda/cuda_backend.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "backends/cpu/logprobs.h"
#include "backends/cpu/rope.h"
#include "backends/cuda/device/cublas_gemm.h"
#include "backends/cuda/device/cuda_check.h"
#include "backends/cuda/device/device_array.h"
#include "backends/cuda/graph_buckets.h"
#include "backends/cuda/step_layout.h"
#include "backends/cuda/weight_packing.h"
#include "core/ceil_div.h"
#include "kernels/elementwise.h"
#include "kernels/paged_attention.h"
#include "kernels/rope_kv_write.h"
#include "kernels/sampling.h"

namespace llm {
namespace {

constexpr int32_t kPartition = 512;  // attention tokens per split
constexpr size_t kCublasWorkspace = size_t{32} << 20;

template <typename T>
DeviceArray<T> upload(const std::vector<T>& host) {
  DeviceArray<T> d(host.size());
  if (!host.empty()) {
    LLM_CUDA_CHECK(
        cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  return d;
}

void check_model(const ModelWeights& w) {
  const ModelConfig& c = w.config;
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("cuda backend: unsupported model: " + what);
  };
  check_attention_shape(c, "cuda backend");
  const int64_t group = c.num_attention_heads / c.num_key_value_heads;
  if (!kernels::paged_attention_supports(static_cast<int32_t>(c.head_dim),
                                         static_cast<int32_t>(group))) {
    fail("head_dim " + std::to_string(c.head_dim) + " with GQA group " + std::to_string(group) +
         " (the attention kernel takes head_dim <= 256 and groups <= 16)");
  }
  if (c.mlp_bias) fail("mlp_bias");
  check_weight_shapes(w, "cuda backend");
}

struct DeviceLayer {
  DeviceArray<uint16_t> qkv, o, gate_up, down;
  DeviceArray<float> attn_norm, ffn_norm, q_bias, k_bias, v_bias;
};

// Device pointers of one step's int arrays and its sizes.
struct StepPointers {
  const int32_t* token_ids;
  const int32_t* token_seq;
  const int32_t* token_pos;
  kernels::PageTableView pages;
  const int32_t* sample_token;
  int32_t tokens;
  int32_t samples;
  int32_t num_splits;
};

// The int arrays of a decode graph of bucket B sit at fixed offsets, so the captured kernels'
// pointers stay valid: ids, seq, pos [B] each, indptr [B+1], last_page_len [B], sample rows [B],
// then indices.
struct GraphOffsets {
  int64_t ids, seq, pos, indptr, last, sample, indices, total;
};
GraphOffsets graph_offsets(int64_t b, int64_t max_indices) {
  return {0, b, 2 * b, 3 * b, 4 * b + 1, 5 * b + 1, 6 * b + 1, 6 * b + 1 + max_indices};
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(std::shared_ptr<const ModelWeights> weights, const CudaBackendOptions& options);
  ~CudaBackend() override;

  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override;
  const StepLogprobs& logprobs() const override { return step_logprobs_; }
  int32_t eos_token_id() const override {
    const auto& eos = weights_->config.eos_token_ids;
    return eos.empty() ? -1 : eos[0];
  }

 private:
  void upload_weights();
  void allocate_buffers();
  void forward(const StepPointers& p);
  StepPointers eager_pointers(const StepLayout& l, int32_t num_splits);
  void upload_sampling(const SchedulerOutput& batch, const StepLayout& l, int32_t rows);
  void capture_graphs();
  void run_graph(int32_t bucket, const StepLayout& l);
  void finish(const SchedulerOutput& batch, const StepLayout& l, std::vector<int32_t>& sampled);

  std::shared_ptr<const ModelWeights> weights_;
  CudaBackendOptions options_;
  int64_t h_, hd_, nh_, nkv_, ffn_, vocab_, qkv_dim_;
  int64_t max_tokens_, max_rows_, max_splits_, max_indices_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;

  // Weights (constant after construction).
  std::vector<DeviceLayer> layers_;
  DeviceArray<uint16_t> embed_, lm_head_;
  DeviceArray<float> final_norm_;
  DeviceArray<double> inv_freq_;
  // KV cache: per layer, K then V, each [num_blocks][kv_heads][block_size][head_dim].
  DeviceArray<uint8_t> kv_;
  int64_t kv_layer_bytes_ = 0;
  // Step scratch, reused (sized for max_tokens_ tokens and max_rows_ sampling rows).
  DeviceArray<float> x_, delta_, logits_, attn_ws_;
  DeviceArray<uint16_t> xn_, qkv_, attn_, gate_up_, act_, final_xn_;
  DeviceArray<double> sample_ws_;
  DeviceArray<int32_t> ints_, graph_ints_, tokens_;
  DeviceArray<kernels::SamplingRow> params_;
  DeviceArray<uint8_t> cublas_ws_;
  PinnedArray<int32_t> host_ints_, host_tokens_;
  PinnedArray<kernels::SamplingRow> host_params_;
  PinnedArray<float> host_logits_;
  // Decode graphs by bucket (index i: buckets_[i]).
  std::vector<int32_t> buckets_;
  std::vector<cudaGraphExec_t> graphs_;
  StepLayout layout_;
  StepLogprobs step_logprobs_;
};

CudaBackend::CudaBackend(std::shared_ptr<const ModelWeights> weights,
                         const CudaBackendOptions& options)
    : weights_(std::move(weights)), options_(options) {
  const ModelConfig& c = weights_->config;
  h_ = c.hidden_size;
  hd_ = c.head_dim;
  nh_ = c.num_attention_heads;
  nkv_ = c.num_key_value_heads;
  ffn_ = c.intermediate_size;
  vocab_ = c.vocab_size;
  qkv_dim_ = (nh_ + 2 * nkv_) * hd_;
  buckets_ =
      options_.cuda_graphs ? decode_graph_buckets(options_.max_num_seqs) : std::vector<int32_t>{};
  const int64_t largest_bucket = buckets_.empty() ? 0 : buckets_.back();
  max_tokens_ = std::max<int64_t>({options_.max_num_batched_tokens, largest_bucket, 1});
  max_rows_ = std::max<int64_t>({options_.max_num_seqs, largest_bucket, 1});
  max_splits_ = std::max<int64_t>(1, ceil_div(options_.max_model_len, kPartition));
  max_indices_ = max_rows_ * ceil_div(options_.max_model_len, options_.block_size);
  LLM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  LLM_CUDA_CHECK(cublasCreate(&cublas_));
  LLM_CUDA_CHECK(cublasSetStream(cublas_, stream_));
  upload_weights();
  allocate_buffers();
  LLM_CUDA_CHECK(cublasSetWorkspace(cublas_, cublas_ws_.get(), cublas_ws_.size()));
  capture_graphs();
}

CudaBackend::~CudaBackend() {
  for (cudaGraphExec_t g : graphs_) cudaGraphExecDestroy(g);
  if (cublas_) cublasDestroy(cublas_);
  if (stream_) cudaStreamDestroy(stream_);
}

void CudaBackend::upload_weights() {
  const ModelWeights& w = *weights_;
  embed_ = upload(to_bf16(w.tok_embeddings));
  if (!w.config.tie_word_embeddings) lm_head_ = upload(to_bf16(w.lm_head));
  final_norm_ = upload(w.final_norm);
  inv_freq_ = upload(rope_inv_freq(w.config));
  for (const LayerWeights& l : w.layers) {
    DeviceLayer d;
    d.qkv = upload(pack_qkv(l));
    d.o = upload(to_bf16(l.o_proj));
    d.gate_up = upload(pack_gate_up(l));
    d.down = upload(to_bf16(l.down_proj));
    d.attn_norm = upload(l.attn_norm);
    d.ffn_norm = upload(l.ffn_norm);
    d.q_bias = upload(l.q_bias);
    d.k_bias = upload(l.k_bias);
    d.v_bias = upload(l.v_bias);
    layers_.push_back(std::move(d));
  }
}

void CudaBackend::allocate_buffers() {
  const int64_t T = max_tokens_, R = max_rows_;
  kv_layer_bytes_ =
      options_.num_blocks * nkv_ * options_.block_size * hd_ * options_.kv_dtype_bytes;
  kv_ = DeviceArray<uint8_t>(
      static_cast<size_t>(2 * kv_layer_bytes_ * static_cast<int64_t>(layers_.size())));
  x_ = DeviceArray<float>(static_cast<size_t>(T * h_));
  delta_ = DeviceArray<float>(static_cast<size_t>(T * h_));
  xn_ = DeviceArray<uint16_t>(static_cast<size_t>(T * h_));
  qkv_ = DeviceArray<uint16_t>(static_cast<size_t>(T * qkv_dim_));
  attn_ = DeviceArray<uint16_t>(static_cast<size_t>(T * nh_ * hd_));
  gate_up_ = DeviceArray<uint16_t>(static_cast<size_t>(T * 2 * ffn_));
  act_ = DeviceArray<uint16_t>(static_cast<size_t>(T * ffn_));
  final_xn_ = DeviceArray<uint16_t>(static_cast<size_t>(R * h_));
  logits_ = DeviceArray<float>(static_cast<size_t>(R * vocab_));
  sample_ws_ = DeviceArray<double>(static_cast<size_t>(R * vocab_));
  attn_ws_ = DeviceArray<float>(static_cast<size_t>(std::max<int64_t>(
      1, kernels::paged_attention_workspace_floats(
             static_cast<int32_t>(T), static_cast<int32_t>(nh_), static_cast<int32_t>(hd_),
             static_cast<int32_t>(std::max<int64_t>(max_splits_, 2))))));
  const int64_t ints = 3 * T + 3 * R + 2 + max_indices_ + 8;
  ints_ = DeviceArray<int32_t>(static_cast<size_t>(ints));
  graph_ints_ = DeviceArray<int32_t>(static_cast<size_t>(ints));
  host_ints_ = PinnedArray<int32_t>(static_cast<size_t>(ints));
  tokens_ = DeviceArray<int32_t>(static_cast<size_t>(R));
  host_tokens_ = PinnedArray<int32_t>(static_cast<size_t>(R));
  params_ = DeviceArray<kernels::SamplingRow>(static_cast<size_t>(R));
  host_params_ = PinnedArray<kernels::SamplingRow>(static_cast<size_t>(R));
  cublas_ws_ = DeviceArray<uint8_t>(kCublasWorkspace);
}

void CudaBackend::forward(const StepPointers& p) {
  const ModelConfig& c = weights_->config;
  const auto eps = static_cast<float>(c.rms_norm_eps);
  const int32_t T = p.tokens, h = static_cast<int32_t>(h_);
  LLM_CUDA_CHECK(kernels::embedding_gather(p.token_ids, embed_.get(), T, h, x_.get(), stream_));
  for (size_t li = 0; li < layers_.size(); ++li) {
    const DeviceLayer& w = layers_[li];
    LLM_CUDA_CHECK(kernels::add_rms_norm(x_.get(), li == 0 ? nullptr : delta_.get(), nullptr,
                                         w.attn_norm.get(), T, h, eps, xn_.get(), stream_));
    gemm_bf16(cublas_, xn_.get(), w.qkv.get(), T, h_, qkv_dim_, qkv_.get(), GemmOut::kBf16);
    kernels::PagedKvLayer kv;
    kv.k = kv_.get() + (2 * static_cast<int64_t>(li)) * kv_layer_bytes_;
    kv.v = kv_.get() + (2 * static_cast<int64_t>(li) + 1) * kv_layer_bytes_;
    kv.num_blocks = static_cast<int32_t>(options_.num_blocks);
    kv.kv_heads = static_cast<int32_t>(nkv_);
    kv.block_size = options_.block_size;
    kv.head_dim = static_cast<int32_t>(hd_);
    kv.dtype = options_.kv_dtype_bytes == 1 ? kernels::KvDtype::kFp8E4m3 : kernels::KvDtype::kBf16;
    kernels::RopeKvWriteArgs r;
    r.qkv = qkv_.get();
    r.row_stride = static_cast<int32_t>(qkv_dim_);
    r.q_bias = w.q_bias.get();
    r.k_bias = w.k_bias.get();
    r.v_bias = w.v_bias.get();
    r.inv_freq = inv_freq_.get();
    r.token_seq = p.token_seq;
    r.token_pos = p.token_pos;
    r.pages = p.pages;
    r.kv = kv;
    r.tokens = T;
    r.q_heads = static_cast<int32_t>(nh_);
    LLM_CUDA_CHECK(kernels::rope_kv_write(r, stream_));
    kernels::PagedAttentionArgs a;
    a.q = qkv_.get();
    a.q_stride = static_cast<int32_t>(qkv_dim_);
    a.out = attn_.get();
    a.row_seq = p.token_seq;
    a.row_pos = p.token_pos;
    a.pages = p.pages;
    a.kv = kv;
    a.rows = T;
    a.q_heads = static_cast<int32_t>(nh_);
    a.scale = 1.0f / std::sqrt(static_cast<float>(hd_));
    a.num_splits = p.num_splits;
    a.partition = kPartition;
    a.workspace = attn_ws_.get();
    LLM_CUDA_CHECK(kernels::paged_attention(a, stream_));
    gemm_bf16(cublas_, attn_.get(), w.o.get(), T, nh_ * hd_, h_, delta_.get(), GemmOut::kFp32);
    LLM_CUDA_CHECK(kernels::add_rms_norm(x_.get(), delta_.get(), nullptr, w.ffn_norm.get(), T, h,
                                         eps, xn_.get(), stream_));
    gemm_bf16(cublas_, xn_.get(), w.gate_up.get(), T, h_, 2 * ffn_, gate_up_.get(), GemmOut::kBf16);
    LLM_CUDA_CHECK(
        kernels::silu_mul(gate_up_.get(), T, static_cast<int32_t>(ffn_), act_.get(), stream_));
    gemm_bf16(cublas_, act_.get(), w.down.get(), T, ffn_, h_, delta_.get(), GemmOut::kFp32);
  }
  if (p.samples == 0) return;
  // The last layer's MLP delta is added only to the sampled rows, the only ones read after it.
  LLM_CUDA_CHECK(kernels::add_rms_norm(x_.get(), delta_.get(), p.sample_token, final_norm_.get(),
                                       p.samples, h, eps, final_xn_.get(), stream_));
  const uint16_t* head = c.tie_word_embeddings ? embed_.get() : lm_head_.get();
  gemm_bf16(cublas_, final_xn_.get(), head, p.samples, h_, vocab_, logits_.get(), GemmOut::kFp32);
  LLM_CUDA_CHECK(kernels::sample_tokens(logits_.get(), params_.get(), p.samples,
                                        static_cast<int32_t>(vocab_), sample_ws_.get(),
                                        tokens_.get(), stream_));
}

StepPointers CudaBackend::eager_pointers(const StepLayout& l, int32_t num_splits) {
  if (static_cast<size_t>(l.packed.size()) > ints_.size()) {
    throw std::invalid_argument("cuda backend: a step of " + std::to_string(l.num_tokens) +
                                " tokens exceeds the buffers sized for --max-num-batched-tokens");
  }
  std::copy(l.packed.begin(), l.packed.end(), host_ints_.get());
  LLM_CUDA_CHECK(cudaMemcpyAsync(ints_.get(), host_ints_.get(), l.packed.size() * sizeof(int32_t),
                                 cudaMemcpyHostToDevice, stream_));
  const int32_t* d = ints_.get();
  return {d + l.token_ids,    d + l.token_seq,
          d + l.token_pos,    {d + l.indptr, d + l.indices, d + l.last_page_len, l.num_seqs},
          d + l.sample_token, l.num_tokens,
          l.num_samples,      num_splits};
}

// Sampling rows 0..rows-1: the step's sampling sequences, then greedy padding rows.
void CudaBackend::upload_sampling(const SchedulerOutput& batch, const StepLayout& l, int32_t rows) {
  for (int32_t r = 0; r < rows; ++r) {
    kernels::SamplingRow& row = host_params_.get()[r];
    row = kernels::SamplingRow{};
    if (r >= l.num_samples) {
      row.temperature = 0;
      continue;
    }
    const Request& q =
        *batch.seqs[static_cast<size_t>(l.sample_seq[static_cast<size_t>(r)])].request;
    row.temperature = q.params.temperature;
    row.top_p = q.params.top_p;
    row.top_k = q.params.top_k;
    row.seed = q.params.seed;
    row.counter = static_cast<uint64_t>(q.num_output_tokens);
  }
  if (rows == 0) return;
  LLM_CUDA_CHECK(cudaMemcpyAsync(params_.get(), host_params_.get(),
                                 static_cast<size_t>(rows) * sizeof(kernels::SamplingRow),
                                 cudaMemcpyHostToDevice, stream_));
}

void CudaBackend::capture_graphs() {
  if (buckets_.empty()) return;
  // A warm-up step of one padding token (nothing is written to the cache) runs every kernel and
  // GEMM once, so nothing is first initialised during a capture.
  StepLayout warm;
  // id, seq (-1: padding), pos, indptr {0, 1}, indices {0}, last_page_len {1}, sample row {0}.
  warm.packed = {0, -1, 0, 0, 1, 0, 1, 0};
  warm.num_tokens = 1;
  warm.token_ids = 0;
  warm.token_seq = 1;
  warm.token_pos = 2;
  warm.indptr = 3;
  warm.indices = 5;
  warm.last_page_len = 6;
  warm.sample_token = 7;
  warm.num_seqs = 1;
  warm.num_samples = 1;
  upload_sampling(SchedulerOutput{}, StepLayout{}, 1);
  forward(eager_pointers(warm, 1));
  LLM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  for (int32_t b : buckets_) {
    const GraphOffsets o = graph_offsets(b, max_indices_);
    const int32_t* d = graph_ints_.get();
    const StepPointers p{
        d + o.ids,    d + o.seq, d + o.pos, {d + o.indptr, d + o.indices, d + o.last, b},
        d + o.sample, b,         b,         static_cast<int32_t>(max_splits_)};
    cudaGraph_t graph = nullptr;
    LLM_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    forward(p);
    LLM_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    cudaGraphExec_t exec = nullptr;
    LLM_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    cudaGraphDestroy(graph);
    graphs_.push_back(exec);
  }
}

void CudaBackend::run_graph(int32_t bucket, const StepLayout& l) {
  const GraphOffsets o = graph_offsets(bucket, max_indices_);
  int32_t* h = host_ints_.get();
  const int32_t T = l.num_tokens;  // == l.num_seqs == l.num_samples in a pure decode step
  const int32_t indices = l.at(l.indptr)[l.num_seqs];
  if (indices > max_indices_) throw std::invalid_argument("cuda backend: block table too long");
  for (int32_t i = 0; i < bucket; ++i) {
    const bool real = i < T;
    h[o.ids + i] = real ? l.at(l.token_ids)[i] : 0;
    h[o.seq + i] = real ? l.at(l.token_seq)[i] : -1;
    h[o.pos + i] = real ? l.at(l.token_pos)[i] : 0;
    h[o.last + i] = real ? l.at(l.last_page_len)[i] : 1;
    h[o.sample + i] = real ? l.at(l.sample_token)[i] : i;  // a padding row reads its own token
  }
  for (int32_t i = 0; i <= bucket; ++i) h[o.indptr + i] = l.at(l.indptr)[std::min(i, T)];
  std::copy(l.at(l.indices), l.at(l.indices) + indices, h + o.indices);
  LLM_CUDA_CHECK(cudaMemcpyAsync(graph_ints_.get(), h,
                                 static_cast<size_t>(o.indices + indices) * sizeof(int32_t),
                                 cudaMemcpyHostToDevice, stream_));
  size_t index = 0;
  while (buckets_[index] != bucket) ++index;
  LLM_CUDA_CHECK(cudaGraphLaunch(graphs_[index], stream_));
}

Nanos CudaBackend::execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) {
  sampled.assign(batch.seqs.size(), -1);
  step_logprobs_.clear();
  if (batch.seqs.empty()) return 0;
  build_step_layout(batch, options_.block_size, options_.num_blocks, vocab_, request_token_at,
                    layout_);
  const StepLayout& l = layout_;
  if (l.num_tokens == 0) return 0;
  if (l.num_tokens > max_tokens_ || l.num_samples > max_rows_) {
    throw std::invalid_argument("cuda backend: a step of " + std::to_string(l.num_tokens) +
                                " tokens and " + std::to_string(l.num_samples) +
                                " samples exceeds its buffers");
  }
  const bool graphable = l.pure_decode && l.num_samples == l.num_tokens;
  const int32_t bucket = graphable ? decode_graph_bucket(l.num_tokens, buckets_) : 0;
  if (bucket > 0) {
    upload_sampling(batch, l, bucket);
    run_graph(bucket, l);
  } else {
    upload_sampling(batch, l, l.num_samples);
    const auto splits = static_cast<int32_t>(ceil_div(l.max_context, kPartition));
    forward(eager_pointers(l, std::max(1, splits)));
  }
  finish(batch, l, sampled);
  return 0;
}

void CudaBackend::finish(const SchedulerOutput& batch, const StepLayout& l,
                         std::vector<int32_t>& sampled) {
  const int32_t R = l.num_samples;
  if (R == 0) {
    LLM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return;
  }
  LLM_CUDA_CHECK(cudaMemcpyAsync(host_tokens_.get(), tokens_.get(),
                                 static_cast<size_t>(R) * sizeof(int32_t), cudaMemcpyDeviceToHost,
                                 stream_));
  bool want_logits = static_cast<bool>(options_.on_logits);
  for (int32_t r = 0; r < R && !want_logits; ++r) {
    want_logits = batch.seqs[static_cast<size_t>(l.sample_seq[static_cast<size_t>(r)])]
                      .request->params.logprobs >= 0;
  }
  if (want_logits) {
    if (host_logits_.size() < static_cast<size_t>(R * vocab_)) {
      host_logits_ = PinnedArray<float>(static_cast<size_t>(max_rows_ * vocab_));
    }
    LLM_CUDA_CHECK(cudaMemcpyAsync(host_logits_.get(), logits_.get(),
                                   static_cast<size_t>(R * vocab_) * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream_));
  }
  LLM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  for (int32_t r = 0; r < R; ++r) {
    const size_t i = static_cast<size_t>(l.sample_seq[static_cast<size_t>(r)]);
    sampled[i] = host_tokens_.get()[r];
    if (!want_logits) continue;
    const Request& q = *batch.seqs[i].request;
    const std::span<const float> row(host_logits_.get() + r * vocab_, static_cast<size_t>(vocab_));
    if (options_.on_logits) options_.on_logits(q, row);
    if (q.params.logprobs >= 0) {
      step_logprobs_.seqs.emplace_back();
      step_logprobs_.seqs.back().seq = i;
      step_logprobs_.seqs.back().sampled = position_logprobs(row, sampled[i], q.params.logprobs);
    }
  }
}

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(std::shared_ptr<const ModelWeights> weights,
                                           const CudaBackendOptions& options) {
  if (!weights) throw std::invalid_argument("cuda backend: no model weights");
  const CudaDeviceInfo device = probe_cuda_device();
  if (!device.usable) throw std::runtime_error(device.problem);
  check_model(*weights);
  if (options.num_blocks <= 0 || options.block_size <= 0) {
    throw std::invalid_argument("cuda backend: the KV cache needs blocks (num_blocks, block_size)");
  }
  if (options.kv_dtype_bytes != 1 && options.kv_dtype_bytes != 2) {
    throw std::invalid_argument("cuda backend: kv_dtype_bytes must be 1 (fp8) or 2 (bf16)");
  }
  return std::make_unique<CudaBackend>(std::move(weights), options);
}

}  // namespace llm
