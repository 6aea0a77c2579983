// Fuzz target: the model-file readers of backends/formats/ on arbitrary bytes, held in memory:
// byte 0 even: GgufFile::parse, then every typed accessor on every key, the tensor data, the
// tokenizer (Tokenizer::from_gguf, a short encode/decode) and the model config
// (gguf_model_config) read from it; byte 0 odd: SafetensorsFile::from_bytes and its tensors.
// Checks: each reader returns or throws its documented error (GgufError/ModelFormatError for the
// readers and accessors, TokenizerError for from_gguf, ModelFormatError for gguf_model_config);
// after a successful parse every tensor's bytes lie inside the file (ASan checks the first and
// last byte read here) and a tensor is found under its name.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/formats/gguf_reader.h"
#include "backends/formats/safetensors_reader.h"
#include "backends/model/gguf_model_config.h"
#include "backends/tokenizer/tokenizer.h"
#include "fuzz/fuzz_util.h"

namespace {

using llm::fuzz::require;
using llm::fuzz::returns_or_throws;

volatile uint8_t g_sink;  // keeps the tensor reads below from being optimised away

void touch(const uint8_t* p, uint64_t n) {
  if (n == 0) return;
  g_sink = p[0];
  g_sink = p[n - 1];
}

void fuzz_gguf(std::vector<uint8_t> bytes) {
  const uint64_t size = bytes.size();
  std::optional<llm::GgufFile> file;
  if (!returns_or_throws<llm::GgufError>("GgufFile::parse",
                                         [&] { file = llm::GgufFile::parse(std::move(bytes)); })) {
    return;
  }
  require(file->data_offset() <= size, "the data section starts past the end of the file");
  for (const auto& kv : file->metadata()) {
    const std::string& key = kv.first;  // not a structured binding: clang 14 cannot capture one
    require(file->find(key) != nullptr, "a metadata key is not found under its name", key);
    returns_or_throws<llm::GgufError>("GgufFile accessors", [&] { file->get_string(key); });
    returns_or_throws<llm::GgufError>("GgufFile accessors", [&] { file->get_u32(key); });
    returns_or_throws<llm::GgufError>("GgufFile accessors", [&] { file->get_i64(key); });
    returns_or_throws<llm::GgufError>("GgufFile accessors", [&] { file->get_f32(key); });
    returns_or_throws<llm::GgufError>("GgufFile accessors", [&] { file->get_bool(key); });
    returns_or_throws<llm::GgufError>("GgufFile accessors", [&] { file->get_string_array(key); });
    returns_or_throws<llm::GgufError>("GgufFile accessors", [&] { file->get_f32_array(key); });
    returns_or_throws<llm::GgufError>("GgufFile accessors", [&] { file->get_int_array(key); });
    kv.second.to_debug_string();
  }
  for (const llm::GgufTensorInfo& t : file->tensors()) {
    require(file->find_tensor(t.name) != nullptr, "a tensor is not found under its name", t.name);
    touch(t.data, t.n_bytes);
  }
  std::unique_ptr<llm::Tokenizer> tokenizer;
  if (returns_or_throws<llm::TokenizerError>(
          "Tokenizer::from_gguf", [&] { tokenizer = llm::Tokenizer::from_gguf(*file); })) {
    returns_or_throws<>("encode/decode of a GGUF's tokenizer", [&] {
      const std::vector<int32_t> ids = tokenizer->encode("Hello world <s>\xff", true, true);
      tokenizer->decode(ids, false);
    });
  }
  returns_or_throws<llm::ModelFormatError>("gguf_model_config",
                                           [&] { llm::gguf_model_config(*file); });
}

void fuzz_safetensors(std::span<const std::byte> bytes) {
  std::optional<llm::SafetensorsFile> file;
  if (!returns_or_throws<llm::ModelFormatError>("SafetensorsFile::from_bytes", [&] {
        file = llm::SafetensorsFile::from_bytes(bytes, "fuzz.safetensors");
      })) {
    return;
  }
  for (const llm::SafetensorsTensor& t : file->tensors()) {
    require(file->find(t.name) == &t, "a tensor is not found under its name", t.name);
    const std::span<const std::byte> data = file->data(t);
    require(data.size() == t.size, "a tensor's data span differs from its size", t.name);
    touch(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  if ((data[0] & 1) == 0) {
    fuzz_gguf(std::vector<uint8_t>(data + 1, data + size));
  } else {
    fuzz_safetensors(std::as_bytes(std::span(data + 1, size - 1)));
  }
  return 0;
}
