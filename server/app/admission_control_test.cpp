// --max-waiting-requests over HTTP: with the engines held still by a gate in the backend, the queue
// is filled exactly; then completions get 503 with Retry-After and the error envelope, each counted
// in vllm:admission_rejections_total, /health stays 200, and every accepted request completes once
// the gate opens. With data parallelism the limit counts all engines' waiting sequences together.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using testing::Connection;
using testing::request;

// Holds every engine step in execute() until steps are allowed (one by one, or all once open).
class GateBackend final : public Backend {
 public:
  explicit GateBackend(Backend& inner) : inner_(inner) {}
  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ++entered_;
      changed_.notify_all();
      changed_.wait(lock, [this] { return open_ || allowed_ > 0; });
      if (!open_) --allowed_;
    }
    return inner_.execute(batch, sampled);
  }
  int32_t eos_token_id() const override { return inner_.eos_token_id(); }
  void release(const Request& r) override { inner_.release(r); }
  int64_t natural_output_len(const Request& r) const override {
    return inner_.natural_output_len(r);
  }

  // Lets `steps` more steps run.
  void allow(int steps) {
    std::lock_guard<std::mutex> lock(mutex_);
    allowed_ += steps;
    changed_.notify_all();
  }
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  // True once `steps` steps have reached the gate (the engine is then held in the last one).
  bool wait_entered(int steps) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] { return entered_ >= steps; });
  }

 private:
  Backend& inner_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int entered_ = 0;
  int allowed_ = 0;
  bool open_ = false;
};

// A server whose engines each sit behind a closed gate.
struct GatedServer {
  std::vector<GateBackend*> gates;
  std::unique_ptr<LlmServer> server;
  explicit GatedServer(const ServerOptions& o) {
    server = std::make_unique<LlmServer>(o, [this](Backend& inner) {
      auto gate = std::make_unique<GateBackend>(inner);
      gates.push_back(gate.get());
      return gate;
    });
    server->start();
  }
  ~GatedServer() {
    for (GateBackend* g : gates) g->open();  // before the engines stop: none stays held
    server.reset();
  }
  uint16_t port() const { return server->port(); }
  size_t waiting() const { return server->api().engines.num_waiting(); }
  // True once `n` sequences wait in the engines and no admission reservation is held any more.
  bool settled(size_t n) const {
    size_t in_engines = 0;
    for (size_t i = 0; i < gates.size(); ++i) in_engines += server->engine(i).num_waiting();
    return in_engines == n && waiting() == n;
  }
  // The refusals counted so far (read in-process: /metrics waits for the held step to end).
  double rejections() const {
    return server->api().admission_metrics->value(AdmissionRejection::kMaxNumQueuedReqs);
  }
};

const std::string kRejections =
    R"(vllm:admission_rejections_total{model_name="Llama-3.1-8B",reason="max_num_queued_reqs"})";
const std::string kCompletion = R"({"prompt":"Hello","max_tokens":5,"ignore_eos":true})";
const std::string kStream = R"({"prompt":"Hello","max_tokens":5,"ignore_eos":true,"stream":true})";

// Sends a completion on its own connection (its response is read later).
std::unique_ptr<Connection> send(uint16_t port, const std::string& body,
                                 const std::string& path = "/v1/completions") {
  auto c = std::make_unique<Connection>(port);
  c->send_request("POST", path, body);
  return c;
}

// Checks a refusal: 503, Retry-After, vLLM's envelope and message.
void expect_refused(const testing::Response& r) {
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_EQ(r.header("retry-after"), std::to_string(kAdmissionRetryAfterS));
  const nlohmann::json j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["error"]["type"], "ServiceUnavailableError") << r.body;
  EXPECT_EQ(j["error"]["code"], 503) << r.body;
  EXPECT_TRUE(j["error"]["param"].is_null()) << r.body;
  EXPECT_NE(j["error"]["message"].get<std::string>().find("currently busy"), std::string::npos)
      << r.body;
}

// Checks that an accepted request ran to its end.
void expect_completed(Connection& c, bool stream) {
  const testing::Response r = c.read_response();
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find(R"("finish_reason":"length")"), std::string::npos) << r.body;
  if (stream) {
    EXPECT_EQ(r.body.substr(r.body.size() - 14), "data: [DONE]\n\n");
  }
}

