#include "backends/model/model_tensors.h"

namespace llm {

int64_t ModelTensor::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<uint64_t> ModelTensor::gguf_dims() const { return {shape.rbegin(), shape.rend()}; }

std::vector<ModelTensor> model_tensors(const ModelConfig& c) {
  using K = ModelTensor::Kind;
  const int64_t h = c.hidden_size, q = c.num_attention_heads * c.head_dim,
                kv = c.num_key_value_heads * c.head_dim, f = c.intermediate_size, v = c.vocab_size;
  std::vector<ModelTensor> out;
  out.push_back({K::kTokEmbeddings, -1, "model.embed_tokens.weight", "token_embd.weight", {v, h}});
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    const std::string hf = "model.layers." + std::to_string(i) + ".";
    const std::string gg = "blk." + std::to_string(i) + ".";
    auto add = [&](K kind, const std::string& hf_suffix, const std::string& gguf_suffix,
                   std::vector<int64_t> shape, int64_t rope_heads = 0) {
      out.push_back({kind, i, hf + hf_suffix, gg + gguf_suffix, std::move(shape), rope_heads});
    };
    add(K::kAttnNorm, "input_layernorm.weight", "attn_norm.weight", {h});
    add(K::kQProj, "self_attn.q_proj.weight", "attn_q.weight", {q, h}, c.num_attention_heads);
    add(K::kKProj, "self_attn.k_proj.weight", "attn_k.weight", {kv, h}, c.num_key_value_heads);
    add(K::kVProj, "self_attn.v_proj.weight", "attn_v.weight", {kv, h});
    add(K::kOProj, "self_attn.o_proj.weight", "attn_output.weight", {h, q});
    if (c.attention_bias) {
      add(K::kQBias, "self_attn.q_proj.bias", "attn_q.bias", {q}, c.num_attention_heads);
      add(K::kKBias, "self_attn.k_proj.bias", "attn_k.bias", {kv}, c.num_key_value_heads);
      add(K::kVBias, "self_attn.v_proj.bias", "attn_v.bias", {kv});
    }
    add(K::kFfnNorm, "post_attention_layernorm.weight", "ffn_norm.weight", {h});
    add(K::kGateProj, "mlp.gate_proj.weight", "ffn_gate.weight", {f, h});
    add(K::kUpProj, "mlp.up_proj.weight", "ffn_up.weight", {f, h});
    add(K::kDownProj, "mlp.down_proj.weight", "ffn_down.weight", {h, f});
  }
  out.push_back({K::kFinalNorm, -1, "model.norm.weight", "output_norm.weight", {h}});
  if (!c.tie_word_embeddings) {
    out.push_back({K::kLmHead, -1, "lm_head.weight", "output.weight", {v, h}});
  }
  return out;
}

std::vector<float>& tensor_data(ModelWeights& w, const ModelTensor& t) {
  using K = ModelTensor::Kind;
  switch (t.kind) {
    case K::kTokEmbeddings:
      return w.tok_embeddings;
    case K::kFinalNorm:
      return w.final_norm;
    case K::kLmHead:
      return w.lm_head;
    default:
      break;
  }
  LayerWeights& l = w.layers.at(static_cast<size_t>(t.layer));
  switch (t.kind) {
    case K::kAttnNorm:
      return l.attn_norm;
    case K::kQProj:
      return l.q_proj;
    case K::kKProj:
      return l.k_proj;
    case K::kVProj:
      return l.v_proj;
    case K::kOProj:
      return l.o_proj;
    case K::kQBias:
      return l.q_bias;
    case K::kKBias:
      return l.k_bias;
    case K::kVBias:
      return l.v_bias;
    case K::kFfnNorm:
      return l.ffn_norm;
    case K::kGateProj:
      return l.gate_proj;
    case K::kUpProj:
      return l.up_proj;
    default:
      return l.down_proj;
  }
}

const std::vector<float>& tensor_data(const ModelWeights& w, const ModelTensor& t) {
  return tensor_data(const_cast<ModelWeights&>(w), t);  // the non-const overload only selects
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace llm
