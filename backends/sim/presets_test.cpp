// Tests of the GPU and model presets against the spec's tables, the parameter-count formula, name
// lookup, the JSON loaders' error reporting and the KV dtype helper.
// Thread-safety: single-threaded tests; JSON fixtures go to gtest's temp directory.
#include "backends/sim/presets.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>

#include "backends/sim/gpu_step_model.h"
#include "backends/sim/json_fields.h"
#include "backends/testing/error_message.h"

namespace llm {
namespace {

using testing::invalid_argument_message;

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

std::string write_fixture(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "presets_test_" + name;
  std::ofstream(path) << text;
  return path;
}

const char* kGpuJson = R"({
  "name": "TestGPU", "memory_bytes": 85899345920, "hbm_bytes_per_s": 2.039e12,
  "bf16_flops": 312e12, "fp8_flops": 0, "link_bytes_per_s": 300e9,
  "compute_efficiency": 0.87, "memory_efficiency": 0.8, "step_overhead_ns": 126000,
  "per_sequence_overhead_ns": 4400, "allreduce_latency_ns": 10000
})";

const char* kModelJson = R"({
  "name": "TestModel", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
  "head_dim": 128, "ffn": 14336, "vocab": 128256, "tied_embeddings": false,
  "max_context": 131072
})";

