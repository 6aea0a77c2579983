// SpillFile: bytes read back as appended, nothing left on disk, and clear errors for a folder that
// cannot hold it and a full disk.
#include "sim/replay/spill_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace llm {
namespace {

namespace fs = std::filesystem;

// A fresh empty folder under the test's temporary directory.
fs::path empty_folder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("spill_file_test_" + name + "_" +
                                                    std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(SpillFile, ReadsBackWhatWasAppendedAtItsOffsetAndLeavesNoFileBehind) {
  const fs::path dir = empty_folder("roundtrip");
  {
    const auto file = SpillFile::create(dir.string());
    EXPECT_TRUE(fs::is_empty(dir)) << "the scratch file and its folder have no name on disk";
    const std::vector<double> a = {3, 1, 2};
    const std::vector<double> b = {-1.5, 1e300};
    EXPECT_EQ(file->append(a.data(), a.size() * sizeof(double)), 0u);
    EXPECT_EQ(file->append(b.data(), b.size() * sizeof(double)), 24u);
    EXPECT_EQ(file->size(), 40u);
    file->release(0, 24);  // a's bytes are not read again; b's stay whole
    std::vector<double> got(2);
    file->read(24, got.data(), 16);
    EXPECT_EQ(got, b);
    EXPECT_TRUE(fs::is_empty(dir));
  }
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST(SpillFile, AFolderThatCannotHoldItIsNamedWithTheReasonAndTmpdir) {
  const std::string missing = "/nonexistent-llmsim-folder/sub";
  const std::string what = error_of([&] { SpillFile::create(missing); });
  EXPECT_NE(what.find(missing), std::string::npos) << what;
  EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
  EXPECT_NE(what.find("TMPDIR"), std::string::npos) << what;
}

TEST(SpillFile, AFullDiskIsAClearError) {
  const int fd = ::open("/dev/full", O_RDWR | O_CLOEXEC);
  if (fd < 0) GTEST_SKIP() << "no /dev/full";
  const auto file = SpillFile::adopt(fd, "/dev/full");
  const std::vector<double> v(1024, 1.0);
  const std::string what = error_of([&] { file->append(v.data(), v.size() * sizeof(double)); });
  EXPECT_NE(what.find("cannot write the scratch file"), std::string::npos) << what;
  EXPECT_NE(what.find("/dev/full"), std::string::npos) << what;
  EXPECT_NE(what.find("No space left on device"), std::string::npos) << what;
  EXPECT_NE(what.find("TMPDIR"), std::string::npos) << what;
}

}  // namespace
}  // namespace llm
