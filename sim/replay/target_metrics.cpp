#include "sim/replay/target_metrics.h"

#include <algorithm>
#include <charconv>

#include "core/clock.h"

namespace llm {
namespace {

constexpr const char* kJob = "vllm";
constexpr const char* kHandler = "/v1/completions";
constexpr const char* kMethod = "POST";

// The status a client got for a finished sequence.
int status_of(const Request& r) {
  if (refused_at_admission(r)) return 400;
  switch (r.finish_reason) {
    case FinishReason::kAbort:
      return HttpMetrics::kClientClosedRequest;
    case FinishReason::kError:
      return 500;
    default:
      return 200;
  }
}

std::optional<size_t> index_of(const std::string& text) {
  size_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

// One engine's finished requests as HTTP exchanges on its server.
class TargetMetrics::Exchanges final : public EngineObserver {
 public:
  explicit Exchanges(HttpMetrics& http) : http_(http) {}

  void on_finished(const Request& r) override {
    int status = status_of(r);
    const int32_t n = std::max<int32_t>(r.params.n, 1);
    if (n > 1) {
      // The response goes out when the last of the request's sequences finishes.
      Open& open = open_[r.parent_id];
      open.status = std::max(open.status, status);
      if (++open.finished < n) return;
      status = open.status;
      open_.erase(r.parent_id);
    }
    const Nanos end = r.timeline.finished == kNoTime ? r.timeline.arrival : r.timeline.finished;
    record(status, nanos_to_seconds(end - r.timeline.arrival));
  }

  void record(int status, double seconds) {
    HttpMetrics::Exchange e;
    e.handler = HttpMetrics::handler_of(kHandler);
    e.method = HttpMetrics::method_of(kMethod);
    e.status = status;
    e.seconds = std::max(seconds, 0.0);
    http_.record(e);
  }

 private:
  struct Open {
    int32_t finished = 0;
    int status = 0;
  };
  HttpMetrics& http_;
  std::map<std::string, Open> open_;  // requests with n > 1 not finished yet, by parent id
};

TargetMetrics::TargetMetrics(size_t num_engines)
    : up_family_(prometheus::BuildGauge()
                     .Name("up")
                     .Help("1 when Prometheus scraped the target, 0 when the scrape failed.")
                     .Register(registry_)) {
  for (size_t i = 0; i < num_engines; ++i) {
    const prometheus::Labels target = {{"job", kJob}, {"instance", instance_name(i)}};
    up_.push_back(&up_family_.Add(target));
    up_.back()->Set(1);
    http_.push_back(std::make_unique<HttpMetrics>(
        registry_, target,
        HttpMetrics::Route{HttpMetrics::handler_of(kHandler), HttpMetrics::method_of(kMethod)}));
    exchanges_.push_back(std::make_unique<Exchanges>(*http_.back()));
  }
}

TargetMetrics::~TargetMetrics() = default;

EngineObserver* TargetMetrics::observer(size_t engine) { return exchanges_.at(engine).get(); }

void TargetMetrics::record_failed(size_t engine, int status) {
  exchanges_.at(engine)->record(status, 0);
}

void TargetMetrics::set_up(const std::vector<bool>& down) {
  for (size_t i = 0; i < up_.size(); ++i) up_[i]->Set(i < down.size() && down[i] ? 0 : 1);
}

std::string TargetMetrics::instance_name(size_t engine) {
  return "engine-" + std::to_string(engine);
}

std::optional<size_t> TargetMetrics::scrape_target(
    const std::string& family, const std::vector<prometheus::ClientMetric::Label>& labels) {
  if (family == "up") return std::nullopt;
  for (const auto& l : labels) {
    if (l.name == "engine") return index_of(l.value);
    if (l.name == "instance" && l.value.rfind("engine-", 0) == 0) {
      return index_of(l.value.substr(7));
    }
  }
  return std::nullopt;
}

}  // namespace llm
