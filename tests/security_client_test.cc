// The kbench client against what other users wrote (issue 37): labels,
// names and errors with terminal control sequences are shown escaped by
// `kbench runs` and `kbench show`, and the credentials file is not read or
// written through a symbolic link.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "client/credentials.h"
#include "client/history_format.h"
#include "client/run_details_format.h"
#include "client/terminal_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kbench::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A label that clears the screen and sets the window title.
constexpr char kHostileLabel[] =
    "lab1\x1b[2J\x1b]0;pwned\x07\xc2\x9b"
    "31m";

v1::RunRecord HostileRun() {
  v1::RunRecord run;
  run.set_run_id("run-1");
  run.set_user("mallory\r");
  run.set_label(kHostileLabel);
  run.set_error("bad\x1b[1A");
  run.set_status(v1::RUN_STATUS_ERROR);
  return run;
}

TEST(SecurityTerminalText, ControlCharactersAreMadeVisible) {
  EXPECT_EQ(Printable(kHostileLabel), "lab1\\x1b[2J\\x1b]0;pwned\\x07\\u009b31m");
  EXPECT_EQ(Printable("tab\there\x7f"), "tab\\x09here\\x7f");
  EXPECT_EQ(Printable("caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93");
}

TEST(SecurityTerminalText, RunsAndShowPrintNoControlCharacters) {
  for (const std::string& text :
       {FormatRunsTable({HostileRun()}), FormatRunDetails(HostileRun())}) {
    for (char c : text) {
      const auto byte = static_cast<unsigned char>(c);
      EXPECT_TRUE(byte >= 0x20 || c == '\n') << int(byte) << " in:\n" << text;
      EXPECT_NE(byte, 0x7f);
    }
    EXPECT_THAT(text, Not(HasSubstr("\xc2\x9b")));
    EXPECT_THAT(text, HasSubstr("lab1\\x1b[2J"));
  }
}

class SecurityCredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/kbench_credentials_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    setenv("XDG_CONFIG_HOME", dir_.c_str(), 1);
    unsetenv("KBENCH_TOKEN");
    ASSERT_EQ(mkdir((dir_ + "/kbench").c_str(), 0700), 0);
    std::ofstream(dir_ + "/elsewhere") << "kbt_someone_elses\n";
    ASSERT_EQ(symlink((dir_ + "/elsewhere").c_str(), (dir_ + "/kbench/credentials").c_str()), 0);
  }
  void TearDown() override {
    unlink((dir_ + "/kbench/credentials").c_str());
    unlink((dir_ + "/elsewhere").c_str());
    rmdir((dir_ + "/kbench").c_str());
    rmdir(dir_.c_str());
    unsetenv("XDG_CONFIG_HOME");
  }
  std::string dir_;
};

TEST_F(SecurityCredentialsTest, ALinkIsNeitherReadNorWritten) {
  const absl::StatusOr<std::string> loaded = LoadToken();
  ASSERT_FALSE(loaded.ok()) << *loaded;
  EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("symbolic link"));
  const absl::StatusOr<std::string> saved = SaveToken("kbt_mine");
  ASSERT_FALSE(saved.ok());
  EXPECT_THAT(std::string(saved.status().message()), HasSubstr("symbolic link"));
  std::string target;
  std::getline(std::ifstream(dir_ + "/elsewhere"), target);
  EXPECT_EQ(target, "kbt_someone_elses");
}

TEST_F(SecurityCredentialsTest, ARealFileIsReadAndWritten) {
  unlink((dir_ + "/kbench/credentials").c_str());
  EXPECT_EQ(LoadToken().value_or("?"), "");
  ASSERT_TRUE(SaveToken("kbt_mine").ok());
  EXPECT_EQ(LoadToken().value_or("?"), "kbt_mine");
}

}  // namespace
}  // namespace kbench::client
