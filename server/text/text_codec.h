// The server's text seam: everything the API layer needs from a tokenizer, satisfied both by the
// simulator's SimTokenizer (SimTextCodec) and by a real model tokenizer (TokenizerTextCodec):
// prompt encoding, chat rendering, per-sequence streaming detokenization, decode for
// /detokenize, the vocabulary size and the ids that end a sequence.
// Thread-safety: a TextCodec is immutable after construction and safe from any thread; a
// TextStream belongs to one sequence and is not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/tokenizer/chat_message.h"

namespace llm {

// Incremental detokenization of one output sequence: push() returns only text that is final
// (never half a UTF-8 character); flush() returns what was held back when the sequence ends.
class TextStream {
 public:
  virtual ~TextStream() = default;
  virtual std::string push(int32_t id) = 0;
  virtual std::string flush() = 0;
};

class TextCodec {
 public:
  virtual ~TextCodec() = default;

  virtual int64_t vocab_size() const = 0;
  virtual int32_t eos_token_id() const = 0;
  // Other ids that end a sequence unless ignore_eos (Llama 3's <|eot_id|>), as vLLM adds the
  // generation config's eos_token_ids to a request's stop_token_ids. Never holds eos itself.
  virtual std::vector<int32_t> extra_stop_token_ids() const = 0;

  // A prompt's ids (special-token text is parsed as special tokens, as Hugging Face tokenizers
  // do); add_special_tokens adds BOS when the vocabulary asks for it. A rendered chat prompt is
  // encoded the same way, with add_special_tokens false by default (vLLM), since the template
  // writes BOS itself.
  virtual std::vector<int32_t> encode(std::string_view text, bool add_special_tokens) const = 0;
  // The chat prompt's text. Throws std::invalid_argument naming a role the template cannot
  // express.
  virtual std::string render_chat(const std::vector<ChatMessage>& messages,
                                  bool add_generation_prompt) const = 0;

  // The text of ids, special tokens included (as vLLM's /detokenize). Ids must be in the vocab.
  virtual std::string decode(const std::vector<int32_t>& ids) const = 0;
  // The vocabulary entry of one id (Hugging Face's convert_ids_to_tokens), for /tokenize.
  virtual std::string token_str(int32_t id) const = 0;
  // A fresh detokenizer for one output sequence (special tokens skipped).
  virtual std::unique_ptr<TextStream> stream() const = 0;
};

}  // namespace llm
