#!/usr/bin/env python3
"""A bounded load generator for llmserve on loopback, standard library only (asyncio streams, one
request per connection). Requests follow a seeded mix: completions and chat completions, streaming
and not, prompts of 8 to 160 words, max_tokens 8 to 64, some with ignore_eos, and some streams that
the client drops mid-stream (a client abort). Every answer is classified strictly:

  ok        200 with a whole body: JSON with a finish_reason, or an SSE stream whose every event is
            JSON and which ends with "data: [DONE]" and the last chunk
  error     200 stream that ends with an error frame, then [DONE]
  rejected  503 with the error envelope (type ServiceUnavailableError, code 503); with Retry-After
            when it is an admission refusal (--max-waiting-requests)
  aborted   a stream this client dropped on purpose after a few chunks
  refused   the connection was refused (no listener: only legitimate once the server has stopped)
  bad       anything else: another status, a malformed or truncated response, a reset or EOF
            without a whole response, or no answer within the timeout (a hang)

Commands:
  load_gen.py run --port P --rate R --duration S [--max-in-flight C]
      open-loop Poisson arrivals at R requests/s for S seconds, at most C requests in flight (an
      arrival finding C in flight is skipped and counted); prints a JSON summary
  load_gen.py calibrate --port P --concurrency C --duration S
      closed loop: C clients send the mix back to back; requests completed per second (ok and
      client aborts) is the server's capacity for this mix
  load_gen.py soak --llmserve PATH [--duration-s S]
      the soak test of ci/soak.sh (see there): llmserve at 10x its measured capacity, RSS, queue
      and 503 accounting, drain at the end
"""
import argparse
import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

WORDS = ("the quick brown fox jumps over a lazy dog while seven wizards quietly judge "
         "boxing matches near old stone bridges under grey autumn skies").split()

ADMISSION_MESSAGE = "currently busy"


# ---- the request mix ----------------------------------------------------------------------------

def make_spec(rng, model="m", abort_share=0.1):
    """One request of the mix: (path, body dict, stream, abort_after or None)."""
    stream = rng.random() < 0.5
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 160)))
    body = {"model": model, "max_tokens": rng.randint(8, 64), "stream": stream}
    if rng.random() < 0.3:
        body["ignore_eos"] = True
    if rng.random() < 0.2:
        path = "/v1/chat/completions"
        body["messages"] = [{"role": "user", "content": words}]
    else:
        path = "/v1/completions"
        body["prompt"] = words
    abort_after = rng.randint(1, 4) if stream and rng.random() < abort_share else None
    return path, body, stream, abort_after


# ---- one HTTP exchange --------------------------------------------------------------------------

class Result:
    __slots__ = ("kind", "status", "detail", "stream", "finish_reasons", "latency", "retry_after",
                 "message", "sent_at")

    def __init__(self, kind, status=0, detail="", stream=False):
        self.kind = kind
        self.status = status
        self.detail = detail
        self.stream = stream
        self.finish_reasons = []
        self.latency = 0.0
        self.retry_after = None
        self.message = ""
        self.sent_at = 0.0


def _check_envelope(body, status):
    """The error message when body is the OpenAI error envelope for `status`, else None."""
    try:
        err = json.loads(body)["error"]
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(err, dict) or err.get("code") != status or "message" not in err:
        return None
    if status == 503 and err.get("type") != "ServiceUnavailableError":
        return None
    return err["message"]


