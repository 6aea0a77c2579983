// The byte <-> Unicode mapping of byte-level BPE (GPT-2's bytes_to_unicode): printable bytes
// '!'..'~', 0xA1..0xAC and 0xAE..0xFF map to the code point of the same value; the other 68 bytes,
// in increasing order, map to U+0100, U+0101, ... Token texts of gpt2-style vocabularies are
// written in this alphabet (a space is "Ġ" U+0120).
// Thread-safety: tables built once (function-local statics); safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace llm {

// UTF-8 text of the code point that byte `b` maps to.
const std::string& byte_to_unicode(uint8_t b);
// The byte a code point stands for, or -1 when the code point is not in the mapping.
int unicode_to_byte(uint32_t cp);
// Maps every byte of `raw` (any bytes) to the byte-level alphabet.
std::string bytes_to_unicode_text(std::string_view raw);

}  // namespace llm
