#!/usr/bin/python3
"""The KV-cache event contract of llmserve --kv-events-config, checked as llm-d's subscriber reads
it, against a real llmserve on the sim backend with a small KV cache (so that blocks are evicted):

- every message has three frames: the topic kv@<POD_IP>:<http port>@<served model name>, an 8-byte
  big-endian sequence number counting from 0 without gaps, and a msgpack [ts, events, dp_rank];
- by default the events are vLLM's tagged maps (PR #42892: "type" and vLLM's field names in its
  order, extra_keys one nil per block, group_idx 0, kv_cache_spec_kind "full_attention"); with
  "event_format": "array" they have vLLM's older array layout (tag first); every hash is packed as
  a fixed 8-byte uint64,
  a stored block's parent is nil or a hash announced before and not removed since, its token count
  is block_size x hashes, and the tokens along the parent chain begin one of the prompts sent;
- removals never exceed stores; the workload does evict;
- the replay socket answers a start sequence number with the same bytes, by default in vLLM's reply
  layout ([seq, payload] after the delimiter, then [-1, ""]); with "replay_layout": "llm-d" with
  the topic first;
- the engine's own prefix cache agrees: for probe prompts, the hit that the announced state
  predicts (the longest run of live blocks, as a precise-prefix router computes it) is the hit the
  server counts in vllm:prefix_cache_hits_total;
- with --data-parallel-size 2, engine i publishes on the endpoint's port + i, with its own
  sequence numbers from 0 and dp_rank i;
- with --data-parallel-separate-ports too, engine i's topic names its own HTTP port (the endpoint
  a router sees) and its drop counter is on that port's /metrics only.

Usage: kv_events_contract_test.py PATH/TO/llmserve   (Debian's python3-zmq and python3-msgpack)
"""
import json
import os
import re
import socket
import struct
import sys
import threading
import time
import urllib.request

import msgpack
import zmq

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
import load_gen  # noqa: E402  (tests/server/load_gen.py)

BLOCK = 16
MODEL = "org/model-x"
POD_IP = "10.9.8.7"


def fail(message):
    raise SystemExit("FAIL: " + message)


# ---- llmserve ----

def start_llmserve(binary, config, *flags, http_ports=1):
    """Starts llmserve (load_gen.start_llmserve); returns it, its HTTP port (a list of http_ports
    ports when more than one) and per engine (endpoint, replay, topic)."""
    server = load_gen.start_llmserve(
        binary, ["--model", "Llama-3.1-8B", "--served-model-name", MODEL,
                 "--num-gpu-blocks-override", "24", "--max-model-len", "256", "--block-size",
                 str(BLOCK), "--step-time-scale", "0", "--kv-events-config", json.dumps(config),
                 *flags],
        env=dict(os.environ, POD_IP=POD_IP), listeners=http_ports, echo=True)
    engines = []
    for line in list(server.log):
        m = re.search(r"engine (\d+) publishes KV events on (\S+?),? (?:replay on (\S+), )?"
                      r"topic (\S+)", line)
        if m:
            engines.append((m.group(2), m.group(3), m.group(4)))
    return server.proc, server.port if http_ports == 1 else server.ports, engines


def free_port_pair():
    """A port P with P + 1 free too (for the data-parallel offset)."""
    for _ in range(50):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            if port >= 65535:
                continue
            try:
                with socket.socket() as b:
                    b.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
            return port
    fail("no free pair of ports")


def complete(port, prompt, max_tokens):
    body = json.dumps({"model": MODEL, "prompt": prompt, "max_tokens": max_tokens,
                       "ignore_eos": True}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())


def metric(port, name):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    total, found = 0.0, False
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            total += float(line.rsplit(" ", 1)[1])
            found = True
    if not found:
        fail(f"/metrics has no {name}")
    return total


# ---- msgpack, read by hand to see how each hash is packed ----

