#include "server/engine/engine_service.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "core/testing/scripted_backend.h"

namespace llm {
namespace {

SchedulerConfig small_config() {
  SchedulerConfig c;
  c.block_size = 4;
  c.num_gpu_blocks = 64;
  c.max_num_batched_tokens = 64;
  c.max_model_len = 64;
  return c;
}

// The scripted backend, stopping each request where its prompt says: request() below fills the
// prompt with the wanted output length, which this backend reports as the natural length.
class LengthInPromptBackend final : public Backend {
 public:
  explicit LengthInPromptBackend(Nanos step_ns) : inner_(step_ns) {}
  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    return inner_.execute(batch, sampled);
  }
  int32_t eos_token_id() const override { return inner_.eos_token_id(); }
  int64_t natural_output_len(const Request& r) const override { return r.prompt_tokens.front(); }

 private:
  testing::ScriptedBackend inner_;
};

// LengthInPromptBackend whose second step waits until open() is called, so that a test can queue
// a command while it knows exactly where the engine is (between step 1 and step 3), however
// loaded the machine.
class GatedBackend final : public Backend {
 public:
  explicit GatedBackend(Nanos step_ns) : inner_(step_ns) {}
  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    if (++steps_ == 2) {
      std::unique_lock<std::mutex> lock(mutex_);
      opened_.wait(lock, [this] { return open_; });
    }
    return inner_.execute(batch, sampled);
  }
  int32_t eos_token_id() const override { return inner_.eos_token_id(); }
  int64_t natural_output_len(const Request& r) const override {
    return inner_.natural_output_len(r);
  }
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    opened_.notify_all();
  }

 private:
  LengthInPromptBackend inner_;
  int steps_ = 0;  // engine thread only
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

// Collects the updates of one request and signals when all its sequences finished.
struct Collector {
  std::mutex mutex;
  std::condition_variable progressed;
  std::vector<SequenceUpdate> updates;
  int remaining;
  std::promise<void> done;
  explicit Collector(int n) : remaining(n) {}
  SequenceSink sink() {
    return [this](const SequenceUpdate& u) {
      std::lock_guard<std::mutex> lock(mutex);
      updates.push_back(u);
      if (u.finished && --remaining == 0) done.set_value();
      progressed.notify_all();
    };
  }
  // Waits until sequence `child` has produced a token (so the engine is running it).
  bool wait_for_first_token(int32_t child) {
    std::unique_lock<std::mutex> lock(mutex);
    return progressed.wait_for(lock, std::chrono::seconds(10), [&] {
      for (const SequenceUpdate& u : updates) {
        if (u.child_index == child && u.num_output_tokens > 0) return true;
      }
      return false;
    });
  }
};

GenerateRequest request(const std::string& id, int prompt, int outputs, int n = 1) {
  GenerateRequest r;
  r.request_id = id;
  r.prompt_tokens.assign(static_cast<size_t>(prompt), outputs);  // see LengthInPromptBackend
  r.params.n = n;
  return r;
}

