#!/usr/bin/python3
"""Independent NumPy reference for a Llama-family decoder (Llama 2/3, Qwen2): used only by tests.

Reads a Hugging Face checkpoint directory (config.json + model.safetensors; the safetensors header
is parsed here, with numpy only), runs every prompt through the model in float64 and prints JSON:
{"logits": [prompt][position][vocab]}; with --logprobs also "logprobs", their log-softmax over the
vocabulary at every position (what the next token's log-probability is, before any sampling).

Usage: numpy_llama.py [--logprobs] MODEL_DIR PROMPT [PROMPT...]   where PROMPT is comma-separated
token ids.
"""
import json
import math
import struct
import sys

import numpy as np

DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_len])
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] == "BF16":
            begin, end = info["data_offsets"]
            raw = np.frombuffer(data[base + begin : base + end], dtype=np.uint16)
            values = (raw.astype(np.uint32) << 16).view(np.float32)
        else:
            begin, end = info["data_offsets"]
            values = np.frombuffer(data[base + begin : base + end], dtype=DTYPES[info["dtype"]])
        tensors[name] = values.astype(np.float64).reshape(info["shape"])
    return tensors


def inverse_frequencies(cfg, head_dim):
    theta = cfg.get("rope_theta", 10000.0)
    inv = 1.0 / theta ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    scaling = cfg.get("rope_scaling") or {}
    kind = scaling.get("rope_type", scaling.get("type"))
    if kind == "linear":
        inv = inv / scaling["factor"]
    elif kind == "llama3":
        factor = scaling["factor"]
        low, high = scaling["low_freq_factor"], scaling["high_freq_factor"]
        old = scaling["original_max_position_embeddings"]
        out = []
        for f in inv:
            wavelen = 2 * math.pi / f
            if wavelen < old / high:
                out.append(f)
            elif wavelen > old / low:
                out.append(f / factor)
            else:
                s = (old / wavelen - low) / (high - low)
                out.append((1 - s) * f / factor + s * f)
        inv = np.array(out)
    return inv


def rms_norm(x, weight, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def rotate(x, positions, inv):
    """x: [T, heads, head_dim] in rotate-half layout."""
    angles = positions[:, None] * inv[None, :]  # [T, half]
    cos = np.cos(np.concatenate([angles, angles], axis=-1))[:, None, :]
    sin = np.sin(np.concatenate([angles, angles], axis=-1))[:, None, :]
    half = x.shape[-1] // 2
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rotated * sin


def forward(cfg, w, tokens):
    hidden = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    kv_heads = cfg.get("num_key_value_heads", heads)
    head_dim = cfg.get("head_dim") or hidden // heads
    eps = cfg.get("rms_norm_eps", 1e-6)
    inv = inverse_frequencies(cfg, head_dim)
    T = len(tokens)
    positions = np.arange(T, dtype=np.float64)
    x = w["model.embed_tokens.weight"][np.array(tokens)]
    mask = np.triu(np.full((T, T), -np.inf), k=1)
    for i in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % i

        def linear(name, v):
            y = v @ w[p + name + ".weight"].T
            bias = w.get(p + name + ".bias")
            return y if bias is None else y + bias

        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = rotate(linear("self_attn.q_proj", h).reshape(T, heads, head_dim), positions, inv)
        k = rotate(linear("self_attn.k_proj", h).reshape(T, kv_heads, head_dim), positions, inv)
        v = linear("self_attn.v_proj", h).reshape(T, kv_heads, head_dim)
        group = heads // kv_heads
        k = np.repeat(k, group, axis=1)
        v = np.repeat(v, group, axis=1)
        scores = np.einsum("qhd,khd->hqk", q, k) / math.sqrt(head_dim) + mask
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        attn = np.einsum("hqk,khd->qhd", scores, v).reshape(T, heads * head_dim)
        x = x + linear("self_attn.o_proj", attn)
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate = linear("mlp.gate_proj", h)
        x = x + linear("mlp.down_proj", gate / (1 + np.exp(-gate)) * linear("mlp.up_proj", h))
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w.get("lm_head.weight")
    if head is None or cfg.get("tie_word_embeddings", False):
        head = w["model.embed_tokens.weight"]
    return x @ head.T


def log_softmax(logits):
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def main():
    args = sys.argv[1:]
    with_logprobs = bool(args) and args[0] == "--logprobs"
    if with_logprobs:
        args = args[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    model_dir = args[0]
    with open(model_dir + "/config.json") as f:
        cfg = json.load(f)
    weights = read_safetensors(model_dir + "/model.safetensors")
    prompts = [[int(t) for t in arg.split(",")] for arg in args[1:]]
    logits = [forward(cfg, weights, p) for p in prompts]
    out = {"logits": [l.tolist() for l in logits]}
    if with_logprobs:
        out["logprobs"] = [log_softmax(l).tolist() for l in logits]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
