#include "calibrate/backend_probe.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "core/clock.h"
#include "core/engine_core.h"
#include "core/rng.h"

namespace llm {
namespace {

// Times the wrapped backend's steps on the steady clock and reports each as its modelled
// duration, so that the engine's SimClock moves as real time did.
class TimingBackend final : public Backend {
 public:
  explicit TimingBackend(Backend& inner) : inner_(inner) {}
  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    const auto start = std::chrono::steady_clock::now();
    inner_.execute(batch, sampled);
    const auto end = std::chrono::steady_clock::now();
    last_ns_ = std::max<Nanos>(
        1, std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
    return last_ns_;
  }
  int32_t eos_token_id() const override { return inner_.eos_token_id(); }
  void release(const Request& request) override { inner_.release(request); }
  Nanos last_ns() const { return last_ns_; }

 private:
  Backend& inner_;
  Nanos last_ns_ = 0;
};

struct MeasuredStep {
  BatchCost cost;
  Nanos ns = 0;
};

BatchCost cost_of(const SchedulerOutput& batch) {
  BatchCost cost;
  for (const ScheduledSeq& s : batch.seqs)
    cost.add(s.num_computed_before, s.num_new_tokens, s.samples);
  return cost;
}

std::unique_ptr<Request> make_request(const ProbeRequest& p, size_t index, Rng& rng,
                                      int64_t vocab) {
  auto r = std::make_unique<Request>();
  r->external_id = "probe-" + std::to_string(index);
  r->parent_id = r->external_id;
  r->prompt_len = p.prompt_len;
  for (int64_t i = 0; i < p.prompt_len; ++i) {
    r->prompt_tokens.push_back(static_cast<int32_t>(rng.below(static_cast<uint64_t>(vocab))));
  }
  r->params.max_tokens = p.max_tokens;
  r->params.ignore_eos = true;
  r->params.seed = index;
  r->keep_output_tokens = true;
  return r;
}

// One run of a probe: its steps in order.
std::vector<MeasuredStep> run_probe(TimingBackend& timing, const SchedulerConfig& config,
                                    const Probe& probe, const ProbeOptions& options) {
  SimClock clock(0);
  EngineCore engine(config, timing, clock);
  Rng rng(options.seed);
  std::vector<MeasuredStep> steps;
  for (int64_t step = 0;; ++step) {
    for (size_t i = 0; i < probe.requests.size(); ++i) {
      if (probe.requests[i].arrival_step == step) {
        engine.add_request(make_request(probe.requests[i], i, rng, options.vocab_size));
      }
    }
    const bool more_to_come =
        std::any_of(probe.requests.begin(), probe.requests.end(),
                    [step](const ProbeRequest& r) { return r.arrival_step > step; });
    Nanos duration = 0;
    if (!engine.begin_step(&duration)) {
      if (!more_to_come) break;
      continue;
    }
    steps.push_back({cost_of(engine.last_batch()), timing.last_ns()});
    clock.set(clock.now() + duration);
    engine.end_step(clock.now());
  }
  return steps;
}

bool same_batch(const BatchCost& a, const BatchCost& b) {
  return a.num_sequences == b.num_sequences && a.new_tokens == b.new_tokens &&
         a.context_tokens == b.context_tokens && a.sampling_sequences == b.sampling_sequences;
}

Nanos median(std::vector<Nanos> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

std::vector<Probe> default_probes(const SchedulerConfig& s, bool quick) {
  std::vector<Probe> probes;
  const int64_t room = s.max_model_len - 8;  // a probe's prompt plus its outputs must fit
  const int64_t budget = s.max_num_batched_tokens;
  // 1. Prefills: one step each up to the budget, two chunks up to twice it.
  for (int64_t p : {16, 64, 256, 1024, 2048, 4096, 32, 128, 512}) {
    if (p > room || p > 2 * budget || (quick && p > 256)) continue;
    probes.push_back({"prefill " + std::to_string(p), {{0, p, 1}}});
  }
  // 2. Decode batches: b sequences at context c for a few steps (their prefill is measured too).
  std::vector<int64_t> batches;
  for (int64_t b = 1; b < s.max_num_seqs; b *= 2) batches.push_back(b);
  batches.push_back(s.max_num_seqs);
  const int64_t kMaxPromptTokens = quick ? 1024 : 8192;  // bounds a probe's prefill time
  for (int64_t c : {16, 256, 1024}) {
    for (int64_t b : batches) {
      if (c > room || b * c > kMaxPromptTokens) continue;
      Probe probe{"decode " + std::to_string(b) + " x " + std::to_string(c), {}};
      for (int64_t i = 0; i < b; ++i) probe.requests.push_back({0, c, quick ? 3 : 6});
      probes.push_back(probe);
    }
  }
  // 3. Mixed: a prefill joins running decodes.
  for (int64_t b : {int64_t{2}, std::min<int64_t>(8, s.max_num_seqs)}) {
    for (int64_t p : {128, 512}) {
      if (p > room || (quick && p > 128)) continue;
      Probe probe{"mixed " + std::to_string(b) + " + " + std::to_string(p), {}};
      for (int64_t i = 0; i < b; ++i) probe.requests.push_back({0, 32, 8});
      probe.requests.push_back({3, p, 2});
      probes.push_back(probe);
    }
  }
  return probes;
}

std::vector<StepSample> measure_backend_steps(Backend& backend, SchedulerConfig config,
                                              const std::vector<Probe>& probes,
                                              const ProbeOptions& options) {
  if (options.vocab_size < 1) throw std::invalid_argument("calibrate: vocab_size must be >= 1");
  config.enable_prefix_caching = false;  // repeated prompts must be computed every time
  TimingBackend timing(backend);
  if (!probes.empty()) run_probe(timing, config, probes.front(), options);  // warm-up
  std::vector<StepSample> samples;
  const int total = static_cast<int>(probes.size()) * options.repeats;
  int done = 0;
  for (const Probe& probe : probes) {
    std::vector<std::vector<MeasuredStep>> runs;
    for (int r = 0; r < options.repeats; ++r) {
      if (options.progress) options.progress(probe.name, ++done, total);
      runs.push_back(run_probe(timing, config, probe, options));
    }
    for (size_t i = 0; i < runs.front().size(); ++i) {
      std::vector<Nanos> times;
      for (const auto& run : runs) {
        if (i < run.size() && same_batch(run[i].cost, runs.front()[i].cost)) {
          times.push_back(run[i].ns);
        }
      }
      samples.push_back({runs.front()[i].cost, static_cast<double>(median(times))});
    }
  }
  return samples;
}

}  // namespace llm
