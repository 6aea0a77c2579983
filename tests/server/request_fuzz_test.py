#!/usr/bin/env python3
"""Server-level fuzz: thousands of seeded random mutations of valid requests, sent to a running
llmserve over loopback from several threads: bytes flipped, fields dropped, types changed, huge
values, deep nesting, invalid UTF-8 in strings, keys, paths and headers, truncated bodies, broken
request lines, pipelined requests. Afterwards the process must be alive, /health 200, every
answer a well-formed HTTP response (a success of the route's shape, or the OpenAI error envelope)
and running, waiting and KV usage back to 0.

Usage: request_fuzz_test.py PATH/TO/llmserve [--cases N] [--seed S]   (standard library only)
A failure prints the seed, the case number and the bytes sent, so it can be replayed.
"""
import argparse
import json
import random
import re
import socket
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
import load_gen  # noqa: E402  (tests/server/load_gen.py)

READ_TIMEOUT_S = 1  # the server's --read-timeout: a truncated body is answered 408 this soon

VALID = [
    ("/v1/completions", {"model": "m", "prompt": "Hello there", "max_tokens": 4}),
    ("/v1/completions", {"model": "m", "prompt": [1, 2, 3], "max_tokens": 3, "stream": True,
                         "stream_options": {"include_usage": True}}),
    ("/v1/completions", {"prompt": ["a b", "c d"], "max_tokens": 2, "n": 2, "seed": 7,
                         "stop": ["the", "x"], "temperature": 0.5, "top_p": 0.9}),
    ("/v1/chat/completions", {"model": "m", "max_tokens": 4,
                              "messages": [{"role": "system", "content": "Be brief."},
                                           {"role": "user", "content": "Hi ünïcødé 漢字"}]}),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": "stream me"}],
                              "max_tokens": 3, "stream": True, "ignore_eos": True}),
    ("/v1/chat/completions", {"messages": [{"role": "critic", "content": "be harsh", "x": 1}],
                              "max_tokens": 2, "priority": 0, "cache_salt": "s1",
                              "x_future_field": {"a": [1]}}),
    ("/v1/responses", {"model": "m", "input": "Hello there", "max_output_tokens": 4,
                       "instructions": "Be brief.", "temperature": 0, "metadata": {"k": "v"}}),
    ("/v1/responses", {"input": [{"role": "user", "content": [{"type": "input_text", "text": "a"}]},
                                 {"type": "message", "role": "assistant", "content": "b"}],
                       "max_output_tokens": 3, "stream": True, "store": False, "tools": []}),
    ("/tokenize", {"model": "m", "prompt": "Hello world"}),
    ("/tokenize", {"messages": [{"role": "user", "content": "hi"}]}),
    ("/detokenize", {"model": "m", "tokens": [1, 2, 3]}),
]

TYPE_SWAPS = [None, True, 0, -1, 2**63, 2**64, -2**63 - 1, 1e308, -0.0, 3.5, "", "x" * 100,
              [], [1], [[]], {}, {"a": 1}, "\u0000", [None]]


class Failure(Exception):
    pass


CONTENT_TYPES = [b"application/json", b"application/json; charset=utf-8", b"APPLICATION/JSON",
                 b"text/plain", b"application/x-www-form-urlencoded", b"application/jsonx",
                 b"", b";", b"application/json;;;", b"\xff/json", b"multipart/form-data; boundary=x"]


def http_request(method, path, body, headers=None, close=True, content_type=b"application/json"):
    head = f"{method} {path} HTTP/1.1\r\nHost: fuzz\r\n".encode()
    for k, v in (headers or {}).items():
        head += k.encode() + b": " + v + b"\r\n"
    if body is not None:
        if content_type is not None:
            head += b"Content-Type: " + content_type + b"\r\n"
        head += b"Content-Length: %d\r\n" % len(body)
    head += b"Connection: close\r\n" if close else b""
    return head + b"\r\n" + (body or b"")


