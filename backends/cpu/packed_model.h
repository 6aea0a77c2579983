// PackedModel: every matrix of a Llama-family model that the CPU backend multiplies by, packed
// once for matmul.h (packed_matrix.h): the attention and MLP projections of each layer and the
// output head (the embedding table itself when the model ties them). The rest of the model (the
// embedding table the backend gathers from, norms and biases) stays in ModelWeights.
// Several backends over one model (the engines of --data-parallel-size) share one PackedModel.
// Thread-safety: immutable after pack_model; share it freely.
#pragma once

#include <string>
#include <vector>

#include "backends/cpu/packed_matrix.h"
#include "backends/model/model_weights.h"

namespace llm {

class ThreadPool;

struct PackedLayer {
  PackedMatrix q_proj, k_proj, v_proj, o_proj;
  PackedMatrix gate_proj, up_proj, down_proj;
};

struct PackedModel {
  std::vector<PackedLayer> layers;
  PackedMatrix output;  // [vocab][hidden]
};

// Packs w's matrices, shared out over pool's threads (null: the calling thread). The shapes are
// taken as they are: check them first (check_weight_shapes).
PackedModel pack_model(const ModelWeights& w, ThreadPool* pool);

// Frees the row-major copies of the matrices pack_model packs (the layers' projections, and
// lm_head when the output is not tied to the embeddings), which a CPU backend given the packed
// model never reads: the model then takes its memory once, not twice. Embeddings, norms and
// biases stay. check_weight_shapes fails on w afterwards (check before dropping).
void drop_packed_matrices(ModelWeights& w);

// Throws std::invalid_argument "LABEL: the packed model ..." naming the first matrix whose shape
// is not the config's.
void check_packed_model(const PackedModel& m, const ModelConfig& c, const std::string& label);

}  // namespace llm