async def exchange(host, port, path, body, stream, abort_after=None, timeout=120.0):
    """Sends one request on a new connection and classifies what comes back (a Result)."""
    result = Result("bad", stream=stream)
    t0 = time.monotonic()
    result.sent_at = t0
    payload = json.dumps(body).encode()
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n").encode()
    writer = None
    try:
        async def run():
            nonlocal writer
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(head + payload)
            await writer.drain()
            await _read_response(reader, writer, result, abort_after)
        await asyncio.wait_for(run(), timeout)
    except ConnectionRefusedError:
        result.kind = "refused"
    except asyncio.TimeoutError:
        result.kind, result.detail = "bad", f"no whole answer within {timeout:.0f} s"
    except asyncio.IncompleteReadError as e:
        result.kind, result.detail = "bad", f"EOF after {len(e.partial)} more bytes"
    except (ConnectionError, OSError) as e:
        result.kind, result.detail = "bad", f"{type(e).__name__}: {e}"
    except asyncio.LimitOverrunError as e:
        result.kind, result.detail = "bad", f"line too long: {e}"
    finally:
        if writer is not None:
            writer.close()
    result.latency = time.monotonic() - t0
    return result


async def _read_response(reader, writer, result, abort_after):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    m = re.match(r"HTTP/1\.1 (\d{3}) ", lines[0] + " ")
    if not m:
        result.detail = "bad status line: " + lines[0][:80]
        return
    result.status = int(m.group(1))
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    result.retry_after = headers.get("retry-after")
    if headers.get("transfer-encoding") == "chunked":
        await _read_stream(reader, writer, result, abort_after)
        return
    length = int(headers.get("content-length", "0"))
    body = (await reader.readexactly(length)).decode(errors="replace")
    if result.status == 200:
        try:
            j = json.loads(body)
            result.finish_reasons = [c["finish_reason"] for c in j["choices"]]
        except (ValueError, KeyError, TypeError):
            result.detail = "200 without a completion body: " + body[:120]
            return
        if not result.finish_reasons or None in result.finish_reasons:
            result.detail = "200 with an unfinished choice: " + body[:120]
            return
        result.kind = "ok"
    elif result.status == 503:
        message = _check_envelope(body, 503)
        if message is None:
            result.detail = "503 without the error envelope: " + body[:120]
            return
        result.kind, result.message = "rejected", message
    else:
        result.detail = f"status {result.status}: " + body[:120]


async def _read_stream(reader, writer, result, abort_after):
    """Reads chunked SSE to the last chunk, checking each event; drops it after abort_after content
    events when asked to."""
    if result.status != 200:
        result.detail = f"chunked answer with status {result.status}"
        return
    buffer = b""
    events = 0
    done = False
    error_frame = False
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.strip(), 16)
        data = await reader.readexactly(size + 2)
        if size == 0:
            break
        buffer += data[:-2]
        while b"\n\n" in buffer:
            frame, buffer = buffer.split(b"\n\n", 1)
            text = frame.decode(errors="replace")
            if not text.startswith("data: "):
                result.detail = "not an SSE data event: " + text[:80]
                return
            if done:
                result.detail = "an event after [DONE]"
                return
            payload = text[6:]
            if payload == "[DONE]":
                done = True
                continue
            try:
                j = json.loads(payload)
            except ValueError:
                result.detail = "an event that is not JSON: " + payload[:80]
                return
            if "error" in j:
                error_frame = True
                continue
            for c in j.get("choices", []):
                if c.get("finish_reason") is not None:
                    result.finish_reasons.append(c["finish_reason"])
            events += 1
            if abort_after is not None and events >= abort_after and not done:
                writer.transport.abort()  # the client goes away mid-stream
                result.kind = "aborted"
                return
    if buffer:
        result.detail = "bytes after the last event: " + buffer[:80].decode(errors="replace")
    elif not done:
        result.detail = "the stream ended without [DONE]"
    elif error_frame:
        result.kind = "error"
    elif not result.finish_reasons:
        result.detail = "[DONE] without a finish_reason"
    else:
        result.kind = "ok"


# ---- load shapes --------------------------------------------------------------------------------

