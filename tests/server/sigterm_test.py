#!/usr/bin/env python3
"""SIGTERM drain, twice.

One slow stream: with a slow streaming request in flight, SIGTERM must put llmserve into draining
(/health answers 503), let the in-flight stream finish normally (finish_reason "length", then
[DONE]), and the process must exit 0 within --shutdown-timeout.

Under load: tests/server/load_gen.py keeps ~10x the server's capacity coming (--max-num-seqs 4,
--max-waiting-requests 8, so some requests run, some wait and the rest get 503) before, during
and after SIGTERM, until the process is gone, plus long streams that cannot finish before the
deadline. /health must answer 503 at once; every request accepted must get a whole answer: a
finished JSON body or an SSE stream ending in [DONE], with finish_reason "abort" for what was
still running or waiting at --shutdown-timeout; every other request a 503 with the error
envelope, or a refused connection once the listener is closed; no connection may get a reset or
EOF without a whole response, or hang. The request log must hold one line per accepted request,
its aborts matching what the clients saw; the exit code must be 0.

Usage: sigterm_test.py PATH/TO/llmserve   (loopback only; standard library only)
"""
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import tempfile
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
import load_gen  # noqa: E402  (tests/server/load_gen.py)

SHUTDOWN_TIMEOUT_S = 20
LOAD_SHUTDOWN_TIMEOUT_S = 3


def start(binary):
    server = load_gen.start_llmserve(
        binary, ["--served-model-name", "m", "--step-time-scale", "1", "--shutdown-timeout",
                 str(SHUTDOWN_TIMEOUT_S)])
    return server.proc, server.host, server.port


