// The fixture of the process tests of identities (auth_e2e_test,
// security_auth_test): a fresh store path and client config directory,
// `kbench-server admin` on that store, and the kbench binary with a token
// in KBENCH_TOKEN. Header-only; needs KBENCH_SERVER_BIN and
// KBENCH_CLIENT_BIN.
#pragma once

#include <stdlib.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/process_helper.h"
#include "tests/temp_dir.h"

namespace kbench::testing {

class AuthProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = dir_.path() + "/runs.db";
    config_ = dir_.path() + "/config";
    setenv("XDG_CONFIG_HOME", config_.c_str(), 1);
    unsetenv("KBENCH_TOKEN");
  }
  void TearDown() override {
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("KBENCH_TOKEN");
    if (tmpdir_) {
      setenv("TMPDIR", tmpdir_->c_str(), 1);
    } else {
      unsetenv("TMPDIR");
    }
  }

  ProcessResult Admin(std::vector<std::string> args) {
    args.insert(args.begin(), {KBENCH_SERVER_BIN, "admin"});
    args.insert(args.end(), {"--store", store_});
    return RunProcess(args, std::chrono::seconds(60));
  }

  // The token `add-user` printed.
  std::string AddUser(const std::string& name, const std::string& role,
                      const std::string& cohort = "") {
    std::vector<std::string> args = {"add-user", name, "--role", role};
    if (!cohort.empty()) args.insert(args.end(), {"--cohort", cohort});
    ProcessResult added = Admin(args);
    EXPECT_EQ(added.exit_code, 0) << added.err;
    std::string token = added.out;
    while (!token.empty() && token.back() == '\n') token.pop_back();
    return token;
  }

  // kbench against `server` with `token` in KBENCH_TOKEN ("" for none).
  ProcessResult Kbench(const std::string& server, const std::string& token,
                       std::vector<std::string> args) {
    if (token.empty()) {
      unsetenv("KBENCH_TOKEN");
    } else {
      setenv("KBENCH_TOKEN", token.c_str(), 1);
    }
    args.insert(args.begin(), {KBENCH_CLIENT_BIN, "--server", server});
    ProcessResult result = RunProcess(args, std::chrono::seconds(120));
    unsetenv("KBENCH_TOKEN");
    return result;
  }

  // TMPDIR as the test program found it: ServerUnderTest points TMPDIR at a
  // directory of its own, which it removes when it ends.
  const std::optional<std::string> tmpdir_ =
      getenv("TMPDIR") == nullptr ? std::nullopt : std::optional<std::string>(getenv("TMPDIR"));
  TempDir dir_;
  std::string store_;
  std::string config_;
};

}  // namespace kbench::testing