class Tally:
    """Counts of results by kind, plus the first few bad ones and per-kind details."""

    def __init__(self):
        self.counts = {}
        self.bad = []
        self.finish = {}
        self.rejected_admission = 0  # 503 with Retry-After and the admission message
        self.rejected_other = 0      # other 503s (draining, engine failed)
        self.skipped = 0             # arrivals that found the in-flight bound reached
        self.results = []
        self.latencies_ok = []

    def add(self, r, keep=False):
        self.counts[r.kind] = self.counts.get(r.kind, 0) + 1
        if r.kind == "bad" and len(self.bad) < 20:
            self.bad.append(r.detail)
        if r.kind == "ok":
            self.latencies_ok.append(r.latency)
            for f in r.finish_reasons:
                self.finish[f] = self.finish.get(f, 0) + 1
        if r.kind == "rejected":
            if r.retry_after is not None and ADMISSION_MESSAGE in r.message:
                self.rejected_admission += 1
            else:
                self.rejected_other += 1
        if keep:
            self.results.append(r)

    def summary(self):
        lat = sorted(self.latencies_ok)
        pct = (lambda q: round(lat[min(len(lat) - 1, int(q * len(lat)))], 3)) if lat else None
        return {"counts": self.counts, "finish_reasons": self.finish,
                "rejected_admission": self.rejected_admission,
                "rejected_other": self.rejected_other, "skipped": self.skipped,
                "bad_examples": self.bad,
                "ok_latency_s": {"p50": pct(0.5), "p99": pct(0.99)} if lat else None}


async def open_loop(host, port, rate, duration, max_in_flight, seed=1, model="m",
                    abort_share=0.1, tally=None, stop=None, keep=False, timeout=120.0):
    """Poisson arrivals at `rate`/s for `duration` s (or until stop.is_set()), at most
    max_in_flight at once; waits for those in flight at the end."""
    rng = random.Random(seed)
    tally = tally or Tally()
    in_flight = set()
    t_end = time.monotonic() + duration
    next_at = time.monotonic()

    async def one(spec):
        path, body, stream, abort_after = spec
        tally.add(await exchange(host, port, path, body, stream, abort_after, timeout), keep)

    while time.monotonic() < t_end and not (stop and stop.is_set()):
        next_at += rng.expovariate(rate)
        delay = next_at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        spec = make_spec(rng, model, abort_share)
        if len(in_flight) >= max_in_flight:
            tally.skipped += 1
            continue
        task = asyncio.ensure_future(one(spec))
        in_flight.add(task)
        task.add_done_callback(in_flight.discard)
    if in_flight:
        await asyncio.gather(*in_flight)
    return tally


async def closed_loop(host, port, concurrency, duration, seed=1, model="m", abort_share=0.1):
    """`concurrency` clients back to back; returns (tally, elapsed seconds)."""
    tally = Tally()
    t_end = time.monotonic() + duration

    async def client(i):
        rng = random.Random(seed * 1000 + i)
        while time.monotonic() < t_end:
            path, body, stream, abort_after = make_spec(rng, model, abort_share)
            tally.add(await exchange(host, port, path, body, stream, abort_after))

    t0 = time.monotonic()
    await asyncio.gather(*(client(i) for i in range(concurrency)))
    return tally, time.monotonic() - t0


def served(tally):
    """Requests the server completed for a client: whole answers and client aborts."""
    return tally.counts.get("ok", 0) + tally.counts.get("aborted", 0)


# ---- starting llmserve (every Python test starts it here) --------------------------------------

class LlmserveDidNotStart(SystemExit):
    """llmserve exited, or printed no `listening on` line in time. A SystemExit: uncaught, it ends
    the test with its message."""


class Llmserve:
    """A started llmserve: `proc` (a subprocess.Popen), `host`, `ports` (one per `listening on`
    line; `port` is the first) and `log`, the lines it printed on stdout and stderr, which a
    thread keeps reading (so that the server never blocks on a full pipe) and appending to."""

    def __init__(self, proc, host, ports, log):
        self.proc = proc
        self.host = host
        self.ports = ports
        self.log = log

    @property
    def port(self):
        return self.ports[0]