TEST(EngineService, StreamsEveryTokenThenTheFinishOnTheLastOne) {
  LengthInPromptBackend backend(0);
  EngineService service(small_config(), backend, nullptr);
  Collector c(1);
  ASSERT_TRUE(service.submit(request("a", 6, 3), c.sink()));
  ASSERT_EQ(c.done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  ASSERT_EQ(c.updates.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(c.updates[i].new_tokens.size(), 1u);
    EXPECT_EQ(c.updates[i].num_output_tokens, static_cast<int64_t>(i + 1));
    EXPECT_EQ(c.updates[i].finished, i == 2);
  }
  EXPECT_EQ(c.updates.back().finish_reason, FinishReason::kStop);
  EXPECT_NE(c.updates.back().timeline.first_token, kNoTime);
  EXPECT_EQ(service.num_unfinished(), 0u);
}

TEST(EngineService, FansOutNChildrenAndReportsEachOnce) {
  LengthInPromptBackend backend(0);
  EngineService service(small_config(), backend, nullptr);
  Collector c(2);
  ASSERT_TRUE(service.submit(request("p", 5, 2, 2), c.sink()));
  ASSERT_EQ(c.done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  int finished[2] = {0, 0};
  for (const auto& u : c.updates) finished[u.child_index] += u.finished ? 1 : 0;
  EXPECT_EQ(finished[0], 1);
  EXPECT_EQ(finished[1], 1);
}

TEST(EngineService, AnOversizedPromptFinishesWithErrorAtOnce) {
  LengthInPromptBackend backend(0);
  EngineService service(small_config(), backend, nullptr);
  Collector c(1);
  ASSERT_TRUE(service.submit(request("big", 64, 2), c.sink()));
  ASSERT_EQ(c.done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  ASSERT_EQ(c.updates.size(), 1u);
  EXPECT_EQ(c.updates[0].finish_reason, FinishReason::kError);
  EXPECT_TRUE(c.updates[0].new_tokens.empty());
}

TEST(EngineService, AbortEndsALongRequestAndFreesItsBlocks) {
  GatedBackend backend(1'000'000);
  EngineService service(small_config(), backend, nullptr);
  Collector c(1);
  auto r = request("long", 4, 1000);
  r.params.max_tokens = 50;
  ASSERT_TRUE(service.submit(r, c.sink()));
  ASSERT_TRUE(c.wait_for_first_token(0));
  service.abort("long");  // taken after step 2, which waits for open()
  backend.open();
  ASSERT_EQ(c.done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(c.updates.back().finish_reason, FinishReason::kAbort);
  EXPECT_LT(c.updates.back().num_output_tokens, 50);
  const EngineSnapshot snap = service.snapshot();
  EXPECT_EQ(snap.num_running, 0u);
  EXPECT_EQ(snap.num_waiting, 0u);
  EXPECT_EQ(snap.kv_usage, 0.0);
  EXPECT_EQ(service.num_unfinished(), 0u);
}

TEST(EngineService, ASecondLiveRequestWithTheSameIdIsRefused) {
  LengthInPromptBackend backend(1'000'000);
  EngineService service(small_config(), backend, nullptr);
  Collector first(1);
  Collector second(1);
  auto long_request = request("same", 4, 1000);
  long_request.params.max_tokens = 40;
  ASSERT_TRUE(service.submit(long_request, first.sink()));
  ASSERT_TRUE(service.submit(request("same", 4, 2), second.sink()));
  ASSERT_EQ(second.done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(second.updates.back().finish_reason, FinishReason::kError);
  ASSERT_EQ(first.done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(first.updates.back().num_output_tokens, 40);
  EXPECT_EQ(service.num_unfinished(), 0u);
}

// Records the finish reason of every sequence, as the metrics observer would count it. The relay
// may hand a sequence's final update to its sink before the engine retires it (and calls
// on_finished), so a test waits for the count it expects.
class FinishReasons final : public EngineObserver {
 public:
  void on_finished(const Request& r) override {
    std::lock_guard<std::mutex> lock(mutex);
    reasons[r.external_id] = r.finish_reason;
    recorded.notify_all();
  }
  bool wait_for(size_t count) {
    std::unique_lock<std::mutex> lock(mutex);
    return recorded.wait_for(lock, std::chrono::seconds(10),
                             [&] { return reasons.size() >= count; });
  }
  std::mutex mutex;
  std::condition_variable recorded;
  std::map<std::string, FinishReason> reasons;
};

TEST(EngineService, FinishSequenceEndsOneChildWithTheGivenReason) {
  GatedBackend backend(1'000'000);
  FinishReasons observed;
  EngineService service(small_config(), backend, &observed);
  Collector c(2);
  auto r = request("s", 4, 1000, 2);
  r.params.max_tokens = 30;
  ASSERT_TRUE(service.submit(r, c.sink()));
  ASSERT_TRUE(c.wait_for_first_token(0));
  service.finish_sequence("s", 0, FinishReason::kStop);  // e.g. its text matched a stop string
  backend.open();
  ASSERT_EQ(c.done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  ASSERT_TRUE(observed.wait_for(2));
  std::lock_guard<std::mutex> lock(observed.mutex);
  EXPECT_EQ(observed.reasons.at("0_s"), FinishReason::kStop);
  EXPECT_EQ(observed.reasons.at("1_s"), FinishReason::kLength);  // its sibling ran on
  for (const auto& u : c.updates) {
    if (u.finished && u.child_index == 0) {
      EXPECT_LT(u.num_output_tokens, 30);
    }
  }
}

TEST(EngineService, StopAbortsWhatIsLeftAndRefusesNewWork) {
  LengthInPromptBackend backend(1'000'000);
  auto service = std::make_unique<EngineService>(small_config(), backend, nullptr);
  Collector c(1);
  auto r = request("x", 4, 1000);
  r.params.max_tokens = 60;
  ASSERT_TRUE(service->submit(r, c.sink()));
  service->stop();
  ASSERT_EQ(c.done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(c.updates.back().finish_reason, FinishReason::kAbort);
  Collector late(1);
  EXPECT_FALSE(service->submit(request("y", 4, 1), late.sink()));
}

// A backend whose step number `fail_at` (0-based) throws, as a real backend may (out of memory,
// a bad tensor).
class OneFailingStepBackend final : public Backend {
 public:
  explicit OneFailingStepBackend(int fail_at) : fail_at_(fail_at) {}
  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    if (steps_++ == fail_at_) throw std::runtime_error("backend exploded");
    return inner_.execute(batch, sampled);
  }
  int32_t eos_token_id() const override { return 0; }
  int64_t natural_output_len(const Request& r) const override {
    return inner_.natural_output_len(r);
  }

 private:
  LengthInPromptBackend inner_{1'000'000};
  int fail_at_;
  int steps_ = 0;
};

TEST(EngineService, AFailingStepFailsEveryRequestAndRefusesNewOnes) {
  OneFailingStepBackend backend(3);
  EngineService service(small_config(), backend, nullptr);
  Collector a(1), b(2);
  ASSERT_TRUE(service.submit(request("a", 6, 40), a.sink()));
  ASSERT_TRUE(service.submit(request("b", 6, 40, 2), b.sink()));
  ASSERT_EQ(a.done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  ASSERT_EQ(b.done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(service.failed());
  EXPECT_EQ(a.updates.back().finish_reason, FinishReason::kError);
  EXPECT_LT(a.updates.back().num_output_tokens, 40);
  for (const SequenceUpdate& u : b.updates) {
    if (u.finished) {
      EXPECT_EQ(u.finish_reason, FinishReason::kError);
    }
  }
  EXPECT_EQ(service.num_unfinished(), 0u);
  Collector c(1);
  EXPECT_FALSE(service.submit(request("c", 6, 2), c.sink()));
  // The engine thread still answers calls (for /metrics), and stops cleanly.
  bool called = false;
  service.run_on_engine_thread([&] { called = true; });
  EXPECT_TRUE(called);
  service.stop();
}

}  // namespace
}  // namespace llm
