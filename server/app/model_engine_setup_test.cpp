#include "server/app/model_engine_setup.h"

#include <gtest/gtest.h>

#include "backends/cpu/cpu_engine_config.h"

namespace llm {
namespace {

ModelConfig tiny_model() {
  ModelConfig m;
  m.architecture = "llama";
  m.vocab_size = 1000;
  m.hidden_size = 256;
  m.num_hidden_layers = 4;
  m.num_attention_heads = 8;
  m.num_key_value_heads = 2;
  m.head_dim = 32;
  m.max_position_embeddings = 2048;
  return m;
}

std::string error_of(const ServerOptions& o, const ModelConfig& m) {
  try {
    make_model_engine_setup(o, m);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ModelEngineSetup, BytesPerBlockFromTheModelShape) {
  // K and V, 4 layers, 2 KV heads of 32 floats, 16 tokens: 2*4*2*32*16*4 bytes.
  EXPECT_EQ(kv_bytes_per_block(tiny_model(), 16), 32768);
  ModelConfig m = tiny_model();
  m.head_dim = 0;  // derived from hidden / heads
  EXPECT_EQ(kv_bytes_per_block(m, 16), 32768);
}

TEST(ModelEngineSetup, ContextFromTheModelAndBlocksForMaxNumSeqsWithinTheBudget) {
  ServerOptions o;
  o.engine.max_num_seqs = 4;
  EngineSetup e = make_model_engine_setup(o, tiny_model());
  EXPECT_EQ(e.scheduler.max_model_len, 2048);
  EXPECT_EQ(e.scheduler.max_num_seqs, 4);
  EXPECT_EQ(e.scheduler.num_gpu_blocks, 4 * 128 + 1);  // + the null block
  EXPECT_EQ(e.cache.num_gpu_blocks, e.scheduler.num_gpu_blocks);

  o.engine.max_num_seqs = 256;
  o.kv_cache_memory_bytes = 200 * 32768;  // the budget caps the 256 sequences' 32768 blocks
  e = make_model_engine_setup(o, tiny_model());
  EXPECT_EQ(e.scheduler.num_gpu_blocks, 201);

  o.engine.max_model_len = 512;
  o.engine.num_gpu_blocks_override = 40;
  e = make_model_engine_setup(o, tiny_model());
  EXPECT_EQ(e.scheduler.max_model_len, 512);
  EXPECT_EQ(e.scheduler.num_gpu_blocks, 40);
}

TEST(ModelEngineSetup, ErrorsNameTheFlags) {
  ServerOptions o;
  o.engine.max_model_len = 4096;
  EXPECT_NE(error_of(o, tiny_model()).find("--max-model-len 4096 exceeds"), std::string::npos);
  o.engine.max_model_len.reset();
  o.kv_cache_memory_bytes = 100 * 32768;  // less than one 2048-token sequence (128 blocks)
  const std::string e = error_of(o, tiny_model());
  EXPECT_NE(e.find("--kv-cache-memory-bytes"), std::string::npos) << e;
  EXPECT_NE(e.find("--max-model-len"), std::string::npos) << e;
}

}  // namespace
}  // namespace llm
