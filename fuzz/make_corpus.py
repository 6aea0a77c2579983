#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/TARGET/NAME), small hand-made inputs
in the byte layout each target's header describes (most take a selector byte first). Run from
anywhere; it rewrites the files it owns and leaves others (e.g. minimised regressions) alone.
The binary seeds (GGUF, safetensors) are built here rather than kept only as opaque bytes."""
import json
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def sel(b, text):
    return bytes([b]) + (text.encode() if isinstance(text, str) else text)


# 1. http_request: byte 0 chunk size (0 = all at once), byte 1 bit 0 small limits.
put("http_request", "post_json", sel(0, sel(0, "POST /v1/completions HTTP/1.1\r\nHost: x\r\n"
    "Content-Type: application/json\r\nContent-Length: 14\r\n\r\n{\"prompt\":\"a\"}")))
put("http_request", "chunked", sel(7, sel(0, "POST /v1/chat/completions HTTP/1.1\r\nHost: a\r\n"
    "Transfer-Encoding: chunked\r\nAuthorization: Bearer k\r\n\r\n5\r\nhello\r\n0\r\n\r\n")))
put("http_request", "pipelined", sel(3, sel(0, "GET /health HTTP/1.1\r\nHost: a\r\n\r\n"
    "GET /v1/models?x=1 HTTP/1.1\r\nX-Request-Id: r1\r\ntraceparent: 00-ab-cd-01\r\n\r\n"
    "GET /version HTTP/1.0\r\n\r\n")))
put("http_request", "expect_continue", sel(0, sel(1, "POST /tokenize HTTP/1.1\r\nHost: a\r\n"
    "Expect: 100-continue\r\nContent-Length: 100\r\n\r\n" + "x" * 100)))
put("http_request", "big_header", sel(16, sel(1, "GET / HTTP/1.1\r\nCookie: " + "c" * 200 +
    "\r\n\r\n")))
put("http_request", "close", sel(0, sel(0, "DELETE /v1/x HTTP/1.1\r\nConnection: close\r\n"
    "Content-Length: 0\r\n\r\nGET / HTTP/1.1\r\n\r\n")))

# 2. openai_request: byte 0 bits 0-1 route (chat, completions, tokenize, detokenize), bits 2-3
# chat template (sim, llama2, llama3, chatml), bit 4 /v1/responses, bit 5 the priority policy.
chat = {"model": "sim-model", "messages": [{"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hello"}], "max_tokens": 16, "stream": True,
        "stream_options": {"include_usage": True, "continuous_usage_stats": False}}
put("openai_request", "chat", sel(0, json.dumps(chat)))
put("openai_request", "chat_llama2", sel(4, json.dumps(chat)))
put("openai_request", "chat_parts", sel(12, json.dumps({"messages": [{"role": "user", "content":
    [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}], "max_completion_tokens": 3,
    "temperature": 0, "top_p": 0.5, "top_k": -1, "seed": -5, "logprobs": False,
    "response_format": {"type": "text"}, "tool_choice": "none", "add_generation_prompt": False})))
put("openai_request", "completions", sel(1, json.dumps({"prompt": "Hello world", "max_tokens": 5,
    "n": 2, "best_of": 2, "stop": ["\n", "."], "seed": 1, "ignore_eos": True, "user": "u",
    "logit_bias": {}, "echo": False, "logprobs": 0, "add_special_tokens": False})))
put("openai_request", "completions_ids", sel(1, json.dumps({"prompt": [[1, 2, 3], [4, 5]],
    "stop_token_ids": [7], "stop": "x"})))
put("openai_request", "tokenize", sel(2, json.dumps({"model": "sim-model", "prompt": "hi there",
    "return_token_strs": True, "add_special_tokens": True})))
put("openai_request", "tokenize_chat", sel(10, json.dumps({"messages": [{"role": "assistant",
    "content": None}, {"role": "tool", "content": "x"}], "add_generation_prompt": True})))
put("openai_request", "chat_lenient", sel(32, json.dumps({"messages": [{"role": "critic",
    "content": "a", "x_extra": 1}], "priority": -2, "cache_salt": "salt", "x_new": [1],
    "stop": ["a", "b", "c", "d"], "n": 3, "skip_special_tokens": True})))
put("openai_request", "responses", sel(16, json.dumps({"model": "sim-model", "input": "Hello",
    "instructions": "Be brief.", "max_output_tokens": 8, "temperature": 0.5, "top_p": 0.9,
    "stream": True, "metadata": {"k": "v"}, "store": False, "tools": [], "tool_choice": "auto"})))
put("openai_request", "responses_items", sel(24, json.dumps({"input": [{"role": "user",
    "content": [{"type": "input_text", "text": "a"}]}, {"type": "message", "role": "assistant",
    "content": [{"type": "output_text", "text": "b"}]}], "text": {"format": {"type": "text"}},
    "reasoning": {"effort": None}, "truncation": "disabled", "include": []})))
put("openai_request", "detokenize", sel(3, json.dumps({"model": "sim-model", "tokens": [1, 2,
    31999]})))

# 3. openai_response: FuzzedDataProvider bytes (any bytes are an input).
put("openai_response", "ascii", b"\x01" * 8 + b"chatcmpl-1\x00sim-model\x00" + b"Hello world" * 4)
put("openai_response", "utf8", b"\x00\x02\x05" + "caf\u00e9 \u2581 \U0001f600 \"q\" \\ \n\t\x01"
    .encode() * 3 + b"\x03\x02\x01")

# 4. trace_reader: byte 0 reader (0 JSON, 1 Azure CSV, 2 Mooncake JSONL, 3 synthetic spec).
put("trace_reader", "json", sel(0, json.dumps({"metadata": {"name": "t", "time_unit": "ms"},
    "requests": [{"id": "a", "arrival": 0, "prompt_len": 32, "output_len": 4,
    "prefix_hash_ids": [1, 2], "hash_block_size": 16}, {"arrival": 1.5, "prompt_len": 3,
    "prompt_tokens": [1, 2, 3], "output_len": 1, "n": 2, "max_tokens": 9, "priority": -1}]})))
put("trace_reader", "azure", sel(1, "TIMESTAMP,ContextTokens,GeneratedTokens\n"
    "2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\r\n"))
put("trace_reader", "azure_reordered", sel(1, "GeneratedTokens,TIMESTAMP,ContextTokens\n"
    "1,2024-05-10 00:00:00,7\n"))
put("trace_reader", "mooncake", sel(2, "{\"timestamp\": 0, \"input_length\": 1030, "
    "\"output_length\": 5, \"hash_ids\": [0, 1, 2]}\n{\"timestamp\": 27, \"input_length\": 10, "
    "\"output_length\": 1, \"hash_ids\": [3]}\n"))
put("trace_reader", "synthetic", sel(3, "synthetic:n=5,rate=2.5,seed=7,arrival=gamma,cv=2,"
    "prompt=lognormal:100:0.5:4:400,output=uniform:1:50,seqs=2,prefix=0.5,prefixes=2,"
    "prefix_len=64,block=16"))
put("trace_reader", "synthetic_fixed", sel(3, "n=3,prompt=fixed:10,output=fixed:2"))


# 5. model_format: byte 0 even GGUF, odd safetensors.
def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf_kv(key, vtype, payload):
    return gguf_string(key) + struct.pack("<I", vtype) + payload


def gguf_file(kvs, tensors, data):
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs)
    for name, dims, ttype, offset in tensors:
        out += gguf_string(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", ttype, offset)
    out += b"\x00" * (-len(out) % 32)
    return out + data


STRING, ARRAY, UINT32, FLOAT32, BOOL, INT32 = 8, 9, 4, 6, 7, 5
tokens = ["<unk>", "<s>", "</s>", "\u2581h", "i", "\u2581", "h", "<0x0A>"]
vocab_kvs = [
    gguf_kv("general.architecture", STRING, gguf_string("llama")),
    gguf_kv("tokenizer.ggml.model", STRING, gguf_string("llama")),
    gguf_kv("tokenizer.ggml.tokens", ARRAY, struct.pack("<IQ", STRING, len(tokens)) +
            b"".join(gguf_string(t) for t in tokens)),
    gguf_kv("tokenizer.ggml.scores", ARRAY, struct.pack("<IQ", FLOAT32, len(tokens)) +
            b"".join(struct.pack("<f", -i) for i in range(len(tokens)))),
    gguf_kv("tokenizer.ggml.token_type", ARRAY, struct.pack("<IQ", INT32, len(tokens)) +
            struct.pack("<8i", 2, 3, 3, 1, 1, 1, 1, 6)),
    gguf_kv("tokenizer.ggml.bos_token_id", UINT32, struct.pack("<I", 1)),
    gguf_kv("tokenizer.ggml.eos_token_id", UINT32, struct.pack("<I", 2)),
    gguf_kv("tokenizer.ggml.add_bos_token", BOOL, b"\x01"),
    gguf_kv("general.alignment", UINT32, struct.pack("<I", 32)),
]
put("model_format", "gguf_spm_vocab", sel(0, gguf_file(vocab_kvs, [("t", [4, 2], 0, 0)],
    struct.pack("<8f", *range(8)))))
bpe_tokens = ["h", "e", "he", "\u0120", "\u0120he", "<|endoftext|>"]
bpe_kvs = [
    gguf_kv("tokenizer.ggml.model", STRING, gguf_string("gpt2")),
    gguf_kv("tokenizer.ggml.pre", STRING, gguf_string("llama-bpe")),
    gguf_kv("tokenizer.ggml.tokens", ARRAY, struct.pack("<IQ", STRING, len(bpe_tokens)) +
            b"".join(gguf_string(t) for t in bpe_tokens)),
    gguf_kv("tokenizer.ggml.merges", ARRAY, struct.pack("<IQ", STRING, 2) +
            gguf_string("h e") + gguf_string("\u0120 he")),
    gguf_kv("tokenizer.ggml.eos_token_id", UINT32, struct.pack("<I", 5)),
]
put("model_format", "gguf_bpe_vocab", sel(0, gguf_file(bpe_kvs, [], b"")))
model_kvs = [gguf_kv("general.architecture", STRING, gguf_string("llama"))] + [
    gguf_kv("llama." + k, UINT32, struct.pack("<I", v)) for k, v in [
        ("context_length", 64), ("embedding_length", 8), ("feed_forward_length", 16),
        ("block_count", 1), ("attention.head_count", 2), ("attention.head_count_kv", 1),
        ("vocab_size", 4)]] + [
    gguf_kv("llama.attention.layer_norm_rms_epsilon", FLOAT32, struct.pack("<f", 1e-5)),
    gguf_kv("llama.rope.freq_base", FLOAT32, struct.pack("<f", 10000.0))]
put("model_format", "gguf_model", sel(0, gguf_file(model_kvs, [
    ("token_embd.weight", [8, 4], 0, 0), ("rope_freqs.weight", [2], 0, 128)],
    b"\x00" * 128 + struct.pack("<2f", 1.0, 2.0))))
header = json.dumps({"__metadata__": {"format": "pt"}, "a": {"dtype": "F32", "shape": [2, 2],
                     "data_offsets": [0, 16]}, "b": {"dtype": "BF16", "shape": [3],
                     "data_offsets": [16, 22]}, "c": {"dtype": "BOOL", "shape": [],
                     "data_offsets": [22, 23]}}).encode()
header += b" " * (-len(header) % 8)
put("model_format", "safetensors", sel(1, struct.pack("<Q", len(header)) + header + bytes(23)))

# 6. hf_tokenizer: byte 0 odd: tokenizer.json NUL tokenizer_config.json.
byte_level = {"version": "1.0", "added_tokens": [{"id": 5, "content": "<|endoftext|>",
    "special": True}], "normalizer": None, "pre_tokenizer": {"type": "ByteLevel",
    "add_prefix_space": False, "use_regex": True}, "post_processor": None, "decoder": None,
    "model": {"type": "BPE", "unk_token": None, "byte_fallback": False, "vocab": {"h": 0, "e": 1,
    "he": 2, "\u0120": 3, "\u0120he": 4}, "merges": [["h", "e"], ["\u0120", "he"]]}}
put("hf_tokenizer", "byte_level", sel(0, json.dumps(byte_level)))
split = dict(byte_level, pre_tokenizer={"type": "Sequence", "pretokenizers": [{"type": "Split",
    "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated",
    "invert": False}, {"type": "ByteLevel", "use_regex": False}]})
put("hf_tokenizer", "split_regex", sel(0, json.dumps(split)))
llama2 = {"version": "1.0", "added_tokens": [{"id": 0, "content": "<unk>", "special": True},
    {"id": 1, "content": "<s>", "special": True}, {"id": 2, "content": "</s>", "special": True}],
    "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"},
    {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]}, "pre_tokenizer": None,
    "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>",
    "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}], "special_tokens": {"<s>": {
    "id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
    "model": {"type": "BPE", "unk_token": "<unk>", "byte_fallback": True, "vocab": {"<unk>": 0,
    "<s>": 1, "</s>": 2, "<0x0A>": 3, "\u2581": 4, "h": 5, "i": 6, "\u2581h": 7, "hi": 8,
    "\u2581hi": 9}, "merges": ["\u2581 h", "h i", "\u2581h i"]}}
config = {"add_bos_token": True, "bos_token": {"content": "<s>"}, "eos_token": "</s>",
          "unk_token": "<unk>", "pad_token": None,
          "chat_template": "{% for m in messages %}<|im_start|>{{ m['content'] }}<|im_end|>"
                           "{% endfor %}"}
put("hf_tokenizer", "llama2_with_config", sel(1, json.dumps(llama2) + "\0" + json.dumps(config)))
put("hf_tokenizer", "metaspace", sel(0, json.dumps(dict(llama2, normalizer=None,
    pre_tokenizer={"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first",
    "split": False}))))

# 7. tokenizer: byte 0 bits 0-1 vocabulary, 2 add_special, 3 parse_special, 4 skip_special,
# 5 ids instead of text.
put("tokenizer", "text_bpe", sel(0, "Hello world! It's 2024, caf\u00e9 \u4f60\u597d \U0001f600\n\n"))
put("tokenizer", "text_spm", sel(1, " Hello  world\tof \u2581tokens 12345 \u00e9\u00e8"))
put("tokenizer", "special_bpe", sel(12, "<|begin_of_text|><|start_header_id|>user"
    "<|end_header_id|>\n\nhi<|eot_id|>"))
put("tokenizer", "special_spm", sel(13, "<s>[INST] <<SYS>>\nsys\n<</SYS>>\n\nhi [/INST]</s>"))
put("tokenizer", "chatml_qwen", sel(15, "<|im_start|>user\nhi<|im_end|>\n"))
put("tokenizer", "ids", sel(32, bytes(range(0, 96))))
put("tokenizer", "ids_skip", sel(49, b"\x01\x00\x00\x0d\x01\x00\xff\xff\x00\x03\x00\x00"))
put("tokenizer", "bytes", sel(2, b"\xe2\x82\xac\xe2\x82 \xf0\x9f\x98 \xc3\xa9\xff\xfe\x00a"))

# 8. chat_template: FuzzedDataProvider bytes.
put("chat_template", "conversation", b"\x02\x01\x01\x05system\x00user\x00hi\\\x00"
    b"{% if messages %}<|im_start|>You are a helpful assistant<|im_end|>\x03\x02\x04\x00")
put("chat_template", "jinja", b"\x00\x00\x00\x00<|start_header_id|>{{ message['role'] }}"
    b"<|end_header_id|>\n\n{{ message['content'] | trim }}<|eot_id|>")

# 9. profile: byte 0: 0 GPU JSON, 1 model JSON, 2 config.json, 3 preset name.
put("profile", "gpu", sel(0, json.dumps({"name": "G", "memory_bytes": 85899345920,
    "hbm_bytes_per_s": 2.039e12, "bf16_flops": 312e12, "fp8_flops": 0,
    "link_bytes_per_s": 300e9, "compute_efficiency": 0.87, "memory_efficiency": 0.8,
    "step_overhead_ns": 126000, "per_sequence_overhead_ns": 4400,
    "allreduce_latency_ns": 10000})))
put("profile", "model", sel(1, json.dumps({"name": "M", "layers": 32, "hidden": 4096,
    "heads": 32, "kv_heads": 8, "head_dim": 128, "ffn": 14336, "vocab": 128256,
    "tied_embeddings": False, "max_context": 131072, "weight_bytes_per_param": 2})))
put("profile", "llama31", sel(2, json.dumps({"architectures": ["LlamaForCausalLM"],
    "model_type": "llama", "bos_token_id": 128000, "eos_token_id": [128001, 128009],
    "hidden_act": "silu", "hidden_size": 64, "intermediate_size": 128,
    "max_position_embeddings": 1024, "num_attention_heads": 4, "num_hidden_layers": 2,
    "num_key_value_heads": 2, "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 8.0,
    "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 256,
    "rope_type": "llama3"}, "rope_theta": 500000.0, "tie_word_embeddings": True,
    "torch_dtype": "bfloat16", "vocab_size": 256})))
put("profile", "qwen2", sel(2, json.dumps({"architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2", "hidden_act": "silu", "hidden_size": 64, "intermediate_size": 96,
    "num_attention_heads": 8, "num_hidden_layers": 1, "head_dim": 16, "rope_scaling":
    {"type": "linear", "factor": 2.0}, "sliding_window": 4096, "use_sliding_window": False,
    "vocab_size": 100})))
put("profile", "preset", sel(3, "h100-sxm"))
