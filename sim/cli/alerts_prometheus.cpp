#include "sim/cli/alerts_prometheus.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "loadgen/http_get.h"
#include "sim/time_text.h"

namespace llm {
namespace {

volatile sig_atomic_t g_server_pid = 0;
struct sigaction g_previous[3];
constexpr int kStopSignals[3] = {SIGINT, SIGTERM, SIGHUP};

char g_work_dir[4096];  // removed by the handler (a signal skips the destructors)

// Only async-signal-safe calls: kill, waitpid, fork, execvp, _exit, signal, raise.
void stop_server_on_signal(int sig) {
  const pid_t server = static_cast<pid_t>(g_server_pid);
  if (server > 0) {
    kill(server, SIGTERM);
    int status = 0;
    waitpid(server, &status, 0);
    if (g_work_dir[0] != '\0') {
      const pid_t rm = fork();
      if (rm == 0) {
        char* argv[] = {const_cast<char*>("rm"), const_cast<char*>("-rf"), const_cast<char*>("--"),
                        g_work_dir, nullptr};
        execvp("rm", argv);
        _exit(127);
      }
      if (rm > 0) waitpid(rm, &status, 0);
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

std::string tail_of_file(const std::string& path, size_t max_chars = 2000) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  if (text.size() > max_chars) text = "..." + text.substr(text.size() - max_chars);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// Starts argv[0] (looked up on PATH) with stdout and stderr into `log`. Exit code 127 from the
// child means it could not be run.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + log + ": " + std::strerror(errno));
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fd);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    const int null_in = open("/dev/null", O_RDONLY);
    if (null_in >= 0) dup2(null_in, STDIN_FILENO);
    execvp(args[0], args.data());
    const std::string why =
        std::string("cannot run ") + args[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, why.data(), why.size());
    _exit(127);
  }
  close(fd);
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs a tool to its end; returns its exit code, with its output in `log`.
int run_tool(const std::vector<std::string>& argv, const std::string& log) {
  const int code = wait_exit_code(spawn(argv, log));
  if (code == 127) {
    throw std::runtime_error(tail_of_file(log) +
                             " (llmsim alerts needs Debian's prometheus package: promtool and "
                             "prometheus; see ci/install-deps.sh)");
  }
  return code;
}

uint16_t free_local_port() {
  const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(s);
    throw std::runtime_error(std::string("cannot find a free port: ") + std::strerror(errno));
  }
  close(s);
  return ntohs(addr.sin_port);
}

std::string url_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace

std::string promtool_check_rules(const PrometheusTools& tools, const std::string& rules_path,
                                 const std::string& work_dir) {
  const std::string log = work_dir + "/check-rules.log";
  if (run_tool({tools.promtool, "check", "rules", rules_path}, log) == 0) return "";
  return tail_of_file(log);
}

LocalPrometheus::LocalPrometheus(const PrometheusTools& tools, const std::string& openmetrics_path,
                                 const std::string& work_dir)
    : work_dir_(work_dir) {
  const std::string tsdb = work_dir + "/tsdb";
  const std::string backfill_log = work_dir + "/backfill.log";
  if (run_tool({tools.promtool, "tsdb", "create-blocks-from", "openmetrics", "--quiet",
                openmetrics_path, tsdb},
               backfill_log) != 0) {
    throw std::runtime_error("promtool tsdb create-blocks-from openmetrics failed: " +
                             tail_of_file(backfill_log));
  }
  const std::string config = work_dir + "/prometheus.yml";
  std::ofstream(config) << "global:\n  scrape_interval: 15s\nscrape_configs: []\n";
  const std::string log = work_dir + "/prometheus.log";
  port_ = free_local_port();
  pid_ = spawn({tools.prometheus, "--config.file=" + config, "--storage.tsdb.path=" + tsdb,
                "--storage.tsdb.retention.time=100y",
                "--web.listen-address=127.0.0.1:" + std::to_string(port_)},
               log);
  g_server_pid = pid_;
  if (work_dir.size() < sizeof g_work_dir) {
    std::memcpy(g_work_dir, work_dir.c_str(), work_dir.size() + 1);
  }
  for (int i = 0; i < 3; ++i) {
    struct sigaction sa {};
    sa.sa_handler = stop_server_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(kStopSignals[i], &sa, &g_previous[i]);
  }
  loadgen::BenchConfig target;
  target.host = "127.0.0.1";
  target.port = port_;
  // Up to 60 s: a large TSDB takes a while to open on a loaded machine.
  for (int attempt = 0; attempt < 600; ++attempt) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      g_server_pid = 0;
      throw std::runtime_error("prometheus exited before it was ready: " + tail_of_file(log));
    }
    try {
      if (loadgen::http_get(target, "/-/ready").status == 200) return;
    } catch (const std::runtime_error&) {
      // not listening yet
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  stop();
  throw std::runtime_error("prometheus was not ready after 60 s: " + tail_of_file(log));
}

LocalPrometheus::~LocalPrometheus() { stop(); }

void LocalPrometheus::stop() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    bool done = false;
    for (int i = 0; i < 100 && !done; ++i) {
      const pid_t r = waitpid(pid_, &status, WNOHANG);
      done = r == pid_ || (r < 0 && errno != EINTR);
      if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!done) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
    g_server_pid = 0;
    g_work_dir[0] = '\0';
    for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &g_previous[i], nullptr);
  }
}

std::vector<RangeSeries> LocalPrometheus::query_range(const std::string& expr, int64_t start_ns,
                                                      int64_t end_ns, int64_t step_ns) const {
  loadgen::BenchConfig target;
  target.host = "127.0.0.1";
  target.port = port_;
  const std::string path = "/api/v1/query_range?query=" + url_encode(expr) +
                           "&start=" + unix_seconds_text(start_ns) +
                           "&end=" + unix_seconds_text(end_ns) + "&step=" + duration_text(step_ns);
  const loadgen::HttpGetResult r = loadgen::http_get(target, path);
  try {
    return parse_query_range_answer(r.body);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) + " (HTTP " + std::to_string(r.status) +
                             ", expression: " + expr + ")");
  }
}

bool LocalPrometheus::has_series(const std::string& selector, int64_t start_ns,
                                 int64_t end_ns) const {
  loadgen::BenchConfig target;
  target.host = "127.0.0.1";
  target.port = port_;
  const std::string path = "/api/v1/series?match[]=" + url_encode(selector) +
                           "&start=" + unix_seconds_text(start_ns) +
                           "&end=" + unix_seconds_text(end_ns);
  const loadgen::HttpGetResult r = loadgen::http_get(target, path);
  try {
    return series_answer_count(r.body) > 0;
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) + " (HTTP " + std::to_string(r.status) +
                             ", selector: " + selector + ")");
  }
}

}  // namespace llm
