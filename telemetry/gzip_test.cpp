#include "telemetry/gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

namespace llm {
namespace {

std::string gunzip(const std::string& in) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out(1 << 16, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(out.size() - z.avail_out);
  inflateEnd(&z);
  return out;
}

TEST(Gzip, RoundTripsThroughInflateWithAGzipHeader) {
  std::string text;
  for (int i = 0; i < 500; ++i) text += "gen_ai.usage.output_tokens=" + std::to_string(i) + ";";
  const std::string z = gzip_compress(text);
  ASSERT_GE(z.size(), 18u);
  EXPECT_EQ(static_cast<uint8_t>(z[0]), 0x1f);  // the gzip magic
  EXPECT_EQ(static_cast<uint8_t>(z[1]), 0x8b);
  EXPECT_LT(z.size(), text.size() / 3);
  EXPECT_EQ(gunzip(z), text);
  EXPECT_EQ(gunzip(gzip_compress("")), "");
}

}  // namespace
}  // namespace llm