def start_llmserve(binary, args, env=None, listen=True, listeners=1, echo=False, timeout_s=30):
    """Starts `binary ARGS` and returns an Llmserve once it has printed `listeners` lines of
    `listening on HOST:PORT` (one per port: --data-parallel-separate-ports prints several).
    listen: add `--host 127.0.0.1 --port 0` (a free port on loopback) before ARGS; False when
    ARGS name the address. env: the environment (default: this process's). echo: copy each line
    printed before the server listens to this process's stderr. Raises LlmserveDidNotStart when
    the server exits or does not listen within timeout_s."""
    address = ["--host", "127.0.0.1", "--port", "0"] if listen else []
    proc = subprocess.Popen([binary, *address, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace", env=env)
    deadline = time.time() + timeout_s
    log = []
    host, ports = None, []
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:  # the server exited
            code = proc.wait(timeout=30)
            raise LlmserveDidNotStart(f"llmserve {' '.join(args)} exited with code {code} at "
                                      "startup: " + "".join(log)[-2000:])
        log.append(line)
        if echo:
            sys.stderr.write(line)
        m = re.search(r"listening on ([\d.]+):(\d+)", line)
        if m:
            host = host or m.group(1)
            ports.append(int(m.group(2)))
        if len(ports) == listeners:
            def drain():
                for rest in proc.stdout:
                    log.append(rest)
            threading.Thread(target=drain, daemon=True).start()
            return Llmserve(proc, host, ports, log)
    proc.kill()
    proc.wait()
    raise LlmserveDidNotStart(f"llmserve {' '.join(args)} did not listen within {timeout_s} s: " +
                              "".join(log)[-2000:])


def get(port, path, timeout=10):
    """(status, body) of a GET on loopback; status None when nothing answers."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except OSError:
        return None, ""


def metric_sum(text, name, **labels):
    """The sum of every series of `name` whose labels include `labels`."""
    total = 0.0
    found = False
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        series, value = line.rsplit(" ", 1)
        if all(f'{k}="{v}"' in series for k, v in labels.items()):
            total += float(value)
            found = True
    return total if found else None


def rss_kib(pid):
    """(VmRSS, VmHWM) of a process in KiB, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            text = f.read()
    except OSError:
        return None
    values = dict(re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", text, re.M))
    return int(values.get("VmRSS", 0)), int(values.get("VmHWM", 0))


class Sampler(threading.Thread):
    """Once a second: llmserve's RSS, /health, and the queue gauges from /metrics."""

    def __init__(self, proc, port):
        super().__init__(daemon=True)
        self.proc, self.port = proc, port
        self.stop = threading.Event()
        self.rss = []           # (seconds since start, KiB)
        self.health = {}        # status -> count
        self.max_waiting = 0.0  # all engines together
        self.max_running = 0.0
        self.scrapes = 0
        self.t0 = time.monotonic()

    def run(self):
        while not self.stop.is_set():
            t = time.monotonic() - self.t0
            rss = rss_kib(self.proc.pid)
            if rss:
                self.rss.append((t, rss[0]))
            status, _ = get(self.port, "/health", timeout=5)
            self.health[status] = self.health.get(status, 0) + 1
            status, text = get(self.port, "/metrics", timeout=5)
            if status == 200:
                self.scrapes += 1
                self.max_waiting = max(self.max_waiting,
                                       metric_sum(text, "vllm:num_requests_waiting") or 0)
                self.max_running = max(self.max_running,
                                       metric_sum(text, "vllm:num_requests_running") or 0)
            self.stop.wait(max(0.0, 1.0 - (time.monotonic() - self.t0 - t)))


# ---- soak ---------------------------------------------------------------------------------------

def soak(args):
    duration = args.duration_s
    calibrate_s = args.calibrate_s or max(10, min(30, duration // 4))
    max_num_seqs, max_waiting = 16, 32
    server_args = ["--served-model-name", "m", "--step-time-scale", str(args.step_time_scale),
                   "--max-num-seqs", str(max_num_seqs), "--max-waiting-requests",
                   str(max_waiting), "--shutdown-timeout", "10"]
    server = start_llmserve(args.llmserve, server_args)
    proc, port, log = server.proc, server.port, server.log
    checks = []  # (name, ok, detail)
    figures = {"server_args": " ".join(server_args), "duration_s": duration}
    try:
        # Capacity: a closed loop that keeps the engine saturated without refusals (16 running,
        # up to 16 more waiting of the 32 allowed).
        cal, elapsed = asyncio.run(closed_loop("127.0.0.1", port, max_num_seqs * 2, calibrate_s))
        capacity = served(cal) / elapsed
        figures["calibration"] = {"seconds": round(elapsed, 1), "served": served(cal),
                                  "capacity_rps": round(capacity, 2), **cal.summary()}
        checks.append(("calibration saw no refusals or bad answers",
                       cal.counts.get("bad", 0) == 0 and cal.counts.get("rejected", 0) == 0,
                       json.dumps(cal.summary())))
        _, text = get(port, "/metrics")
        base_rejections = metric_sum(text, "vllm:admission_rejections_total") or 0.0
        base_success = metric_sum(text, "vllm:request_success_total") or 0.0

        rate = args.overload * capacity
        sampler = Sampler(proc, port)
        sampler.start()
        tally = asyncio.run(open_loop("127.0.0.1", port, rate, duration, args.max_in_flight,
                                      seed=2))
        sampler.stop.set()
        sampler.join()
        load_s = time.monotonic() - sampler.t0
        c = tally.counts
        sent = sum(c.values())
        figures["load"] = {"target_rps": round(rate, 1), "sent": sent,
                           "achieved_rps": round(sent / load_s, 1), **tally.summary()}

        # Everything drains: gauges back to idle.
        drained = {}
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            _, text = get(port, "/metrics")
            drained = {k: metric_sum(text, k) for k in
                       ("vllm:num_requests_running", "vllm:num_requests_waiting",
                        "vllm:kv_cache_usage_perc")}
            if all(v == 0 for v in drained.values()):
                break
            time.sleep(0.2)
        rejections = (metric_sum(text, "vllm:admission_rejections_total") or 0.0) - base_rejections
        success = (metric_sum(text, "vllm:request_success_total") or 0.0) - base_success
        preemptions = metric_sum(text, "vllm:num_preemptions_total") or 0.0

        # RSS: flat after warm-up.
        rss = sampler.rss
        quarter = [v for t, v in rss if t <= load_s / 4]
        last_half = [v for t, v in rss if t >= load_s / 2]
        # VmHWM is the kernel's high-water mark; a sample can read a little above it (the two come
        # from differently synchronised counters), so the peak is the larger of the two.
        hwm = max([(rss_kib(proc.pid) or (0, 0))[1]] + [v for _, v in rss])
        figures["rss_kib"] = {"samples": len(rss), "first": rss[0][1] if rss else None,
                              "max_first_quarter": max(quarter) if quarter else None,
                              "max_last_half": max(last_half) if last_half else None,
                              "last": rss[-1][1] if rss else None, "peak": hwm}
        figures["queue"] = {"max_waiting_seen": sampler.max_waiting,
                            "max_running_seen": sampler.max_running, "scrapes": sampler.scrapes,
                            "preemptions": preemptions}
        figures["metrics"] = {"admission_rejections_total": rejections,
                              "request_success_total": success,
                              "served_rps_under_overload": round(success / load_s, 2)}
        figures["health"] = {str(k): v for k, v in sampler.health.items()}
        figures["drained"] = drained

        checks.append(("llmserve is alive after the load", proc.poll() is None,
                       f"exit status {proc.poll()}"))
        checks.append(("every answer is a whole 200 or a 503 with the envelope (or a client "
                       "abort)", c.get("bad", 0) == 0 and c.get("error", 0) == 0 and
                       c.get("refused", 0) == 0 and tally.rejected_other == 0,
                       f"counts {c}, 503s without Retry-After {tally.rejected_other}, "
                       f"examples {tally.bad[:5]}"))
        checks.append(("503s happened (the load is above capacity)", tally.rejected_admission > 0,
                       f"{tally.rejected_admission}"))
        checks.append(("503 count == vllm:admission_rejections_total",
                       tally.rejected_admission == rejections,
                       f"client {tally.rejected_admission}, server {rejections}"))
        checks.append(("every accepted request counted once in request_success_total",
                       success == c.get("ok", 0) + c.get("aborted", 0),
                       f"server {success}, client ok {c.get('ok', 0)} + aborted "
                       f"{c.get('aborted', 0)}"))
        checks.append(("vllm:num_requests_waiting never above --max-waiting-requests",
                       sampler.max_waiting <= max_waiting,
                       f"max seen {sampler.max_waiting} (preemptions {preemptions})"))
        checks.append(("vllm:num_requests_running never above --max-num-seqs",
                       sampler.max_running <= max_num_seqs, f"max seen {sampler.max_running}"))
        checks.append(("/health answered 200 throughout",
                       set(sampler.health) == {200}, f"{sampler.health}"))
        checks.append(("drained: running 0, waiting 0, kv_cache_usage_perc 0",
                       drained and all(v == 0 for v in drained.values()), f"{drained}"))
        ok_rss = bool(quarter and last_half) and max(last_half) <= 1.10 * max(quarter)
        checks.append(("RSS flat after warm-up: max of the last half <= 1.10 x max of the first "
                       "quarter", ok_rss, f"{figures['rss_kib']}"))

        # Finally SIGTERM: a clean exit.
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            rc = None
        checks.append(("SIGTERM at the end: exit 0", rc == 0, f"exit status {rc}"))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    print(json.dumps(figures, indent=2))
    failed = 0
    for name, ok, detail in checks:
        print(("ok  " if ok else "FAIL") + f" {name}" + ("" if ok else f": {detail}"))
        failed += 0 if ok else 1
    cal_rps = figures.get("calibration", {}).get("capacity_rps")
    load = figures.get("load", {})
    print(f"soak: {duration} s at {args.overload:g}x capacity ({cal_rps} req/s measured; "
          f"{load.get('achieved_rps')} req/s sent), peak RSS "
          f"{figures.get('rss_kib', {}).get('peak')} KiB, 503s "
          f"{load.get('rejected_admission')}, {len(checks) - failed} checks passed, "
          f"{failed} failed")
    if failed:
        sys.stderr.write("llmserve stderr (tail):\n" + "".join(log[-20:]))
    return 1 if failed else 0


# ---- command line -------------------------------------------------------------------------------

def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--rate", type=float, required=True)
    r.add_argument("--duration", type=float, required=True)
    r.add_argument("--max-in-flight", type=int, default=256)
    r.add_argument("--seed", type=int, default=1)
    c = sub.add_parser("calibrate")
    c.add_argument("--port", type=int, required=True)
    c.add_argument("--concurrency", type=int, default=32)
    c.add_argument("--duration", type=float, default=20)
    s = sub.add_parser("soak")
    s.add_argument("--llmserve", required=True)
    s.add_argument("--duration-s", type=int, default=int(os.environ.get("DURATION_S", "600")))
    s.add_argument("--calibrate-s", type=int, default=0, help="default: duration/4 in [10, 30]")
    s.add_argument("--overload", type=float, default=10.0, help="the load, x capacity")
    s.add_argument("--step-time-scale", type=float, default=10.0)
    s.add_argument("--max-in-flight", type=int, default=256)
    a = p.parse_args()
    if a.command == "run":
        tally = asyncio.run(open_loop("127.0.0.1", a.port, a.rate, a.duration, a.max_in_flight,
                                      seed=a.seed))
        print(json.dumps(tally.summary(), indent=2))
        return 1 if tally.counts.get("bad") else 0
    if a.command == "calibrate":
        tally, elapsed = asyncio.run(closed_loop("127.0.0.1", a.port, a.concurrency, a.duration))
        print(json.dumps({"capacity_rps": round(served(tally) / elapsed, 2), "seconds": elapsed,
                          **tally.summary()}, indent=2))
        return 0
    return soak(a)


if __name__ == "__main__":
    sys.exit(main())
