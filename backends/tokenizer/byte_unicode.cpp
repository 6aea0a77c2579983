#include "backends/tokenizer/byte_unicode.h"

#include <array>

#include "backends/tokenizer/utf8.h"

namespace llm {

namespace {

struct Tables {
  std::array<uint32_t, 256> byte_to_cp{};
  std::array<std::string, 256> byte_to_text;
  std::array<int16_t, 512> cp_to_byte{};  // all mapped code points are < 0x144
};

bool printable(int b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

const Tables& tables() {
  static const Tables t = [] {
    Tables t;
    t.cp_to_byte.fill(-1);
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const uint32_t cp = printable(b) ? static_cast<uint32_t>(b) : next++;
      t.byte_to_cp[b] = cp;
      utf8_append(t.byte_to_text[b], cp);
      t.cp_to_byte[cp] = static_cast<int16_t>(b);
    }
    return t;
  }();
  return t;
}

}  // namespace

const std::string& byte_to_unicode(uint8_t b) { return tables().byte_to_text[b]; }

int unicode_to_byte(uint32_t cp) {
  if (cp >= tables().cp_to_byte.size()) return -1;
  return tables().cp_to_byte[cp];
}

std::string bytes_to_unicode_text(std::string_view raw) {
  const Tables& t = tables();
  std::string out;
  out.reserve(raw.size() * 2);
  for (char c : raw) out += t.byte_to_text[static_cast<uint8_t>(c)];
  return out;
}

}  // namespace llm
