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

TEST(EngineSet, AReservationPassesToTheEngineThatTakesTheSubmission) {
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = 64;
  config.max_num_batched_tokens = 64;
  config.max_model_len = 64;
  config.max_num_seqs = 1;                        // A runs; B must wait
  testing::ScriptedBackend backend(200'000'000);  // 0.2 s steps, in real time
  EngineService engine(config, backend, nullptr);
  EngineSet set;
  set.add(&engine, nullptr);
  auto request = [](const char* id) {
    GenerateRequest g;
    g.request_id = id;
    g.prompt_tokens = {1, 2, 3};
    g.params.max_tokens = 40;
    g.params.ignore_eos = true;
    return g;
  };
  std::atomic<int> finished{0};
  auto sink = [&finished](const SequenceUpdate& u) { finished += u.finished ? 1 : 0; };
  ASSERT_TRUE(engine.submit(request("A"), sink));
  ASSERT_TRUE(eventually_running(engine));
  std::optional<WaitingReservation> b = set.reserve_waiting(1, 1);
  ASSERT_TRUE(b);
  ASSERT_TRUE(engine.submit(request("B"), sink));
  EXPECT_EQ(set.num_waiting(), 1u);  // B once: in the engine, no longer in the reservation
  EXPECT_FALSE(set.reserve_waiting(1, 1));
  b.reset();  // nothing left to give back
  EXPECT_EQ(set.num_waiting(), 1u);
  engine.abort_all();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (finished.load() < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(finished.load(), 2);
  EXPECT_EQ(set.num_waiting(), 0u);
}

}  // namespace
}  // namespace llm