class Raw:
    """A minimal msgpack reader for the types a KV event batch uses; records each integer's type
    byte so that the hash widths can be checked."""

    def __init__(self, data):
        self.data, self.at = data, 0

    def byte(self):
        b = self.data[self.at]
        self.at += 1
        return b

    def take(self, n):
        chunk = self.data[self.at:self.at + n]
        self.at += n
        return chunk

    def value(self):
        """(value, type byte) with arrays as lists of such pairs."""
        t = self.byte()
        if t <= 0x7f:
            return t, t
        if 0x90 <= t <= 0x9f:
            return [self.value() for _ in range(t & 0x0f)], t
        if t == 0xdc:
            return [self.value() for _ in range(struct.unpack(">H", self.take(2))[0])], t
        if t == 0xdd:
            return [self.value() for _ in range(struct.unpack(">I", self.take(4))[0])], t
        if 0x80 <= t <= 0x8f:
            return self.map(t & 0x0f), t
        if t == 0xde:
            return self.map(struct.unpack(">H", self.take(2))[0]), t
        if 0xa0 <= t <= 0xbf:
            return self.take(t & 0x1f).decode(), t
        if t == 0xd9:
            return self.take(self.byte()).decode(), t
        if t == 0xc0:
            return None, t
        if t == 0xcb:
            return struct.unpack(">d", self.take(8))[0], t
        widths = {0xcc: ">B", 0xcd: ">H", 0xce: ">I", 0xcf: ">Q", 0xd0: ">b", 0xd1: ">h",
                  0xd2: ">i", 0xd3: ">q"}
        if t in widths:
            fmt = widths[t]
            return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0], t
        if t >= 0xe0:
            return t - 0x100, t
        fail(f"unexpected msgpack type byte 0x{t:02x}")


    def map(self, n):
        """A map as a dict of key -> (value, type byte); keys are strings here."""
        out = {}
        for _ in range(n):
            key, _ = self.value()
            out[key] = self.value()
        return out


def plain(pair):
    v, _ = pair
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return [plain(x) for x in v] if isinstance(v, list) else v


def check_hash_widths(payload):
    raw = Raw(payload)
    batch = raw.value()
    if raw.at != len(payload):
        fail("trailing bytes after the batch")
    if plain(batch) != msgpack.unpackb(payload, raw=False):
        fail("the hand reader and msgpack disagree")
    for event, _ in batch[0][1][0]:
        if isinstance(event, dict):  # the map format: fields by name
            tag = event["type"][0]
            hashes = event.get("block_hashes", ([], 0))[0]
            parent_type = event.get("parent_block_hash", (None, 0xc0))[1]
        else:
            tag = event[0][0]
            hashes = event[1][0] if len(event) > 1 else []
            parent_type = event[2][1] if tag == "BlockStored" else 0xc0
        if any(t != 0xcf for _, t in hashes):
            fail(f"{tag}: a hash not packed as 8-byte uint64")
        if tag == "BlockStored" and parent_type not in (0xc0, 0xcf):
            fail("BlockStored: parent hash not nil or 8-byte uint64")


# ---- the subscriber: what a precise-prefix router learns ----

STORED_KEYS = ["type", "block_hashes", "parent_block_hash", "token_ids", "block_size", "lora_id",
               "medium", "lora_name", "extra_keys", "group_idx", "kv_cache_spec_kind"]
REMOVED_KEYS = ["type", "block_hashes", "medium", "group_idx"]


def positional(e):
    """A map-format event (vLLM PR #42892) checked field by field, as the older array layout."""
    tag = e.get("type")
    if tag == "BlockStored":
        if list(e) != STORED_KEYS:
            fail(f"BlockStored keys {list(e)}, want {STORED_KEYS}")
        if e["extra_keys"] != [None] * len(e["block_hashes"]) or e["group_idx"] != 0 or \
                e["kv_cache_spec_kind"] != "full_attention":
            fail(f"BlockStored extra_keys/group/kind {e['extra_keys'], e['group_idx'], e['kv_cache_spec_kind']}")
        return [tag] + [e[k] for k in STORED_KEYS[1:8]]
    if tag == "BlockRemoved":
        if list(e) != REMOVED_KEYS or e["group_idx"] != 0:
            fail(f"BlockRemoved {e}")
        return [tag, e["block_hashes"], e["medium"]]
    if tag == "AllBlocksCleared" and list(e) == ["type"]:
        return [tag]
    fail(f"unknown event {e}")


