#!/usr/bin/env python3
"""A real Prometheus server (Debian's package) scrapes llmserve on 127.0.0.1 during a short load;
PromQL over what it stored must give the figures the client measured: the number of requests with
a first token, the output tokens, and the share of requests whose TTFT was within 1 s (the TTFT SLO
share of docs/monitoring.md), with the server slowed so that some requests miss it.

Usage: prometheus_scrape_test.py PATH/TO/llmserve   (needs /usr/bin/prometheus; loopback only)
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

REQUESTS = 24
CONCURRENCY = 8


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_llmserve(binary):
    # Ten times the modelled step time and two sequences at a time: queueing pushes some TTFTs
    # past 1 s.
    proc = subprocess.Popen(
        [binary, "--host", "127.0.0.1", "--port", "0", "--model", "Llama-3.1-8B",
         "--served-model-name", "m", "--step-time-scale", "10", "--max-num-seqs", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 20
    while time.time() < deadline:
        m = re.search(r"listening on ([\d.]+):(\d+)", proc.stderr.readline())
        if m:
            return proc, int(m.group(2))
    proc.kill()
    raise SystemExit("llmserve did not start")


def stream_one(port, i, results):
    body = json.dumps({"model": "m", "prompt": "word " * (50 + 10 * i), "max_tokens": 20,
                       "ignore_eos": True, "stream": True,
                       "stream_options": {"include_usage": True}}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    t0 = time.monotonic()
    ttft = None
    tokens = 0
    with urllib.request.urlopen(req, timeout=120) as resp:
        for raw in resp:
            line = raw.decode().strip()
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            if chunk.get("choices") and chunk["choices"][0].get("text") and ttft is None:
                ttft = time.monotonic() - t0
            if chunk.get("usage"):
                tokens = chunk["usage"]["completion_tokens"]
    results.append((ttft, tokens))


def query(prom_port, expr):
    url = f"http://127.0.0.1:{prom_port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    data = json.load(urllib.request.urlopen(url, timeout=10))
    assert data["status"] == "success", data
    result = data["data"]["result"]
    return float(result[0]["value"][1]) if result else None


def main():
    if not shutil.which("prometheus"):
        print("FAIL: prometheus is not installed (ci/install-deps.sh installs it)")
        print("0 passed, 1 failed")
        sys.exit(1)
    serve, port = start_llmserve(sys.argv[1])
    work = tempfile.mkdtemp()
    prom_port = free_port()
    with open(os.path.join(work, "prometheus.yml"), "w") as f:
        f.write(f"""global:
  scrape_interval: 1s
scrape_configs:
  - job_name: vllm
    static_configs:
      - targets: ['127.0.0.1:{port}']
""")
    prom = subprocess.Popen(
        ["prometheus", f"--config.file={work}/prometheus.yml", f"--storage.tsdb.path={work}/data",
         f"--web.listen-address=127.0.0.1:{prom_port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    failures = []
    try:
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{prom_port}/-/ready", timeout=2)
                break
            except Exception:
                time.sleep(0.2)
        results = []
        pending = list(range(REQUESTS))
        lock = threading.Lock()

        def worker():
            while True:
                with lock:
                    if not pending:
                        return
                    i = pending.pop(0)
                stream_one(port, i, results)

        threads = [threading.Thread(target=worker) for _ in range(CONCURRENCY)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        time.sleep(3)  # a few more scrapes after the load
        within = sum(1 for ttft, _ in results if ttft <= 1.0)
        share_client = within / len(results)
        near = any(abs(ttft - 1.0) < 0.05 for ttft, _ in results)
        count = query(prom_port, 'sum by (model_name) (vllm:time_to_first_token_seconds_count{model_name="m"})')
        tokens = query(prom_port, 'sum by (model_name) (vllm:generation_tokens_total{model_name="m"})')
        share = query(prom_port, 'sum by (model_name) (vllm:time_to_first_token_seconds_bucket{le="1.0",model_name="m"})'
                                 ' / sum by (model_name) (vllm:time_to_first_token_seconds_count{model_name="m"})')
        up = query(prom_port, 'up{job="vllm"}')
        print(f"client: {len(results)} requests, {sum(t for _, t in results)} tokens, "
              f"TTFT<=1s share {share_client:.3f}; Prometheus: count {count}, tokens {tokens}, "
              f"share {share}, up {up}")
        if up != 1:
            failures.append("Prometheus could not scrape llmserve")
        if count != len(results):
            failures.append(f"TTFT count {count} != {len(results)} requests")
        if tokens != sum(t for _, t in results):
            failures.append(f"generation tokens {tokens} != client total")
        if not 0 < share_client < 1:
            failures.append(f"the load should make some TTFTs miss 1 s (client share {share_client})")
        tolerance = 1.0 / len(results) if near else 1e-9
        if share is None or abs(share - share_client) > tolerance:
            failures.append(f"SLO share from PromQL {share} != client share {share_client}")
    finally:
        prom.terminate()
        serve.terminate()
        prom.wait(timeout=30)
        serve.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
