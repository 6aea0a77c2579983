#!/usr/bin/env python3
"""A real Prometheus server (Debian's package) scrapes llmserve on 127.0.0.1 during a short load;
PromQL over what it stored must give the figures the client measured: the number of requests with
a first token, the output tokens, and the share of requests whose TTFT was within 1 s (the TTFT SLO
share of docs/monitoring.md), with the server slowed so that some requests miss it. After the
load, `promtool check metrics` lints the live /metrics, and the HTTP metrics count the requests.

Then the count expectations of vLLM's own metrics test (tests/entrypoints/serve/instrumentator/
test_metrics.py): N sequential completions of P prompt tokens and max_tokens M on a fresh llmserve
give N*(P+M) in vllm:iteration_tokens_total_sum, N*M in its _count, and so on.

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

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
import load_gen  # noqa: E402  (tests/server/load_gen.py)

REQUESTS = 24
CONCURRENCY = 8


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_llmserve(binary, *flags):
    server = load_gen.start_llmserve(
        binary, ["--model", "Llama-3.1-8B", "--served-model-name", "m", *flags])
    return server.proc, server.port


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


def get_metrics(port):
    return urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()


def sample(text, series):
    """The value of one sample line `series` (name{labels}) of an exposition, or None."""
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line[len(series) + 1:])
    return None


# promtool objects to the colon in vLLM's names; with it renamed, the exposition must parse, and
# the only lint is vLLM's own histogram name ending in _total.
ACCEPTED_LINT = 'vllm_iteration_tokens_total non-counter metrics should not have "_total" suffix'


def promtool_check(text):
    if not shutil.which("promtool"):
        return ["promtool is not installed (Debian's prometheus package)"]
    p = subprocess.run(["promtool", "check", "metrics"], input=text.replace("vllm:", "vllm_"),
                       capture_output=True, text=True)
    lint = [l for l in (p.stdout + p.stderr).splitlines() if l.strip()]
    if p.returncode == 0 or (p.returncode == 3 and all(ACCEPTED_LINT in l for l in lint)):
        return []
    return [f"promtool check metrics (rc {p.returncode}): {lint}"]


def check_vllm_counts(binary):
    """vLLM's test_metrics_counts, ported: sequential completions, then the counts on /metrics."""
    n, m = 10, 10
    prompt = list(range(100, 111))  # 11 token ids: below one block, so no prefix-cache hit
    p = len(prompt)
    serve, port = start_llmserve(binary)
    try:
        for _ in range(n):
            body = json.dumps({"model": "m", "prompt": prompt, "max_tokens": m,
                               "ignore_eos": True}).encode()
            req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/completions", data=body,
                                         headers={"Content-Type": "application/json"})
            usage = json.load(urllib.request.urlopen(req, timeout=60))["usage"]
            assert usage == {"prompt_tokens": p, "completion_tokens": m,
                             "total_tokens": p + m}, usage
        text = get_metrics(port)
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    labels = '{engine="0",model_name="m"}'
    expected = {
        "vllm:time_to_first_token_seconds_count": n,
        "vllm:inter_token_latency_seconds_count": n * (m - 1),
        "vllm:e2e_request_latency_seconds_count": n,
        "vllm:request_queue_time_seconds_count": n,
        "vllm:request_inference_time_seconds_count": n,
        "vllm:request_prefill_time_seconds_count": n,
        "vllm:request_decode_time_seconds_count": n,
        "vllm:request_num_preemptions_count": n,
        "vllm:request_prompt_tokens_sum": n * p,
        "vllm:request_prompt_tokens_count": n,
        "vllm:request_generation_tokens_sum": n * m,
        "vllm:request_generation_tokens_count": n,
        "vllm:request_params_n_count": n,
        "vllm:request_params_max_tokens_sum": n * m,
        "vllm:request_params_max_tokens_count": n,
        "vllm:iteration_tokens_total_sum": n * (p + m),
        "vllm:iteration_tokens_total_count": n * m,
        "vllm:prompt_tokens_total": n * p,
        "vllm:generation_tokens_total": n * m,
    }
    failures = []
    for name, want in expected.items():
        got = sample(text, name + labels)
        if got != want:
            failures.append(f"vLLM's count test: {name} is {got}, expected {want}")
    success = sum(sample(text, f'vllm:request_success_total{{engine="0",finished_reason="{r}",'
                               f'model_name="m"}}') or 0
                  for r in ("stop", "length", "abort", "error", "repetition"))
    if success != n:
        failures.append(f"vLLM's count test: request_success_total sums to {success}, not {n}")
    for family in ("vllm:num_requests_waiting_by_reason", "vllm:prefix_cache_queries",
                   "vllm:cache_config_info", "vllm:request_num_preemptions_bucket"):
        if family not in text:
            failures.append(f"vLLM's test_metrics_exist: {family} missing")
    info = re.search(r"^vllm:cache_config_info\{(.*)\} 1\.0$", text, re.M)
    for label in ("kv_cache_size_tokens", "kv_cache_max_concurrency"):
        value = re.search(label + r'="([^"]*)"', info.group(1)).group(1) if info else None
        if value in (None, "", "None"):
            failures.append(f"cache_config_info: {label} is {value!r}")
    handled = sample(text, 'http_requests_total{handler="/v1/completions",method="POST",'
                           'status="2xx"}')
    if handled != n:
        failures.append(f"http_requests_total for the completions is {handled}, not {n}")
    print(f"vLLM's count test: {n} requests of {p} + {m} tokens, iteration tokens sum "
          f"{sample(text, 'vllm:iteration_tokens_total_sum' + labels)} count "
          f"{sample(text, 'vllm:iteration_tokens_total_count' + labels)}")
    return failures


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
    # Ten times the modelled step time and two sequences at a time: queueing pushes some TTFTs
    # past 1 s.
    serve, port = start_llmserve(sys.argv[1], "--step-time-scale", "10", "--max-num-seqs", "2")
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
        live = get_metrics(port)
        failures += promtool_check(live)
        handled = sample(live, 'http_requests_total{handler="/v1/completions",method="POST",'
                               'status="2xx"}')
        if handled != REQUESTS:
            failures.append(f"http_requests_total for the completions is {handled}, "
                            f"not {REQUESTS}")
        http_5xx = query(prom_port, 'sum(http_requests_total{status="5xx"})')
        if http_5xx != 0:
            failures.append(f"PromQL finds {http_5xx} 5xx responses, expected 0")
    finally:
        prom.terminate()
        serve.terminate()
        prom.wait(timeout=30)
        serve.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    failures += check_vllm_counts(sys.argv[1])
    for f in failures:
        print("FAIL:", f)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
