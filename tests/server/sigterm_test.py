#!/usr/bin/env python3
"""SIGTERM drain: with a slow streaming request in flight, SIGTERM must put llmserve into draining
(/health answers 503), let the in-flight stream finish normally (finish_reason "length", then
[DONE]), and the process must exit 0 within --shutdown-timeout.

Usage: sigterm_test.py PATH/TO/llmserve   (loopback only; standard library only)
"""
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

SHUTDOWN_TIMEOUT_S = 20


def start(binary):
    proc = subprocess.Popen(
        [binary, "--host", "127.0.0.1", "--port", "0", "--served-model-name", "m",
         "--step-time-scale", "1", "--shutdown-timeout", str(SHUTDOWN_TIMEOUT_S)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 20
    line = ""
    while time.time() < deadline:
        line = proc.stderr.readline()
        m = re.search(r"listening on ([\d.]+):(\d+)", line)
        if m:
            # Keep draining stderr so that the server never blocks on a full pipe.
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return proc, m.group(1), int(m.group(2))
    proc.kill()
    raise SystemExit("llmserve did not start: " + line)


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


def main():
    proc, host, port = start(sys.argv[1])
    checks = []  # (name, ok, detail)
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
    failed = 0
    for name, ok, detail in checks:
        print(("ok  " if ok else "FAIL") + f" {name}" + ("" if ok or not detail else f": {detail}"))
        failed += 0 if ok else 1
    print(f"{len(checks) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
