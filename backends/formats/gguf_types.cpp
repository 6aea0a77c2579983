#include "backends/formats/gguf_types.h"

namespace llm {

std::string gguf_type_name(GgufType type) {
  switch (type) {
    case GgufType::kUint8:
      return "UINT8";
    case GgufType::kInt8:
      return "INT8";
    case GgufType::kUint16:
      return "UINT16";
    case GgufType::kInt16:
      return "INT16";
    case GgufType::kUint32:
      return "UINT32";
    case GgufType::kInt32:
      return "INT32";
    case GgufType::kFloat32:
      return "FLOAT32";
    case GgufType::kBool:
      return "BOOL";
    case GgufType::kString:
      return "STRING";
    case GgufType::kArray:
      return "ARRAY";
    case GgufType::kUint64:
      return "UINT64";
    case GgufType::kInt64:
      return "INT64";
    case GgufType::kFloat64:
      return "FLOAT64";
  }
  return "UNKNOWN(" + std::to_string(static_cast<uint32_t>(type)) + ")";
}

bool gguf_type_known(uint32_t code) { return code <= 12; }

uint32_t gguf_scalar_size(GgufType type) {
  switch (type) {
    case GgufType::kUint8:
    case GgufType::kInt8:
    case GgufType::kBool:
      return 1;
    case GgufType::kUint16:
    case GgufType::kInt16:
      return 2;
    case GgufType::kUint32:
    case GgufType::kInt32:
    case GgufType::kFloat32:
      return 4;
    case GgufType::kUint64:
    case GgufType::kInt64:
    case GgufType::kFloat64:
      return 8;
    default:
      return 0;
  }
}

bool gguf_type_is_integer(GgufType type) {
  switch (type) {
    case GgufType::kUint8:
    case GgufType::kInt8:
    case GgufType::kUint16:
    case GgufType::kInt16:
    case GgufType::kUint32:
    case GgufType::kInt32:
    case GgufType::kUint64:
    case GgufType::kInt64:
      return true;
    default:
      return false;
  }
}

std::optional<GgmlTypeTraits> ggml_type_traits(uint32_t code) {
  switch (static_cast<GgmlType>(code)) {
    case GgmlType::kF32:
      return GgmlTypeTraits{"F32", 1, 4};
    case GgmlType::kF16:
      return GgmlTypeTraits{"F16", 1, 2};
    case GgmlType::kQ4_0:
      return GgmlTypeTraits{"Q4_0", 32, 18};
    case GgmlType::kQ4_1:
      return GgmlTypeTraits{"Q4_1", 32, 20};
    case GgmlType::kQ5_0:
      return GgmlTypeTraits{"Q5_0", 32, 22};
    case GgmlType::kQ5_1:
      return GgmlTypeTraits{"Q5_1", 32, 24};
    case GgmlType::kQ8_0:
      return GgmlTypeTraits{"Q8_0", 32, 34};
    case GgmlType::kQ8_1:
      return GgmlTypeTraits{"Q8_1", 32, 36};
    case GgmlType::kQ2_K:
      return GgmlTypeTraits{"Q2_K", 256, 84};
    case GgmlType::kQ3_K:
      return GgmlTypeTraits{"Q3_K", 256, 110};
    case GgmlType::kQ4_K:
      return GgmlTypeTraits{"Q4_K", 256, 144};
    case GgmlType::kQ5_K:
      return GgmlTypeTraits{"Q5_K", 256, 176};
    case GgmlType::kQ6_K:
      return GgmlTypeTraits{"Q6_K", 256, 210};
    case GgmlType::kQ8_K:
      return GgmlTypeTraits{"Q8_K", 256, 292};
    case GgmlType::kI8:
      return GgmlTypeTraits{"I8", 1, 1};
    case GgmlType::kI16:
      return GgmlTypeTraits{"I16", 1, 2};
    case GgmlType::kI32:
      return GgmlTypeTraits{"I32", 1, 4};
    case GgmlType::kI64:
      return GgmlTypeTraits{"I64", 1, 8};
    case GgmlType::kF64:
      return GgmlTypeTraits{"F64", 1, 8};
    case GgmlType::kBF16:
      return GgmlTypeTraits{"BF16", 1, 2};
  }
  return std::nullopt;
}

}  // namespace llm