TEST(AdmissionControl, AFullQueueRefusesWith503RetryAfterAndCountsEachRefusal) {
  ServerOptions o = testing::test_options();
  o.max_waiting_requests = 3;
  o.engine.max_num_seqs = 1;  // one running sequence: the others wait in the scheduler
  GatedServer s(o);
  const uint16_t port = s.port();
  EXPECT_EQ(testing::metric(port, kRejections), 0);  // the series exists before any refusal

  auto running = send(port, kStream);
  ASSERT_TRUE(s.gates[0]->wait_entered(1));  // A runs, held in its first step
  std::vector<std::pair<std::unique_ptr<Connection>, bool>> accepted;
  accepted.emplace_back(send(port, kCompletion), false);
  ASSERT_TRUE(testing::eventually([&] { return s.settled(1); })) << s.waiting();
  accepted.emplace_back(send(port, kStream), true);
  // Submitted while the engine is held: they count as waiting before the engine takes them.
  ASSERT_TRUE(testing::eventually([&] { return s.settled(2); })) << s.waiting();
  // One step later the engine has queued them in the scheduler (still 2 waiting, A running).
  s.gates[0]->allow(1);
  ASSERT_TRUE(s.gates[0]->wait_entered(2));
  EXPECT_EQ(s.server->engine(0).num_waiting(), 2u);

  // n = 2 would make 4 waiting: refused; n = 1 fills the queue to the limit.
  expect_refused(request(port, "POST", "/v1/completions",
                         R"({"prompt":"Hello","max_tokens":5,"ignore_eos":true,"n":2})"));
  accepted.emplace_back(send(port, kCompletion), false);
  ASSERT_TRUE(testing::eventually([&] { return s.settled(3); })) << s.waiting();

  // Full: completions and chat completions, streaming or not, are refused.
  expect_refused(request(port, "POST", "/v1/completions", kCompletion));
  expect_refused(request(port, "POST", "/v1/completions", kStream));
  expect_refused(request(port, "POST", "/v1/chat/completions",
                         R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":3})"));
  EXPECT_EQ(s.rejections(), 4);
  EXPECT_EQ(request(port, "GET", "/health").status, 200);
  EXPECT_EQ(s.waiting(), 3u);  // refusals took nothing from the queue

  // Once the engine moves, everything accepted completes and the queue admits again.
  s.gates[0]->open();
  expect_completed(*running, true);
  for (auto& [c, stream] : accepted) expect_completed(*c, stream);
  EXPECT_EQ(testing::metric(port, kRejections), 4);
  EXPECT_EQ(testing::metric(port, R"(vllm:admission_rejections_total{model_name="Llama-3.1-8B",)"
                                  R"(reason="max_num_queued_tokens"})"),
            0);
  ASSERT_TRUE(testing::eventually([&] { return s.server->engine(0).num_unfinished() == 0; }));
  EXPECT_EQ(s.waiting(), 0u);
  EXPECT_EQ(request(port, "POST", "/v1/completions", kCompletion).status, 200);
  EXPECT_EQ(testing::metric(port, kRejections), 4);
  EXPECT_EQ(
      testing::metric(port, R"(vllm:request_success_total{engine="0",finished_reason="length",)"
                            R"(model_name="Llama-3.1-8B"})"),
      5);
}

TEST(AdmissionControl, ZeroRefusesEveryCompletionButServesTheOtherRoutes) {
  ServerOptions o = testing::test_options();
  o.max_waiting_requests = 0;
  auto server = testing::start_server(o);
  const uint16_t port = server->port();
  expect_refused(request(port, "POST", "/v1/completions", kCompletion));
  EXPECT_EQ(request(port, "GET", "/health").status, 200);
  EXPECT_EQ(request(port, "GET", "/v1/models").status, 200);
  EXPECT_EQ(request(port, "POST", "/tokenize", R"({"prompt":"Hello"})").status, 200);
  EXPECT_EQ(testing::metric(port, kRejections), 1);
}

TEST(AdmissionControl, WithoutTheFlagNothingIsRefused) {
  ServerOptions o = testing::test_options();
  o.engine.max_num_seqs = 1;
  GatedServer s(o);
  const uint16_t port = s.port();
  auto first = send(port, kCompletion);
  ASSERT_TRUE(s.gates[0]->wait_entered(1));
  std::vector<std::unique_ptr<Connection>> queued;
  for (int i = 0; i < 20; ++i) queued.push_back(send(port, kCompletion));
  ASSERT_TRUE(testing::eventually([&] { return s.settled(20); })) << s.waiting();
  s.gates[0]->open();
  expect_completed(*first, false);
  for (auto& c : queued) expect_completed(*c, false);
  EXPECT_EQ(testing::metric(port, kRejections), 0);
}

TEST(AdmissionControl, DataParallelEnginesShareOneLimit) {
  ServerOptions o = testing::test_options();
  o.data_parallel_size = 2;
  o.max_waiting_requests = 2;
  GatedServer s(o);
  const uint16_t port = s.port();
  // One request runs on each engine, held in its first step...
  auto a = send(port, kCompletion);
  ASSERT_TRUE(s.gates[0]->wait_entered(1));
  auto b = send(port, kCompletion);
  ASSERT_TRUE(s.gates[1]->wait_entered(1));
  // ...then one waits on each: 2 in all, the limit, though each engine has only 1.
  auto c = send(port, kCompletion);
  ASSERT_TRUE(testing::eventually([&] { return s.settled(1); })) << s.waiting();
  auto d = send(port, kCompletion);
  ASSERT_TRUE(testing::eventually([&] { return s.settled(2); })) << s.waiting();
  EXPECT_EQ(s.server->engine(0).num_waiting(), 1u);
  EXPECT_EQ(s.server->engine(1).num_waiting(), 1u);
  expect_refused(request(port, "POST", "/v1/completions", kCompletion));
  EXPECT_EQ(s.rejections(), 1);
  for (GateBackend* g : s.gates) g->open();
  for (auto* conn : {a.get(), b.get(), c.get(), d.get()}) expect_completed(*conn, false);
  EXPECT_EQ(testing::metric(port, kRejections), 1);
}

}  // namespace
}  // namespace llm
