// A fixture for suites that drive the kbench binary against one kbench-server
// (server_under_test.h) shared by all their tests: the CPU backend, a free
// port of 127.0.0.1, a results store of its own (never the user's default).
// Started before the suite's first test and stopped (SIGTERM; killed if it
// has not exited within 20 s) after its last; each test fails in SetUp if it
// never started serving. The server's stderr is the test's own: nobody drains
// it while the suite runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/server_under_test.h"

namespace kbench::testing {

class CpuServerSuite : public ::testing::Test {
 protected:
  // A server like the suite's, for a test that needs one of its own.
  static std::unique_ptr<ServerUnderTest> StartCpuServer() {
    return std::make_unique<ServerUnderTest>(std::vector<std::string>{"--backend", "cpu"},
                                             /*capture_stderr=*/false);
  }

  static void SetUpTestSuite() { server_ = StartCpuServer(); }

  static void TearDownTestSuite() {
    server_->Stop(20s);
    server_.reset();
  }

  void SetUp() override {
    ASSERT_FALSE(address().empty())
        << "kbench-server did not start serving; stdout: " << server_->process().out();
  }

  // The suite's server, HOST:PORT.
  static const std::string& address() { return server_->address(); }

 private:
  static inline std::unique_ptr<ServerUnderTest> server_;
};

}  // namespace kbench::testing
