// UTF-8 helpers: strict sequence checking (RFC 3629: no overlongs, no surrogates, <= U+10FFFF),
// encoding, replacement of invalid bytes with U+FFFD, and the "stable prefix" used by streaming
// detokenization (everything except a trailing sequence that more bytes could still complete).
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace llm {

// Checks the sequence starting at p[0] with `avail` bytes available (avail >= 1):
// > 0: a valid complete sequence of that many bytes; 0: a valid but incomplete prefix that uses
// all `avail` bytes; -1: invalid (the first byte must be replaced).
int utf8_check(const uint8_t* p, size_t avail);
// Decodes a sequence known to be valid (utf8_check > 0).
uint32_t utf8_decode_valid(const uint8_t* p, int len);
void utf8_append(std::string& out, uint32_t cp);
bool utf8_is_valid(std::string_view s);
// Length of a UTF-8 sequence from its lead byte (1 for invalid lead bytes), for splitting.
size_t utf8_lead_len(uint8_t lead);

// Copies `s` replacing each invalid byte (and a trailing incomplete sequence, as one) with U+FFFD.
std::string utf8_sanitize(std::string_view s);
// Sanitizes the longest prefix of `s` whose output can no longer change when bytes are appended;
// returns the number of input bytes consumed (the rest is an incomplete trailing sequence).
size_t utf8_sanitize_stable(std::string_view s, std::string& out);

}  // namespace llm