TEST(Presets, KvBytesPerTokenMatchesSpecTable) {
  const std::map<std::string, int64_t> expected = {
      {"Llama-3.1-8B", 131072},  {"Llama-3.2-1B", 32768}, {"Llama-3.2-3B", 114688},
      {"Llama-3.1-70B", 327680}, {"Qwen2.5-7B", 57344},   {"Mistral-7B-v0.3", 131072},
      {"Qwen3-8B", 147456}};
  for (const auto& [name, bytes] : expected) {
    const ModelShape* m = find_model_preset(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(kv_bytes_per_token(*m, 2), bytes) << name;
    EXPECT_EQ(kv_bytes_per_token(*m, 1), bytes / 2) << name;
  }
}

TEST(Presets, ParamsMatchFormula) {
  for (const char* name :
       {"Llama-3.1-8B", "Llama-3.2-1B", "Llama-3.2-3B", "Llama-3.1-70B", "Mistral-7B-v0.3"}) {
    const ModelShape* m = find_model_preset(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(params_from_shape(*m), m->params) << name;
  }
  // Qwen2.5 adds a bias to each of Q, K and V: L * (nh + 2*kv) * d parameters.
  const ModelShape* qwen25 = find_model_preset("Qwen2.5-7B");
  ASSERT_NE(qwen25, nullptr);
  EXPECT_EQ(params_from_shape(*qwen25) +
                qwen25->layers * (qwen25->heads + 2 * qwen25->kv_heads) * qwen25->head_dim,
            qwen25->params);
  // Qwen3 adds RMSNorm weights on q and k per layer: L * 2 * d parameters.
  const ModelShape* qwen3 = find_model_preset("Qwen3-8B");
  ASSERT_NE(qwen3, nullptr);
  EXPECT_EQ(params_from_shape(*qwen3) + qwen3->layers * 2 * qwen3->head_dim, qwen3->params);
}

TEST(Presets, MaxContext) {
  EXPECT_EQ(find_model_preset("Llama-3.1-8B")->max_context, 131072);
  EXPECT_EQ(find_model_preset("Llama-3.2-1B")->max_context, 131072);
  EXPECT_EQ(find_model_preset("Qwen2.5-7B")->max_context, 32768);
  EXPECT_EQ(find_model_preset("Mistral-7B-v0.3")->max_context, 32768);
  EXPECT_EQ(find_model_preset("Qwen3-8B")->max_context, 40960);
  EXPECT_TRUE(find_model_preset("Llama-3.2-3B")->tied_embeddings);
  EXPECT_FALSE(find_model_preset("Llama-3.1-70B")->tied_embeddings);
}

TEST(Presets, GpuDatasheets) {
  const GpuProfile* h200 = find_gpu_preset("H200");
  ASSERT_NE(h200, nullptr);
  EXPECT_EQ(h200->datasheet.memory_bytes, 143771 * kBytesPerMiB);
  EXPECT_EQ(h200->datasheet.hbm_bytes_per_s, 4.8e12);
  EXPECT_EQ(h200->datasheet.bf16_flops, 989e12);
  EXPECT_EQ(h200->datasheet.link_bytes_per_s, 450e9);
  EXPECT_EQ(find_gpu_preset("H100-SXM")->datasheet.memory_bytes, 81559 * kBytesPerMiB);
  EXPECT_EQ(find_gpu_preset("H100-SXM")->datasheet.hbm_bytes_per_s, 3.35e12);
  EXPECT_EQ(find_gpu_preset("A100-80GB")->datasheet.memory_bytes, 81920 * kBytesPerMiB);
  EXPECT_EQ(find_gpu_preset("A100-80GB")->datasheet.fp8_flops, 0);
  EXPECT_EQ(find_gpu_preset("RTX-4090")->datasheet.memory_bytes, 24564 * kBytesPerMiB);
  for (const std::string& name : gpu_preset_names()) {
    const GpuPreset* p = find_gpu_preset_file(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(gpu_coefficients_problem(p->profile.step), "") << name;
    EXPECT_EQ(gpu_memory_problem(p->profile.memory), "") << name;
    // Every preset says where its numbers come from and how sure they are.
    EXPECT_FALSE(p->provenance.derivation.empty()) << name;
    EXPECT_FALSE(p->provenance.confidence.empty()) << name;
    EXPECT_FALSE(p->provenance.sources.empty()) << name;
    EXPECT_NE(p->provenance.fit.find("llmsim calibrate --runs"), std::string::npos) << name;
    // Fitted rates stay below the datasheet's peaks.
    const GpuStepCoefficients& c = p->profile.step;
    EXPECT_LT(c.weight_bytes_per_s, p->profile.datasheet.hbm_bytes_per_s) << name;
    EXPECT_LT(c.kv_bytes_per_s, p->profile.datasheet.hbm_bytes_per_s) << name;
    EXPECT_LT(c.gemm_flops_bf16, p->profile.datasheet.bf16_flops) << name;
  }
}

TEST(Presets, MeasuredCardsCarryTheirResiduals) {
  for (const char* name : {"H100-SXM", "RTX-PRO-6000", "RTX-4090"}) {
    const GpuPreset* p = find_gpu_preset_file(name);
    ASSERT_NE(p, nullptr) << name;
    bool gemm = false;
    for (const PresetResidual& r : p->provenance.residuals) {
      EXPECT_GT(r.samples, 0) << name << " " << r.stage;
      EXPECT_LE(r.median_abs_error, r.p90_abs_error) << name << " " << r.stage;
      EXPECT_LE(r.p90_abs_error, r.max_abs_error) << name << " " << r.stage;
      if (r.stage == "gemm") {
        gemm = true;
        EXPECT_LT(r.median_abs_error, 0.15) << name;
      }
    }
    EXPECT_TRUE(gemm) << name;
  }
}

TEST(Presets, NamesAliasesAndLookup) {
  for (const char* name : {"H100-SXM", "H200", "A100-80GB", "A100-40GB", "L40S", "RTX-PRO-6000",
                           "RTX-4090", "H100-PCIe", "B200"}) {
    ASSERT_NE(find_gpu_preset(name), nullptr) << name;
    EXPECT_EQ(find_gpu_preset(name)->name, name);
  }
  EXPECT_EQ(gpu_preset_names().size(), 9u);
  EXPECT_EQ(model_preset_names().size(), 7u);
  for (const std::string& name : model_preset_names()) {
    ASSERT_NE(find_model_preset(name), nullptr) << name;
  }
  EXPECT_EQ(find_gpu_preset("h200")->name, "H200");
  EXPECT_EQ(find_gpu_preset("a100-80gb")->name, "A100-80GB");
  EXPECT_EQ(find_gpu_preset("H100")->name, "H100-SXM");
  EXPECT_EQ(find_gpu_preset("rtxpro6000")->name, "RTX-PRO-6000");
  EXPECT_EQ(find_model_preset("LLAMA-3.1-8B")->name, "Llama-3.1-8B");
  EXPECT_EQ(find_gpu_preset("H300"), nullptr);
  EXPECT_EQ(find_model_preset("Llama-3.1-8"), nullptr);
  EXPECT_EQ(find_model_preset(""), nullptr);
}

TEST(Presets, LoadByNameAndUnknownNameListsPresets) {
  EXPECT_EQ(load_gpu_profile("H100-SXM").datasheet.hbm_bytes_per_s, 3.35e12);
  EXPECT_EQ(load_model_shape("qwen3-8b").name, "Qwen3-8B");
  const std::string gpu_error = invalid_argument_message([] { load_gpu_profile("H300"); });
  EXPECT_NE(gpu_error.find("H300"), std::string::npos) << gpu_error;
  for (const std::string& name : gpu_preset_names()) {
    EXPECT_NE(gpu_error.find(name), std::string::npos) << gpu_error;
  }
  const std::string model_error = invalid_argument_message([] { load_model_shape("GPT-5"); });
  for (const std::string& name : model_preset_names()) {
    EXPECT_NE(model_error.find(name), std::string::npos) << model_error;
  }
}

TEST(PresetsJson, PresetFileRoundTrips) {
  for (const std::string& name : gpu_preset_names()) {
    const GpuPreset& p = *find_gpu_preset_file(name);
    const std::string path = write_fixture(name + ".json", gpu_preset_json(p));
    const GpuProfile g = load_gpu_profile(path);
    EXPECT_EQ(g.name, p.profile.name);
    EXPECT_EQ(g.datasheet.memory_bytes, p.profile.datasheet.memory_bytes);
    for (const GpuCoefficientField& f : gpu_coefficient_fields()) {
      EXPECT_EQ(g.step.*f.member, p.profile.step.*f.member) << name << " " << f.name;
    }
    EXPECT_EQ(g.memory.reserved_bytes, p.profile.memory.reserved_bytes) << name;
    const std::string again =
        gpu_preset_json(gpu_preset_from_json(sim_json::read_json_object(path), path));
    EXPECT_EQ(again, gpu_preset_json(p)) << name;
  }
}

TEST(PresetsJson, BadPresetFileNamesFileAndField) {
  const std::string good = gpu_preset_json(*find_gpu_preset_file("H100-SXM"));
  struct Case {
    std::string from, to, field;
  };
  const Case cases[] = {
      {"\"gemm_kernel_ns\"", "\"gemm_kernel_us\"", "gemm_kernel_ns"},
      {"\"weight_bytes_per_s\": 3", "\"weight_bytes_per_s\": -3", "weight_bytes_per_s"},
      {"\"llmsim_gpu\": 1", "\"llmsim_gpu\": 2", "llmsim_gpu"},
      {"\"reserved_bytes\": ", "\"reserved_bytes\": \"x\", \"r\": ", "reserved_bytes"},
      {"\"memory_bytes\": ", "\"memory_bytes\": 0, \"m\": ", "memory_bytes"},
      {"\"mixed_reads_per_query_head\": 0.0", "\"mixed_reads_per_query_head\": 2",
       "mixed_reads_per_query_head': must be <= 1"},
      {"\"mixed_reads_per_query_head\": 0.0", "\"mixed_reads_per_query_head\": -1",
       "mixed_reads_per_query_head"}};
  for (const Case& c : cases) {
    std::string text = good;
    ASSERT_NE(text.find(c.from), std::string::npos) << c.from;
    text.replace(text.find(c.from), c.from.size(), c.to);
    const std::string path = write_fixture("bad_preset.json", text);
    const std::string error = invalid_argument_message([&] { load_gpu_profile(path); });
    EXPECT_NE(error.find(path), std::string::npos) << error;
    EXPECT_NE(error.find(c.field), std::string::npos) << c.field << ": " << error;
  }
}

TEST(PresetsJson, PresetFileWithoutMixedReadsPerQueryHeadLoadsAsOncePerKvHead) {
  // Preset files written before the field existed still load, as 0 (once per KV head).
  std::string text = gpu_preset_json(*find_gpu_preset_file("RTX-PRO-6000"));
  const std::string field = "\"mixed_reads_per_query_head\": 1.0,";
  ASSERT_NE(text.find(field), std::string::npos);
  text.erase(text.find(field), field.size());
  const GpuProfile g = load_gpu_profile(write_fixture("old_preset.json", text));
  EXPECT_EQ(g.step.mixed_reads_per_query_head, 0);
  EXPECT_EQ(load_gpu_profile("RTX-PRO-6000").step.mixed_reads_per_query_head, 1);
  EXPECT_EQ(load_gpu_profile("H100-SXM").step.mixed_reads_per_query_head, 0);
}

TEST(PresetsJson, RooflineGpuFileStillLoads) {
  const GpuProfile g = load_gpu_profile(write_fixture("gpu_ok.json", kGpuJson));
  EXPECT_EQ(g.name, "TestGPU");
  EXPECT_EQ(g.datasheet.memory_bytes, 85899345920.0);
  // The roofline: weights streamed at 80% of 2.039 TB/s, GEMMs at 87% of 312 TFLOP/s, the
  // overheads as given, no kernel costs.
  EXPECT_DOUBLE_EQ(g.step.weight_bytes_per_s, 2.039e12 * 0.8);
  EXPECT_DOUBLE_EQ(g.step.gemm_flops_bf16, 312e12 * 0.87);
  EXPECT_EQ(g.step.step_ns, 126000);
  EXPECT_EQ(g.step.per_sequence_ns, 4400);
  EXPECT_EQ(g.step.allreduce_ns, 10000);
  EXPECT_EQ(g.step.gemm_kernel_ns, 0);
  EXPECT_EQ(gpu_coefficients_problem(g.step), "");
}

TEST(PresetsJson, LoadsModelShapeAndDerivesParams) {
  const ModelShape m = load_model_shape(write_fixture("model_ok.json", kModelJson));
  EXPECT_EQ(m.name, "TestModel");
  EXPECT_EQ(m.layers, 32);
  EXPECT_EQ(m.weight_bytes_per_param, 2);
  EXPECT_EQ(m.params, find_model_preset("Llama-3.1-8B")->params);
  EXPECT_EQ(kv_bytes_per_token(m, 2), 131072);
}

TEST(PresetsJson, UnknownKeyNamesFileAndKey) {
  std::string text = kGpuJson;
  text.insert(text.find('{') + 1, R"("sparse_flops": 1, )");
  const std::string path = write_fixture("gpu_unknown.json", text);
  const std::string error = invalid_argument_message([&] { load_gpu_profile(path); });
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("sparse_flops"), std::string::npos) << error;
}

TEST(PresetsJson, MissingKeyNamesFileAndKey) {
  const std::string path = write_fixture("gpu_missing.json", R"({"name": "X"})");
  const std::string error = invalid_argument_message([&] { load_gpu_profile(path); });
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("memory_bytes"), std::string::npos) << error;

  std::string text = kModelJson;
  text.replace(text.find("\"max_context\""), std::string("\"max_context\"").size(), "\"ctx\"");
  const std::string model_path = write_fixture("model_missing.json", text);
  const std::string model_error = invalid_argument_message([&] { load_model_shape(model_path); });
  EXPECT_NE(model_error.find("max_context"), std::string::npos) << model_error;
}

TEST(PresetsJson, BadTypeNamesFileAndKey) {
  std::string text = kModelJson;
  text.replace(text.find("32,"), 3, "\"32\",");
  const std::string path = write_fixture("model_bad_type.json", text);
  const std::string error = invalid_argument_message([&] { load_model_shape(path); });
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("layers"), std::string::npos) << error;

  std::string fractional = kModelJson;
  fractional.replace(fractional.find("128,"), 4, "128.5,");
  const std::string error2 = invalid_argument_message(
      [&] { load_model_shape(write_fixture("model_fraction.json", fractional)); });
  EXPECT_NE(error2.find("head_dim"), std::string::npos) << error2;

  std::string gpu = kGpuJson;
  gpu.replace(gpu.find("0.87"), 4, "true");
  const std::string error3 =
      invalid_argument_message([&] { load_gpu_profile(write_fixture("gpu_bool.json", gpu)); });
  EXPECT_NE(error3.find("compute_efficiency"), std::string::npos) << error3;
}

