// MetricsPublication: a scrape sees whole publications (never a publication half applied), and
// EngineSet's /metrics collection never waits for an engine step, yet shows every request whose
// answer its client has seen.
#include "server/engine/metrics_publication.h"

#include <gtest/gtest.h>
#include <prometheus/counter.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "core/testing/scripted_backend.h"
#include "core/vllm_metrics.h"
#include "server/engine/engine_set.h"

namespace llm {
namespace {

double counter_value(const std::vector<prometheus::MetricFamily>& families,
                     const std::string& name) {
  double total = 0;
  for (const auto& f : families) {
    if (f.name != name) continue;
    for (const auto& m : f.metric) total += m.counter.value;
  }
  return total;
}

TEST(MetricsPublication, ScrapesNeverSeeAPublicationHalfApplied) {
  prometheus::Registry registry;
  auto& a = prometheus::BuildCounter().Name("a").Register(registry).Add({});
  auto& b = prometheus::BuildCounter().Name("b").Register(registry).Add({});
  MetricsPublication publication(2);
  std::atomic<bool> done{false};
  // Engine 1 publishes a then b with a pause between them (a + 1 == b + 1 only mid-publication).
  std::thread engine([&] {
    for (int i = 0; i < 300; ++i) {
      publication.publish(1, [&] {
        a.Increment();
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        b.Increment();
      });
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    done = true;
  });
  int collections = 0, mismatches = 0;
  while (!done) {
    const auto families = publication.collect(registry);
    ++collections;
    if (counter_value(families, "a") != counter_value(families, "b")) ++mismatches;
  }
  engine.join();
  EXPECT_GT(collections, 100);
  EXPECT_EQ(mismatches, 0);
  // Collections did overlap publications (so the check above saw the case it is about).
  EXPECT_GT(publication.retries(), 0u);
}

// A backend whose step waits until open(): the engine is inside a step as long as the test likes.
class BlockingBackend final : public Backend {
 public:
  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      in_step_ = true;
      changed_.notify_all();
      changed_.wait(lock, [this] { return open_; });
    }
    return inner_.execute(batch, sampled);
  }
  int32_t eos_token_id() const override { return inner_.eos_token_id(); }
  int64_t natural_output_len(const Request&) const override { return 3; }
  bool wait_in_step() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [this] { return in_step_; });
  }
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  testing::ScriptedBackend inner_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool in_step_ = false, open_ = false;
};

SchedulerConfig small_engine_config() {
  SchedulerConfig c;
  c.block_size = 4;
  c.num_gpu_blocks = 64;
  c.max_num_batched_tokens = 64;
  c.max_model_len = 64;
  return c;
}

GenerateRequest request(const std::string& id) {
  GenerateRequest r;
  r.request_id = id;
  r.prompt_tokens = {1, 2, 3, 4, 5};
  r.params.max_tokens = 8;
  return r;
}

TEST(EngineSetMetrics, ACollectionDoesNotWaitForAStepInProgress) {
  prometheus::Registry registry;
  VllmMetricFamilies families(registry, 64);
  EngineMetrics metrics(families, "m", 0, CacheConfigInfo{});
  BlockingBackend backend;
  EngineService engine(small_engine_config(), backend, &metrics);
  EngineSet set;
  set.add(&engine, &metrics);
  ASSERT_TRUE(engine.submit(request("r"), [](const SequenceUpdate&) {}));
  ASSERT_TRUE(backend.wait_in_step());
  auto scrape = std::async(std::launch::async, [&] { return set.collect_metrics(registry); });
  const bool answered = scrape.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  backend.open();  // let the engine go on in either case, so that the test can end
  ASSERT_TRUE(answered) << "the collection waited for the engine's step";
  EXPECT_FALSE(scrape.get().empty());
}

TEST(EngineSetMetrics, AFinishedAnswerIsInTheNextCollection) {
  prometheus::Registry registry;
  VllmMetricFamilies families(registry, 64);
  EngineMetrics metrics(families, "m", 0, CacheConfigInfo{});
  testing::ScriptedBackend backend(0);
  EngineService engine(small_engine_config(), backend, &metrics);
  EngineSet set;
  set.add(&engine, &metrics);
  constexpr int kRequests = 200;
  for (int i = 0; i < kRequests; ++i) {
    std::promise<void> finished;
    ASSERT_TRUE(engine.submit(request("r" + std::to_string(i)), [&](const SequenceUpdate& u) {
      if (u.finished) finished.set_value();
    }));
    finished.get_future().wait();
    // The sink has heard the end: the request's metrics must already be published.
    EXPECT_EQ(counter_value(set.collect_metrics(registry), "vllm:request_success"), i + 1)
        << "request " << i;
  }
}

}  // namespace
}  // namespace llm
