#!/usr/bin/env python3
"""Disconnect storm: 200 streaming clients of llmserve drop at random points (before the first
token or mid-stream). Afterwards the engine must hold nothing (running = waiting = 0, KV usage 0)
and vllm:request_success_total{finished_reason="abort"} must equal the number of disconnects.

Usage: disconnect_storm_test.py PATH/TO/llmserve   (loopback only; standard library only)
"""
import json
import random
import socket
import sys
import threading
import time
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
import load_gen  # noqa: E402  (tests/server/load_gen.py)

CLIENTS = 200


def start(binary):
    server = load_gen.start_llmserve(
        binary, ["--model", "Llama-3.2-1B", "--served-model-name", "m", "--step-time-scale", "1",
                 "--max-num-seqs", "64"])
    return server.proc, server.host, server.port


def metrics(host, port):
    text = urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10).read().decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            series, value = line.rsplit(" ", 1)
            values[series] = float(value)
    return values


def one_client(host, port, seed, dropped):
    rng = random.Random(seed)
    body = json.dumps({"model": "m", "prompt": "tell me a long story " * rng.randint(1, 40),
                       "max_tokens": 2000, "ignore_eos": True, "stream": True}).encode()
    request = (f"POST /v1/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    sock = socket.create_connection((host, port), timeout=30)
    try:
        sock.sendall(request)
        # Drop before reading anything (before the first token, usually) or after some chunks.
        want = rng.choice([0, 0, 1, 3, 10, 40])
        got = 0
        while got < want:
            data = sock.recv(4096)
            if not data:
                break
            got += data.count(b"data: ")
        dropped.append(1)
    finally:
        sock.close()


def main():
    proc, host, port = start(sys.argv[1])
    failures = []
    try:
        dropped = []
        threads = [threading.Thread(target=one_client, args=(host, port, i, dropped))
                   for i in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # Aborts are applied between engine steps; give the engine a moment to settle.
        labels = 'engine="0",model_name="m"'
        deadline = time.time() + 20
        while True:
            m = metrics(host, port)
            aborts = m[f'vllm:request_success_total{{engine="0",finished_reason="abort",model_name="m"}}']
            idle = (m[f"vllm:num_requests_running{{{labels}}}"] == 0 and
                    m[f"vllm:num_requests_waiting{{{labels}}}"] == 0 and
                    m[f"vllm:kv_cache_usage_perc{{{labels}}}"] == 0)
            if (idle and aborts == len(dropped)) or time.time() > deadline:
                break
            time.sleep(0.2)
        print(f"disconnects {len(dropped)}, aborts counted {aborts}, idle {idle}")
        if len(dropped) != CLIENTS:
            failures.append(f"only {len(dropped)} of {CLIENTS} clients ran")
        if not idle:
            failures.append("the engine still holds requests or KV blocks: " + json.dumps(
                {k: v for k, v in m.items() if "running" in k or "waiting" in k or "kv_cache" in k}))
        if aborts != len(dropped):
            failures.append(f"abort count {aborts} != disconnects {len(dropped)}")
        stop = m[f'vllm:request_success_total{{engine="0",finished_reason="stop",model_name="m"}}']
        length = m[f'vllm:request_success_total{{engine="0",finished_reason="length",model_name="m"}}']
        if stop + length != 0:
            failures.append(f"{stop + length} requests finished normally; every client dropped")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    for f in failures:
        print("FAIL:", f)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