class Router:
    def __init__(self, topic, event_format="map"):
        self.topic = topic
        self.event_format = event_format
        self.next_seq = 0
        self.live = {}          # hash -> copies stored and not removed
        self.by_content = {}    # (parent hash, tokens) -> hash
        self.tokens = {}        # hash -> (parent, tokens)
        self.payloads = []      # by sequence number
        self.stored = self.removed = 0
        self.prompts = []
        self.started = time.time()

    def receive(self, frames):
        if len(frames) != 3:
            fail(f"{len(frames)} frames, want 3")
        topic, seq, payload = frames
        if topic.decode() != self.topic:
            fail(f"topic {topic!r}, want {self.topic!r}")
        if len(seq) != 8:
            fail(f"sequence frame of {len(seq)} bytes")
        n = int.from_bytes(seq, "big")
        if n != self.next_seq:
            fail(f"sequence {n} after {self.next_seq - 1}: want {self.next_seq}")
        self.next_seq += 1
        self.payloads.append(payload)
        check_hash_widths(payload)
        ts, events, dp_rank = msgpack.unpackb(payload, raw=False)
        if dp_rank != 0:
            fail(f"dp_rank {dp_rank}")
        if not isinstance(ts, float) or not self.started - 5 <= ts <= time.time() + 5:
            fail(f"timestamp {ts} is not the wall clock")
        for e in events:
            if isinstance(e, dict) != (self.event_format == "map"):
                fail(f"an event {e!r} not in the {self.event_format} format")
            self.apply(positional(e) if isinstance(e, dict) else e)

    def apply(self, e):
        tag = e[0]
        if tag == "BlockStored":
            if len(e) != 8:
                fail(f"BlockStored with {len(e)} fields, want 8")
            _, hashes, parent, tokens, block_size, lora_id, medium, lora_name = e
            if block_size != BLOCK or medium != "GPU" or lora_id is not None or lora_name:
                fail(f"BlockStored fields {block_size, lora_id, medium, lora_name}")
            if not hashes or len(tokens) != block_size * len(hashes):
                fail(f"{len(tokens)} tokens for {len(hashes)} hashes of {block_size}")
            if parent is not None and self.live.get(parent, 0) <= 0:
                fail(f"parent {parent} not announced or already removed")
            for i, h in enumerate(hashes):
                block = tuple(tokens[i * BLOCK:(i + 1) * BLOCK])
                self.tokens[h] = (parent, block)
                self.by_content[(parent, block)] = h
                self.live[h] = self.live.get(h, 0) + 1
                self.check_prefix(h)
                parent = h
            self.stored += len(hashes)
        elif tag == "BlockRemoved":
            if len(e) != 3 or e[2] != "GPU":
                fail(f"BlockRemoved {e}")
            for h in e[1]:
                if self.live.get(h, 0) <= 0:
                    fail(f"removed {h}, which is not live")
                self.live[h] -= 1
            self.removed += len(e[1])
        elif tag == "AllBlocksCleared":
            self.live.clear()
        else:
            fail(f"unknown event tag {tag!r}")

    def check_prefix(self, h):
        seq = []
        while h is not None:
            parent, block = self.tokens[h]
            seq[:0] = block
            h = parent
        if not any(p[:len(seq)] == seq[:len(p)] for p in self.prompts):
            fail("a stored block's tokens along its parents begin no prompt sent")

    def predicted_hit(self, prompt):
        """Tokens of `prompt` the engine holds, as a router computes it from the events."""
        parent, hit = None, 0
        for i in range((len(prompt) - 1) // BLOCK):
            h = self.by_content.get((parent, tuple(prompt[i * BLOCK:(i + 1) * BLOCK])))
            if h is None or self.live.get(h, 0) <= 0:
                break
            parent, hit = h, hit + BLOCK
        return hit


def drain(sub, router, quiet_s=0.3):
    """Receives until nothing has come for quiet_s."""
    while sub.poll(int(quiet_s * 1000)):
        router.receive(sub.recv_multipart())


def single_engine(binary, legacy=False):
    """The whole contract on one engine: by default vLLM's map events and replay layout; with
    legacy, the array events and the topic-first replay layout chosen in the config."""
    config = {"enable_kv_cache_events": True, "publisher": "zmq",
              "endpoint": "tcp://127.0.0.1:*", "replay_endpoint": "tcp://127.0.0.1:*",
              "buffer_steps": 100000}
    if legacy:
        config.update(event_format="array", replay_layout="llm-d")
    proc, port, engines = start_llmserve(binary, config)
    if len(engines) != 1 or engines[0][1] is None:
        fail(f"startup announced {engines}")
    endpoint, replay_endpoint, topic = engines[0]
    try:
        want_topic = f"kv@{POD_IP}:{port}@{MODEL}"
        if topic != want_topic:
            fail(f"announced topic {topic}, want {want_topic}")
        ctx = zmq.Context()
        sub = ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.SUBSCRIBE, b"kv@")
        sub.connect(endpoint)
        time.sleep(0.5)  # ZeroMQ's slow joiner: the subscription must reach the publisher
        router = Router(want_topic, "array" if legacy else "map")

        # Shared prefixes (system prompts A and B, 3 and 2 blocks), per-request suffixes, and
        # unrelated prompts long enough to evict: 24 blocks in all (23 usable).
        a = list(range(100, 100 + 3 * BLOCK))
        b = list(range(400, 400 + 2 * BLOCK))
        workload = []
        for i in range(6):
            workload.append(a + list(range(1000 + 40 * i, 1000 + 40 * i + 20)))
            workload.append(b + list(range(2000 + 40 * i, 2000 + 40 * i + 9)))
            if i % 2:
                workload.append(list(range(3000 + 200 * i, 3000 + 200 * i + 6 * BLOCK + 3)))
        router.prompts = workload + [a, b]
        threads = []
        for n, prompt in enumerate(workload):
            if n % 3 == 2:  # some concurrency: copies of one block computed at once
                t = threading.Thread(target=complete, args=(port, prompt, 5))
                t.start()
                threads.append(t)
            else:
                complete(port, prompt, 5)
            drain(sub, router, 0.05)
        for t in threads:
            t.join()
        drain(sub, router)
        if router.stored == 0 or router.removed == 0:
            fail(f"the workload stored {router.stored} and removed {router.removed} blocks")

        # The engine's own cache against the announced state, one probe at a time.
        probes = [a + [7] * 5, b + [8] * 20, workload[0], workload[1][:40], list(range(5000, 5050)),
                  a + [7] * 5]
        hits_seen = 0
        for probe in probes:
            router.prompts.append(probe)
            predicted = router.predicted_hit(probe)
            before = metric(port, "vllm:prefix_cache_hits_total")
            complete(port, probe, 1)
            counted = metric(port, "vllm:prefix_cache_hits_total") - before
            if counted != predicted:
                fail(f"probe of {len(probe)} tokens: the events predict a hit of {predicted} "
                     f"tokens, the server counted {counted}")
            hits_seen += predicted
            drain(sub, router)
        if hits_seen == 0:
            fail("no probe hit: the comparison checked nothing")

        # Replay from sequence 1: the same payloads, then the end marker.
        dealer = ctx.socket(zmq.DEALER)
        dealer.connect(replay_endpoint)
        dealer.send_multipart([b"", (1).to_bytes(8, "big")])
        for seq in range(1, router.next_seq):
            if not dealer.poll(5000):
                fail(f"replay stopped before sequence {seq}")
            frames = dealer.recv_multipart()
            if frames[0] or (legacy and frames[1:2] != [want_topic.encode()]):
                fail(f"replay frames {frames[:2]}")
            frames = frames[2:] if legacy else frames[1:]  # now [seq, payload]
            if len(frames) != 2:
                fail(f"replay reply of {len(frames)} frames after the delimiter (and topic)")
            if int.from_bytes(frames[0], "big") != seq or frames[1] != router.payloads[seq]:
                fail(f"replay of sequence {seq} differs from what was published")
        if not dealer.poll(5000):
            fail("no end marker after the replay")
        end = dealer.recv_multipart()
        if end[(2 if legacy else 1):] != [b"\xff" * 8, b""]:
            fail(f"end marker {end}")

        dropped = metric(port, "llmserve:kv_events_dropped_total")
        if dropped != 0:
            fail(f"{dropped} batches dropped")
        print(f"ok ({'array events, topic-first replay' if legacy else 'map events, vLLM replay'}): "
              f"{router.next_seq} batches, {router.stored} blocks stored, {router.removed} "
              f"removed, {len(probes)} probes matched the server's prefix-cache hits "
              f"({hits_seen} tokens)")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def data_parallel(binary):
    """Two engines: engine i publishes on the endpoint's port + i, sequences from 0 each, with
    dp_rank i in its payloads."""
    for attempt in range(3):  # another process may take the free pair before llmserve binds it
        base = free_port_pair()
        config = {"enable_kv_cache_events": True, "endpoint": f"tcp://*:{base}"}
        try:
            proc, port, engines = start_llmserve(binary, config, "--data-parallel-size", "2")
            break
        except SystemExit as e:
            if attempt == 2 or "exited with code" not in str(e):
                raise
    try:
        ports = [int(e[0].rsplit(":", 1)[1]) for e in engines]
        if ports != [base, base + 1] or any(e[1] for e in engines):
            fail(f"data-parallel endpoints {engines}, want ports {base} and {base + 1}")
        ctx = zmq.Context()
        subs = []
        for p in ports:
            sub = ctx.socket(zmq.SUB)
            sub.setsockopt(zmq.SUBSCRIBE, b"")
            sub.connect(f"tcp://127.0.0.1:{p}")
            subs.append(sub)
        time.sleep(0.5)
        # Concurrent requests so that both engines get some (fewest unfinished first).
        threads = [threading.Thread(target=complete, args=(port, list(range(10 * i, 10 * i + 40)), 3))
                   for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for rank, sub in enumerate(subs):
            seq = 0
            while sub.poll(300):
                topic, seq_bytes, payload = sub.recv_multipart()
                if int.from_bytes(seq_bytes, "big") != seq:
                    fail(f"engine {rank}: sequence {int.from_bytes(seq_bytes, 'big')}, want {seq}")
                if msgpack.unpackb(payload, raw=False)[2] != rank:
                    fail(f"engine {rank}: a payload with another dp_rank")
                if topic.decode() != f"kv@{POD_IP}:{port}@{MODEL}":
                    fail(f"engine {rank}: topic {topic!r}")
                seq += 1
            if seq == 0:
                fail(f"engine {rank} published nothing")
        print(f"ok: data parallel, engines on ports {ports} with their own sequences and ranks")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def separate_ports(binary):
    """Two engines on ports of their own: each topic names its engine's HTTP port, each drop
    counter is on its engine's /metrics."""
    config = {"enable_kv_cache_events": True, "endpoint": "tcp://127.0.0.1:*"}
    proc, ports, engines = start_llmserve(binary, config, "--data-parallel-size", "2",
                                          "--data-parallel-separate-ports", http_ports=2)
    try:
        topics = [e[2] for e in engines]
        want = [f"kv@{POD_IP}:{p}@{MODEL}" for p in ports]
        if topics != want:
            fail(f"separate ports {ports}: topics {topics}, want {want}")
        for engine, port in enumerate(ports):
            text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
            series = re.findall(r'^llmserve:kv_events_dropped_total\{[^}]*engine="(\d+)"', text, re.M)
            if series != [str(engine)]:
                fail(f"port {port}: drop counters of engines {series}, want only {engine}")
        print(f"ok: separate ports {ports}, topics {topics}, a drop counter on each port")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    single_engine(sys.argv[1])
    single_engine(sys.argv[1], legacy=True)
    data_parallel(sys.argv[1])
    separate_ports(sys.argv[1])
