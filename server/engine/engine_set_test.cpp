// EngineSet's admission reservations (--max-waiting-requests): places are counted against the
// limit until released or handed to an engine, and threads racing for the last places never exceed
// it together.
#include "server/engine/engine_set.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/testing/scripted_backend.h"

namespace llm {
namespace {

// True once the engine runs a request (nothing waits).
bool eventually_running(const EngineService& engine) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    if (engine.num_unfinished() == 1 && engine.num_waiting() == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

TEST(EngineSet, ReservationsHoldTheirPlacesUntilReleased) {
  EngineSet set;  // no engines: only reservations wait
  std::optional<WaitingReservation> a = set.reserve_waiting(2, 3);
  ASSERT_TRUE(a);
  EXPECT_EQ(set.num_waiting(), 2u);
  EXPECT_FALSE(set.reserve_waiting(2, 3));  // 4 > 3
  EXPECT_EQ(set.num_waiting(), 2u);         // a refusal reserves nothing
  std::optional<WaitingReservation> b = set.reserve_waiting(1, 3);
  ASSERT_TRUE(b);
  EXPECT_EQ(set.num_waiting(), 3u);
  EXPECT_FALSE(set.reserve_waiting(1, 3));
  WaitingReservation moved = std::move(*a);  // moving keeps the place; the source releases nothing
  a.reset();
  EXPECT_EQ(set.num_waiting(), 3u);
  moved = WaitingReservation();  // assigning releases the old place
  EXPECT_EQ(set.num_waiting(), 1u);
  b.reset();
  EXPECT_EQ(set.num_waiting(), 0u);
  EXPECT_FALSE(set.reserve_waiting(1, 0));
  EXPECT_TRUE(set.reserve_waiting(1, 1));
}

TEST(EngineSet, ThreadsRacingForPlacesNeverExceedTheLimit) {
  EngineSet set;
  constexpr int kThreads = 4;
  constexpr int kLimit = 2;
  for (int round = 0; round < 100; ++round) {
    std::atomic<int> go{0};
    std::vector<std::optional<WaitingReservation>> got(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        go.fetch_add(1);
        while (go.load() < kThreads) std::this_thread::yield();
        got[t] = set.reserve_waiting(1, kLimit);
      });
    }
    for (std::thread& t : threads) t.join();
    int admitted = 0;
    for (const auto& g : got) admitted += g ? 1 : 0;
    ASSERT_LE(admitted, kLimit) << "round " << round;
    EXPECT_EQ(set.num_waiting(), static_cast<size_t>(admitted));
    got.clear();
    EXPECT_EQ(set.num_waiting(), 0u);
  }
}

// One seat: A runs, B must wait.
SchedulerConfig one_seat() {
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = 64;
  config.max_num_batched_tokens = 64;
  config.max_model_len = 64;
  config.max_num_seqs = 1;
  return config;
}

// A request of 3 prompt tokens and 40 output tokens, n sequences.
GenerateRequest request(const char* id, int32_t n = 1) {
  GenerateRequest g;
  g.request_id = id;
  g.prompt_tokens = {1, 2, 3};
  g.params.max_tokens = 40;
  g.params.ignore_eos = true;
  g.params.n = n;
  return g;
}

// One engine with one seat and 0.2 s steps in real time, in a set; counts finished sequences.
struct OneSeatEngine {
  OneSeatEngine() { set.add(&engine, nullptr); }
  bool submit(const GenerateRequest& g) {
    return engine.submit(g, [this](const SequenceUpdate& u) { finished += u.finished ? 1 : 0; });
  }
  // Aborts everything and waits until `sequences` sequences have finished.
  int abort_and_wait(int sequences) {
    engine.abort_all();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (finished.load() < sequences && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return finished.load();
  }
  std::atomic<int> finished{0};  // first: outlives the engine thread that counts into it
  testing::ScriptedBackend backend{200'000'000};
  EngineService engine{one_seat(), backend, nullptr};
  EngineSet set;
};

TEST(EngineSet, AReservationPassesToTheEngineThatTakesTheSubmission) {
  OneSeatEngine e;
  EngineSet& set = e.set;
  ASSERT_TRUE(e.submit(request("A")));
  ASSERT_TRUE(eventually_running(e.engine));
  std::optional<WaitingReservation> b = set.reserve_waiting(1, 1);
  ASSERT_TRUE(b);
  ASSERT_TRUE(e.submit(request("B")));
  EXPECT_EQ(set.num_waiting(), 1u);  // B once: in the engine, no longer in the reservation
  EXPECT_FALSE(set.reserve_waiting(1, 1));
  b.reset();  // nothing left to give back
  EXPECT_EQ(set.num_waiting(), 1u);
  EXPECT_EQ(e.abort_and_wait(2), 2);
  EXPECT_EQ(set.num_waiting(), 0u);
}

// vLLM's caps on a live engine: A runs (its prefill is over), B waits; the load counts both
// sequences and B's prompt tokens, and the caps refuse by vLLM's rule (core/admission_rule.h).
TEST(EngineSet, VllmsCapsReadTheLoadOfTheEngines) {
  OneSeatEngine e;
  EngineSet& set = e.set;
  ASSERT_TRUE(e.submit(request("A")));
  ASSERT_TRUE(eventually_running(e.engine));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (set.admission_load().prefill_tokens > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(set.admission_load().unfinished_sequences, 1);
  EXPECT_EQ(set.admission_load().prefill_tokens, 0);  // A has its first token
  ASSERT_TRUE(e.submit(request("B", 2)));             // two sequences of 3 prompt tokens
  EXPECT_EQ(set.admission_load().unfinished_sequences, 3);
  EXPECT_EQ(set.admission_load().prefill_tokens, 6);
  const auto kReqs = AdmissionRejection::kMaxNumQueuedReqs;
  const auto kTokens = AdmissionRejection::kMaxNumQueuedTokens;
  EXPECT_EQ(set.admit(1, {3, -1}, -1).refused, kReqs);  // 3 + 1 > 3
  EXPECT_FALSE(set.admit(1, {4, -1}, -1).refused);
  EXPECT_EQ(set.admit(2, {4, -1}, -1).refused, kReqs);  // n counts
  EXPECT_EQ(set.admit(1, {-1, 6}, -1).refused, kTokens);
  EXPECT_FALSE(set.admit(1, {-1, 7}, -1).refused);
  EXPECT_EQ(set.admit(1, {3, 6}, -1).refused, kReqs);  // the request cap first
  // A refusal reserves nothing; an admission holds its place until released.
  EXPECT_EQ(set.admission_load().unfinished_sequences, 3);
  {
    EngineSet::Admission held = set.admit(1, {4, -1}, -1);
    ASSERT_TRUE(held.place);
    EXPECT_EQ(set.admission_load().unfinished_sequences, 4);
    EXPECT_EQ(set.admit(1, {4, -1}, -1).refused, kReqs);
  }
  EXPECT_EQ(set.admission_load().unfinished_sequences, 3);
  EXPECT_EQ(e.abort_and_wait(3), 3);
  EXPECT_EQ(set.admission_load().unfinished_sequences, 0);
  EXPECT_EQ(set.admission_load().prefill_tokens, 0);
}

}  // namespace
}  // namespace llm
