// Whole-run measurements of real vLLM deployments in ../shared/gpu-truth, reduced to what a step
// model can be checked against: the mean step time while B sequences decode at a mean context C
// (and, where prefill chunks share the steps, how many prefill tokens per step).
//  - BLIS runs (blis/measured.csv with experiments.csv and trainval-exact-config.json, and the
//    older blis/runs/*/results/stage_N_lifecycle_metrics.json): per load stage, the decode step
//    is (E2E - TTFT) / (output_len - 1) (output_len is the profile's, exact under ignore_eos);
//    B = rate x E2E (Little's law); C = prompt + output_len / 2; after the first round every
//    prompt is in the prefix cache, so a step's prefill is a few tokens per arriving request.
//    Overloaded stages (failed requests, or a TTFT above the E2E's decode part) are left out.
//  - The RTX PRO 6000 run (llmservingsim/rtxpro6000-llama-3.1-8b/vllm/requests.jsonl): per
//    second, the requests decoding and their contexts (tokens generated so far, at each
//    request's own even pace between its first and last token), the steps taken (the decoding
//    requests' tokens in that second) and the prompt tokens prefilled (each prompt spread over
//    its scheduled..first-token interval), packed into chunks of max_num_batched_tokens.
// Thread-safety: plain values; the readers only read files.
#pragma once

#include <string>
#include <vector>

#include "backends/sim/model_shape.h"

namespace llm {

struct StageSample {
  std::string card;
  std::string group;   // "Llama-2-7b-hf tp1" (the model), for cross-validation
  std::string source;  // file and stage
  std::string origin;  // "blis runs", "llmservingsim run"
  ModelShape model;
  int64_t tensor_parallel_size = 1;
  int64_t max_num_batched_tokens = 2048;
  double decode_sequences = 0;         // B
  double mean_context = 0;             // C, tokens cached per decoding sequence
  double prefill_tokens_per_step = 0;  // new prompt tokens per step on average
  // The prefill chunks those tokens come in: tokens and cached prefix of one chunk.
  double prefill_chunk_tokens = 0;
  double prefill_chunk_context = 0;
  double measured_ns = 0;  // the mean step time
};

// BLIS's H100 runs (both sets).
std::vector<StageSample> read_blis_run_stages(const std::string& truth_root);

// The RTX PRO 6000 Llama-3.1-8B run, one sample per second with at least one decoding request.
std::vector<StageSample> read_rtx_pro_6000_run(const std::string& truth_root);

// Splitwise's static-batch decode steps of Llama-2-70B (op-profiles/splitwise/perf_model.csv):
// for `hardware` ("a100-80gb", "h100-80gb"), one sample per (TP, prompt, batch, output length),
// the mean token time of its repeats, B = batch, C = prompt + output / 2, no prefill. Their engine
// is not vLLM: its own per-step costs are in every time.
std::vector<StageSample> read_splitwise_decodes(const std::string& truth_root,
                                                const std::string& hardware);

}  // namespace llm
