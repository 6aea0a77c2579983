// Placeholder until the forward pass lands: construction fails with a clear message.
#include "backends/cpu/cpu_backend.h"

#include <stdexcept>

namespace llm {

struct CpuBackend::Impl {};

CpuBackend::CpuBackend(std::shared_ptr<const ModelWeights>, const CpuBackendOptions&) {
  throw std::runtime_error("the cpu backend is not built yet");
}
CpuBackend::~CpuBackend() = default;
Nanos CpuBackend::execute(const SchedulerOutput&, std::vector<int32_t>&) { return 0; }
int32_t CpuBackend::eos_token_id() const { return -1; }
void CpuBackend::release(const Request&) {}

}  // namespace llm
