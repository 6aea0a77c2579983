// The one atomic file writer: nothing appears at PATH before commit(), an older PATH stays whole
// until then, nothing is left behind after a failure or without commit(), and every failure
// has one message naming PATH (and the flag, with the flag's exit code for a bad path).
#include "core/pending_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/flag_values.h"

namespace llm {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed after it.
class PendingFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pending_file_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // The names in the directory, sorted: what a failed or finished write leaves behind.
  std::string listing() {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.insert(e.path().filename().string());
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : " ") + n;
    return out;
  }

  fs::path dir_;
};

TEST_F(PendingFileTest, NothingAtThePathUntilCommit) {
  const fs::path path = dir_ / "out.json";
  PendingFile file(path);
  file.stream() << "{}\n";
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(listing(), "out.json.partial");
  file.commit();
  EXPECT_EQ(read(path), "{}\n");
  EXPECT_EQ(listing(), "out.json");
}

TEST_F(PendingFileTest, AnOlderFileStaysWholeWhenTheNewOneIsAbandoned) {
  const fs::path path = dir_ / "out.json";
  write_file_atomically(path, "old");
  {
    PendingFile file(path);
    file.stream() << "new, half written";
    // Destroyed without commit(): a failed run.
  }
  EXPECT_EQ(read(path), "old");
  EXPECT_EQ(listing(), "out.json");
  write_file_atomically(path, std::string("new\0bytes", 9));
  EXPECT_EQ(read(path), std::string("new\0bytes", 9));
}

TEST_F(PendingFileTest, AMissingDirectoryNamesThePath) {
  const fs::path path = dir_ / "no-such-dir" / "out.json";
  try {
    PendingFile file(path);
    FAIL() << "no error";
  } catch (const UsageError&) {
    FAIL() << "a UsageError without a flag";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write " + path.string() + ": No such file or directory");
  }
  EXPECT_EQ(listing(), "");
}

TEST_F(PendingFileTest, APathAFlagNamedIsAUsageErrorNamingTheFlag) {
  const fs::path path = dir_ / "no-such-dir" / "report.html";
  try {
    PendingFile file("--report", path);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--report: cannot write " + path.string() + ": No such file or directory");
  }
}

TEST_F(PendingFileTest, AFailedRenameRemovesThePartialFileAndNamesThePath) {
  // A directory where the file should go: the write succeeds, the rename cannot.
  const fs::path path = dir_ / "taken";
  fs::create_directories(path / "inside");
  PendingFile file("--out", path);
  file.stream() << "data";
  try {
    file.commit();
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("--out: cannot write " + path.string() + ": ", 0), 0u) << message;
  }
  EXPECT_EQ(listing(), "taken");
  EXPECT_TRUE(fs::is_directory(path / "inside"));
  EXPECT_THROW(file.commit(), std::logic_error);  // once failed, never renamed later
}

TEST_F(PendingFileTest, AFullDiskIsAFailedWriteNamingThePath) {
  // /dev/full takes the open and fails every write with ENOSPC: PATH.partial is a link to it.
  // 10 bytes fail when commit() flushes them; 64 KiB already while they are written.
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  for (const size_t bytes : {size_t{10}, size_t{1} << 16}) {
    const fs::path path = dir_ / "big.bin";
    fs::create_symlink("/dev/full", dir_ / "big.bin.partial");
    PendingFile file(path);
    file.stream() << std::string(bytes, 'x');
    try {
      file.commit();
      FAIL() << "no error at " << bytes << " bytes";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()),
                "cannot write " + path.string() + ": No space left on device");
    }
    EXPECT_EQ(listing(), "") << bytes << " bytes";  // neither the file nor the partial link
  }
}

}  // namespace
}  // namespace llm