def mutate_json(rng, value, depth=0):
    """One structural mutation somewhere in a JSON value."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        value = dict(value)
        choice = rng.random()
        if choice < 0.25:
            del value[key]
        elif choice < 0.5:
            value[key] = rng.choice(TYPE_SWAPS)
        elif choice < 0.6:
            value[key + rng.choice(["", "_x", "\u00e9"])] = rng.choice(TYPE_SWAPS)
        else:
            value[key] = mutate_json(rng, value[key], depth + 1)
        return value
    if isinstance(value, list) and value and rng.random() < 0.7:
        value = list(value)
        i = rng.randrange(len(value))
        if rng.random() < 0.3:
            del value[i]
        else:
            value[i] = mutate_json(rng, value[i], depth + 1)
        return value
    if isinstance(value, str):
        return rng.choice([value * rng.randint(2, 2000), "", value[::-1], "\u2028" + value,
                           "<|eot_id|>" + value, "\ud7ff" + value])
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return rng.choice([0, -1, 2**31, 2**53 + 1, 10**30, 1e-300, -1e308, 128, 129, 100000])
    return rng.choice(TYPE_SWAPS)


def invalid_utf8_body(rng, body):
    """The JSON text with an ill-formed UTF-8 sequence inside a string (or a key)."""
    quotes = [m.start() for m in re.finditer(rb'"', body)]
    bad = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf",
                      b"\xe2\x82"])
    at = rng.choice(quotes) + 1 if quotes else rng.randrange(len(body) + 1)
    return body[:at] + bad + body[at:]


def make_case(rng):
    """Returns (description, bytes to send, expectation) for one random case."""
    path, valid = rng.choice(VALID)
    kind = rng.choice(["flip", "mutate", "mutate", "mutate2", "huge", "deep", "utf8", "utf8",
                       "truncated", "pipelined", "request_line", "header", "empty", "method",
                       "content_type"])
    body = json.dumps(valid, ensure_ascii=False).encode()
    if kind == "flip":
        body = bytearray(body)
        for _ in range(rng.randint(1, 6)):
            body[rng.randrange(len(body))] = rng.randrange(256)
        return kind, http_request("POST", path, bytes(body)), "one"
    if kind in ("mutate", "mutate2"):
        value = mutate_json(rng, valid)
        if kind == "mutate2":
            value = mutate_json(rng, value)
        data = json.dumps(value, ensure_ascii=rng.random() < 0.5).encode()
        return kind, http_request("POST", path, data), "one"
    if kind == "huge":
        value = dict(valid)
        field = rng.choice(["prompt", "max_tokens", "n", "stop", "seed", "messages", "tokens"])
        value[field] = rng.choice([
            "word " * 200000, list(range(20000)), 10**40, -(10**40), 2**64 - 1,
            ["s"] * 5000, [{"role": "user", "content": "x"}] * 3000, 1e308])
        return kind, http_request("POST", path, json.dumps(value).encode()), "one"
    if kind == "deep":
        depth = rng.choice([100, 1000, 20000, 200000])
        opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
        nested = opener * depth + "1" + closer * depth
        field = rng.choice(["prompt", "messages", "stop", "stream_options", "extra"])
        data = ('{"model":"m","%s":%s}' % (field, nested)).encode()
        return kind, http_request("POST", path, data), "one"
    if kind == "utf8":
        target = rng.random()
        if target < 0.7:
            return kind, http_request("POST", path, invalid_utf8_body(rng, body)), "one"
        if target < 0.85:
            headers = {"X-Request-Id": b"id-\xff\xfe-" + bytes([rng.randrange(128, 256)])}
            return kind, http_request("POST", path, body, headers=headers), "one"
        raw = (b"POST " + path.encode() + b"\xc3\x28?x=\xff HTTP/1.1\r\nHost: f\r\n"
               b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        return kind, raw, "one"
    if kind == "truncated":
        cut = rng.randrange(len(body))
        raw = http_request("POST", path, body)
        return kind, raw[:len(raw) - len(body) + cut], "timeout"
    if kind == "pipelined":
        count = rng.randint(2, 4)
        raw = b""
        for i in range(count):
            p, v = rng.choice(VALID)
            v = dict(v)
            v.pop("stream", None)
            data = json.dumps(v).encode()
            if rng.random() < 0.3:
                data = invalid_utf8_body(rng, data)
            raw += http_request("POST", p, data, close=(i == count - 1))
        return kind, raw, count
    if kind == "request_line":
        raw = bytearray(http_request("POST", path, body))
        end = raw.index(b"\r\n")
        for _ in range(rng.randint(1, 3)):
            raw[rng.randrange(end)] = rng.randrange(256)
        return kind, bytes(raw), "maybe"
    if kind == "header":
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
        junk = junk.replace(b"\r", b"").replace(b"\n", b"")
        raw = http_request("POST", path, body, headers={"X-Junk": junk})
        return kind, raw, "maybe"
    if kind == "content_type":
        ctype = rng.choice(CONTENT_TYPES + [None])  # None: no Content-Type header at all
        return kind, http_request("POST", path, body, content_type=ctype), "one"
    if kind == "empty":
        return kind, http_request("POST", path, rng.choice([b"", b"null", b"{}", b"[]", b"{"])), "one"
    # method
    method = rng.choice(["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "FOO"])
    return kind, http_request(method, path, body), "one"


def read_response(sock, buf):
    """Reads one HTTP response from sock (buf: bytes already read). Returns (status, headers,
    body, rest) or raises Failure when what arrives is not a well-formed response."""
    def need(n):
        nonlocal buf
        while len(buf) < n:
            data = sock.recv(65536)
            if not data:
                raise Failure(f"connection closed inside a response ({len(buf)} bytes)")
            buf += data

    while b"\r\n\r\n" not in buf:
        data = sock.recv(65536)
        if not data:
            raise Failure("connection closed before a response" if not buf else
                          f"connection closed inside the head: {buf[:200]!r}")
        buf += data
    head, buf = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    m = re.fullmatch(r"HTTP/1\.1 (\d{3}) [^\r\n]*", lines[0])
    if not m:
        raise Failure(f"bad status line {lines[0]!r}")
    status = int(m.group(1))
    headers = {}
    for line in lines[1:]:
        if ":" not in line:
            raise Failure(f"bad header line {line!r}")
        k, v = line.split(":", 1)
        headers[k.strip().lower()] = v.strip()
    if headers.get("transfer-encoding") == "chunked":
        body = b""
        while True:
            while b"\r\n" not in buf:
                need(len(buf) + 1)
            size_line, buf = buf.split(b"\r\n", 1)
            size = int(size_line, 16)
            need(size + 2)
            body += buf[:size]
            if buf[size:size + 2] != b"\r\n":
                raise Failure("bad chunk framing")
            buf = buf[size + 2:]
            if size == 0:
                break
    else:
        length = int(headers.get("content-length", "0"))
        need(length)
        body, buf = buf[:length], buf[length:]
    return status, headers, body, buf


def check_envelope(status, body):
    try:
        j = json.loads(body)
    except ValueError:
        raise Failure(f"{status} body is not JSON: {body[:200]!r}")
    err = j.get("error") if isinstance(j, dict) else None
    if not isinstance(err, dict) or not {"message", "type", "param", "code"} <= set(err):
        raise Failure(f"{status} body is not the error envelope: {body[:200]!r}")
    if err["code"] != status:
        raise Failure(f"envelope code {err['code']} != status {status}")


def check_success(status, headers, body):
    ctype = headers.get("content-type", "")
    text = body.decode("utf-8") if "text/event-stream" in ctype else ""
    if text.startswith("event: "):
        # The Responses API's typed events: no [DONE]; numbered in order; a final state.
        events = [json.loads(line[6:]) for line in text.split("\n") if line.startswith("data: ")]
        if [e.get("sequence_number") for e in events] != list(range(len(events))):
            raise Failure(f"responses events out of sequence: {text[:300]!r}")
        if not events or events[-1].get("type") not in ("response.completed",
                                                         "response.incomplete", "error"):
            raise Failure(f"responses stream without a final event: {text[-300:]!r}")
        return
    if "text/event-stream" in ctype:
        frames = [line[6:] for line in text.split("\n") if line.startswith("data: ")]
        if not frames or frames[-1] != "[DONE]":
            raise Failure(f"stream does not end with [DONE]: {body[-200:]!r}")
        for frame in frames[:-1]:
            json.loads(frame)
        return
    try:
        j = json.loads(body)
    except ValueError:
        raise Failure(f"{status} body is not JSON: {body[:200]!r}")
    if not isinstance(j, dict) or not ({"choices"} <= set(j) or {"tokens"} <= set(j) or
                                       {"prompt"} <= set(j) or j.get("object") == "response"):
        raise Failure(f"unexpected success body {body[:200]!r}")


def check_one(status, headers, body):
    if status >= 400:
        check_envelope(status, body)
    elif status == 200:
        check_success(status, headers, body)
    else:
        raise Failure(f"unexpected status {status}")


def run_case(host, port, case):
    kind, raw, expect = case
    sock = socket.create_connection((host, port), timeout=30)
    try:
        sock.sendall(raw)
        buf = b""
        if expect == "timeout":
            status, headers, body, buf = read_response(sock, buf)
            if status != 408:
                raise Failure(f"truncated body answered {status}, want 408")
            check_envelope(status, body)
            return
        if expect == "maybe":
            # A broken request line or header: a 4xx envelope, or a response to what it still
            # parses as; a connection closed without a response is the one thing allowed only
            # when the bytes were not HTTP at all.
            try:
                status, headers, body, buf = read_response(sock, buf)
            except Failure as e:
                if "before a response" in str(e):
                    return
                raise
            check_one(status, headers, body)
            return
        count = 1 if expect == "one" else expect
        for _ in range(count):
            status, headers, body, buf = read_response(sock, buf)
            check_one(status, headers, body)
    finally:
        sock.close()


def get(host, port, path):
    sock = socket.create_connection((host, port), timeout=10)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: f\r\nConnection: close\r\n\r\n".encode())
    status, _, body, _ = read_response(sock, b"")
    sock.close()
    return status, body.decode()


def gauge(metrics, name):
    total = 0.0
    for line in metrics.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            total += float(line.rsplit(" ", 1)[1])
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("llmserve")
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()

    server = load_gen.start_llmserve(
        args.llmserve, ["--served-model-name", "m", "--step-time-scale", "0", "--read-timeout",
                        str(READ_TIMEOUT_S), "--max-num-seqs", "64"])
    proc, host, port, log = server.proc, server.host, server.port, server.log

    rng = random.Random(args.seed)
    cases = [make_case(rng) for _ in range(args.cases)]
    failures = []
    counts = {}
    next_case = [0]
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                i = next_case[0]
                next_case[0] += 1
            if i >= len(cases) or len(failures) > 10:
                return
            kind = cases[i][0]
            try:
                run_case(host, port, cases[i])
                with lock:
                    counts[kind] = counts.get(kind, 0) + 1
            except (Failure, OSError, ValueError) as e:
                with lock:
                    failures.append((i, kind, repr(e), cases[i][1][:300]))

    started = time.time()
    threads = [threading.Thread(target=worker) for _ in range(args.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.time() - started

    alive = proc.poll() is None
    problems = []
    if not alive:
        problems.append(f"llmserve exited with {proc.returncode}")
    else:
        status, _ = get(host, port, "/health")
        if status != 200:
            problems.append(f"/health answered {status}")
        deadline = time.time() + 10
        while True:
            _, metrics = get(host, port, "/metrics")
            left = {name: gauge(metrics, name) for name in
                    ["vllm:num_requests_running", "vllm:num_requests_waiting",
                     "vllm:kv_cache_usage_perc"]}
            if all(v == 0 for v in left.values()) or time.time() > deadline:
                break
            time.sleep(0.1)
        if any(v != 0 for v in left.values()):
            problems.append(f"engine not drained: {left}")
        proc.terminate()
        proc.wait(timeout=30)
    for i, kind, error, sent in failures[:10]:
        problems.append(f"case {i} ({kind}, seed {args.seed}): {error}\n    sent: {sent!r}")
    print(f"{args.cases} cases in {elapsed:.1f} s on {args.threads} threads: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if problems:
        print("FAIL\n" + "\n".join(problems))
        print("server log tail:\n" + "".join(log[-20:]))
        sys.exit(1)
    print("ok: alive, /health 200, every answer well-formed, engine drained")


if __name__ == "__main__":
    main()