def open_stream(host, port):
    """Sends a slow streaming completion; returns the socket once the first token has arrived."""
    body = json.dumps({"model": "m", "prompt": "tell me a story", "max_tokens": 200,
                       "ignore_eos": True, "stream": True}).encode()
    request = (f"POST /v1/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body
    sock = socket.create_connection((host, port), timeout=30)
    sock.sendall(request)
    received = b""
    while b'"finish_reason":null' not in received:
        data = sock.recv(65536)
        if not data:
            break
        received += data
    return sock, received


def read_rest(sock, received, out):
    """Reads the stream to EOF (the request said Connection: close) into out["body"]."""
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                break
            received += data
    except OSError as e:
        out["error"] = str(e)
    out["body"] = received.decode(errors="replace")
    sock.close()


def health_status(host, port):
    """The /health status code, or None when the server no longer answers."""
    try:
        return urllib.request.urlopen(f"http://{host}:{port}/health", timeout=2).status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return None


def poll_health_for_503(host, port, stream_done, deadline):
    """Polls /health quickly until it answers 503; returns what was seen."""
    seen = []
    while time.time() < deadline:
        status = health_status(host, port)
        seen.append(status)
        if status == 503 or (status is None and stream_done.is_set()):
            break
        time.sleep(0.005)
    return seen


def one_slow_stream(binary, checks):
    proc, host, port = start(binary)
    try:
        checks.append(("healthy before SIGTERM", health_status(host, port) == 200, ""))
        sock, received = open_stream(host, port)
        out = {}
        stream_done = threading.Event()

        def reader():
            read_rest(sock, received, out)
            stream_done.set()

        thread = threading.Thread(target=reader)
        thread.start()
        signalled = time.time()
        proc.send_signal(signal.SIGTERM)
        seen = poll_health_for_503(host, port, stream_done, signalled + 10)
        running_at_503 = not stream_done.is_set()
        checks.append(("/health answers 503 while draining", 503 in seen,
                       f"statuses seen: {seen[-5:]}"))
        checks.append(("the stream was still running when /health said 503", running_at_503,
                       "the 200-token stream ended first"))
        thread.join(timeout=SHUTDOWN_TIMEOUT_S + 5)
        body = out.get("body", "")
        checks.append(("in-flight stream finishes with length",
                       '"finish_reason":"length"' in body, out.get("error", body[-300:])))
        # The raw body ends with the SSE [DONE] frame, then the last-chunk framing "0\r\n\r\n".
        checks.append(("in-flight stream ends with [DONE]",
                       body.rstrip("\r\n0").rstrip().endswith("data: [DONE]"), body[-200:]))
        tokens = body.count('"finish_reason":null') + body.count('"finish_reason":"length"')
        checks.append(("all 200 tokens streamed", tokens == 200, f"{tokens} token chunks"))
        try:
            rc = proc.wait(timeout=SHUTDOWN_TIMEOUT_S + 5)
        except subprocess.TimeoutExpired:
            rc = None
        elapsed = time.time() - signalled
        checks.append(("exits 0", rc == 0, f"exit status {rc}"))
        checks.append(("exits within --shutdown-timeout", rc is not None and
                       elapsed < SHUTDOWN_TIMEOUT_S, f"{elapsed:.2f} s"))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def long_stream_spec(i):
    body = {"model": "m", "prompt": f"a long story number {i}", "max_tokens": 2000,
            "ignore_eos": True, "stream": True}
    return "/v1/completions", body, True


async def load_until_exit(port, proc, tally, stop_at):
    """The load: long streams first, then ~10x capacity of the mix until the process has gone."""
    long_streams = [
        asyncio.ensure_future(load_gen.exchange("127.0.0.1", port, *long_stream_spec(i)))
        for i in range(2)]
    stop = threading.Event()

    async def watch():
        while proc.poll() is None:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # a little after the exit: connections are refused
        stop.set()

    watcher = asyncio.ensure_future(watch())
    await load_gen.open_loop("127.0.0.1", port, rate=30, duration=stop_at, max_in_flight=64,
                             seed=3, abort_share=0.0, tally=tally, stop=stop, keep=True,
                             timeout=LOAD_SHUTDOWN_TIMEOUT_S + 20)
    for r in await asyncio.gather(*long_streams):
        tally.add(r, keep=True)
    await watcher


def sigterm_under_load(binary, checks):
    log_path = os.path.join(tempfile.mkdtemp(), "requests.jsonl")
    server = load_gen.start_llmserve(
        binary, ["--served-model-name", "m", "--step-time-scale", "10", "--max-num-seqs", "4",
                 "--max-waiting-requests", "8", "--shutdown-timeout",
                 str(LOAD_SHUTDOWN_TIMEOUT_S), "--request-log", log_path])
    proc, port = server.proc, server.port
    tally = load_gen.Tally()
    health = []  # (seconds after SIGTERM, status)
    signalled = [None]
    rc = None
    try:
        def terminate_later():
            time.sleep(2.5)  # the queue is full and requests run
            signalled[0] = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            while proc.poll() is None:
                status = health_status("127.0.0.1", port)
                health.append((time.monotonic() - signalled[0], status))
                if status is None:
                    break
                time.sleep(0.005)

        killer = threading.Thread(target=terminate_later)
        killer.start()
        asyncio.run(load_until_exit(port, proc, tally, stop_at=60))
        killer.join()
        try:
            rc = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            rc = None
        exited_after = time.monotonic() - signalled[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    results = tally.results
    c = tally.counts
    t_sig = signalled[0]
    first_503 = next((t for t, st in health if st == 503), None)
    checks.append(("under load: /health answers 503 at once after SIGTERM",
                   first_503 is not None and first_503 < 0.25
                   and all(st != 200 for t, st in health if t >= first_503),
                   f"first 503 after {first_503} s; seen {health[:3]}...{health[-3:]}"))
    checks.append(("under load: every connection got a whole answer (no reset, EOF or hang)",
                   c.get("bad", 0) == 0, f"counts {c}, examples {tally.bad[:5]}"))
    accepted = [r for r in results if r.kind in ("ok", "error")]
    aborts = sum(r.finish_reasons.count("abort") for r in accepted)
    finished = sum(1 for r in accepted if set(r.finish_reasons) <= {"stop", "length"})
    checks.append(("under load: requests running at SIGTERM finished, the rest were aborted at "
                   "the deadline", finished > 0 and aborts > 0,
                   f"{finished} finished, {aborts} choices aborted, counts {c}"))
    before = [r for r in results if r.sent_at < t_sig]
    checks.append(("under load: 503s happened before SIGTERM (the queue was full)",
                   any(r.kind == "rejected" for r in before), f"counts {c}"))
    after = [r for r in results if r.sent_at > t_sig + 0.05]
    checks.append(("under load: requests sent while draining got 503 or a refused connection",
                   all(r.kind in ("rejected", "refused") for r in after) and
                   any(r.kind == "rejected" and "shutting down" in r.message for r in after),
                   f"{sorted(set(r.kind for r in after))}, {len(after)} requests"))
    try:
        with open(log_path) as f:
            lines = [json.loads(line) for line in f if line.strip()]
    except OSError:
        lines = []
    logged_aborts = sum(line["finish_reasons"].count("abort") for line in lines)
    checks.append(("under load: one request-log line per accepted request, aborts counted",
                   len(lines) == len(accepted) and logged_aborts == aborts,
                   f"{len(lines)} lines for {len(accepted)} accepted; {logged_aborts} logged "
                   f"aborts, {aborts} seen by clients"))
    checks.append(("under load: exits 0", rc == 0, f"exit status {rc}"))
    checks.append(("under load: exits within --shutdown-timeout + 5 s",
                   rc is not None and exited_after < LOAD_SHUTDOWN_TIMEOUT_S + 5,
                   f"{exited_after:.2f} s"))
    print(f"under load: {len(results)} requests: {c}; {finished} finished, {aborts} aborted at "
          f"the deadline; /health 503 after {first_503} s; exit {rc} after {exited_after:.2f} s")


def main():
    checks = []  # (name, ok, detail)
    one_slow_stream(sys.argv[1], checks)
    sigterm_under_load(sys.argv[1], checks)
    failed = 0
    for name, ok, detail in checks:
        print(("ok  " if ok else "FAIL") + f" {name}" + ("" if ok or not detail else f": {detail}"))
        failed += 0 if ok else 1
    print(f"{len(checks) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