TEST(PresetsJson, OutOfRangeValueNamesKey) {
  std::string text = kGpuJson;
  text.replace(text.find("0.87"), 4, "1.5");
  const std::string error =
      invalid_argument_message([&] { load_gpu_profile(write_fixture("gpu_eff.json", text)); });
  EXPECT_NE(error.find("compute_efficiency"), std::string::npos) << error;

  std::string model = kModelJson;
  model.replace(model.find("\"kv_heads\": 8"), 13, "\"kv_heads\": 0");
  const std::string error2 =
      invalid_argument_message([&] { load_model_shape(write_fixture("model_zero.json", model)); });
  EXPECT_NE(error2.find("kv_heads"), std::string::npos) << error2;
}

TEST(PresetsJson, UnreadableOrMalformedFilesNameTheFile) {
  const std::string missing = ::testing::TempDir() + "presets_test_does_not_exist.json";
  EXPECT_NE(invalid_argument_message([&] { load_gpu_profile(missing); }).find(missing),
            std::string::npos);
  const std::string broken = write_fixture("broken.json", "{\"name\": ");
  EXPECT_NE(invalid_argument_message([&] { load_model_shape(broken); }).find(broken),
            std::string::npos);
  const std::string array = write_fixture("array.json", "[1, 2]");
  EXPECT_NE(invalid_argument_message([&] { load_model_shape(array); }).find(array),
            std::string::npos);
}

TEST(Presets, KvCacheDtypeBytes) {
  for (const char* dtype : {"auto", "bfloat16", "float16"}) {
    EXPECT_EQ(kv_cache_dtype_bytes(dtype), 2) << dtype;
  }
  for (const char* dtype : {"fp8", "fp8_e4m3", "fp8_e5m2"}) {
    EXPECT_EQ(kv_cache_dtype_bytes(dtype), 1) << dtype;
  }
  const std::string error = invalid_argument_message([] { kv_cache_dtype_bytes("int4"); });
  EXPECT_NE(error.find("int4"), std::string::npos) << error;
  for (const char* dtype : {"auto", "bfloat16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2"}) {
    EXPECT_NE(error.find(dtype), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace llm
