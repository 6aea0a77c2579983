#include "backends/cpu/packed_model.h"

#include <cstdint>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>

#include "backends/cpu/thread_pool.h"

namespace llm {

PackedModel pack_model(const ModelWeights& w, ThreadPool* pool) {
  const ModelConfig& c = w.config;
  const int64_t h = c.hidden_size, qd = c.num_attention_heads * c.head_dim,
                kvd = c.num_key_value_heads * c.head_dim, f = c.intermediate_size;
  PackedModel m;
  m.layers.resize(w.layers.size());
  const int64_t n = static_cast<int64_t>(w.layers.size());
  std::mutex mu;
  std::exception_ptr failure;  // the first task's failure (out of memory), rethrown at the end
  // Task i < n packs layer i; task n packs the output head.
  auto pack_one = [&](int64_t i) {
    if (i == n) {
      m.output = pack_matrix(w.output_matrix().data(), c.vocab_size, h);
      return;
    }
    const LayerWeights& l = w.layers[static_cast<size_t>(i)];
    PackedLayer& p = m.layers[static_cast<size_t>(i)];
    p.q_proj = pack_matrix(l.q_proj.data(), qd, h);
    p.k_proj = pack_matrix(l.k_proj.data(), kvd, h);
    p.v_proj = pack_matrix(l.v_proj.data(), kvd, h);
    p.o_proj = pack_matrix(l.o_proj.data(), h, qd);
    p.gate_proj = pack_matrix(l.gate_proj.data(), f, h);
    p.up_proj = pack_matrix(l.up_proj.data(), f, h);
    p.down_proj = pack_matrix(l.down_proj.data(), h, f);
  };
  auto pack = [&](int64_t i) {  // the pool's tasks must not throw
    try {
      pack_one(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!failure) failure = std::current_exception();
    }
  };
  if (pool) {
    pool->run(n + 1, pack);
  } else {
    for (int64_t i = 0; i <= n; ++i) pack(i);
  }
  if (failure) std::rethrow_exception(failure);
  return m;
}

void drop_packed_matrices(ModelWeights& w) {
  auto drop = [](std::vector<float>& v) { std::vector<float>().swap(v); };
  for (LayerWeights& l : w.layers) {
    for (std::vector<float>* m :
         {&l.q_proj, &l.k_proj, &l.v_proj, &l.o_proj, &l.gate_proj, &l.up_proj, &l.down_proj}) {
      drop(*m);
    }
  }
  drop(w.lm_head);  // empty already when tied: the output is the embedding table
}

void check_packed_model(const PackedModel& m, const ModelConfig& c, const std::string& label) {
  const int64_t h = c.hidden_size, qd = c.num_attention_heads * c.head_dim,
                kvd = c.num_key_value_heads * c.head_dim, f = c.intermediate_size;
  auto check = [&](const PackedMatrix& p, int64_t n, int64_t k, const std::string& name) {
    if (p.n != n || p.k != k || !p.data) {
      throw std::invalid_argument(label + ": the packed model's " + name + " is " +
                                  std::to_string(p.n) + " x " + std::to_string(p.k) +
                                  ", the config says " + std::to_string(n) + " x " +
                                  std::to_string(k));
    }
  };
  if (static_cast<int64_t>(m.layers.size()) != c.num_hidden_layers) {
    throw std::invalid_argument(label + ": the packed model has " +
                                std::to_string(m.layers.size()) + " layers, the config says " +
                                std::to_string(c.num_hidden_layers));
  }
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const PackedLayer& l = m.layers[i];
    const std::string p = "layer " + std::to_string(i) + " ";
    check(l.q_proj, qd, h, p + "q_proj");
    check(l.k_proj, kvd, h, p + "k_proj");
    check(l.v_proj, kvd, h, p + "v_proj");
    check(l.o_proj, h, qd, p + "o_proj");
    check(l.gate_proj, f, h, p + "gate_proj");
    check(l.up_proj, f, h, p + "up_proj");
    check(l.down_proj, h, f, p + "down_proj");
  }
  check(m.output, c.vocab_size, h, "output head");
}

}  // namespace llm
