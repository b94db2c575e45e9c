// PrintfCapture without a GPU: what the process writes to stdout (as the
// CUDA runtime writes kernels' printf output) is taken, cut and counted,
// and stdout is given back when the capture ends. Each test takes what it
// checks while the capture lives and checks it after, since gtest itself
// writes to stdout.
#include "server/worker/backends/cuda/printf_capture.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

namespace kbench::server::worker::backends::cuda {
namespace {

ino_t StdoutInode() {
  struct stat info {};
  fstat(STDOUT_FILENO, &info);
  return info.st_ino;
}

TEST(PrintfCapture, WhatIsPrintedIsTakenOnceAndTheFileStartsAgain) {
  const ino_t before = StdoutInode();
  PrintfCapture::Taken first, again, later;
  ino_t during = 0;
  {
    absl::StatusOr<std::unique_ptr<PrintfCapture>> capture = PrintfCapture::Start();
    ASSERT_TRUE(capture.ok()) << capture.status();
    during = StdoutInode();
    std::printf("hello from %d elements\n", 4096);
    first = (*capture)->Take(1024);
    again = (*capture)->Take(1024);
    std::printf("ab");
    later = (*capture)->Take(1024);
  }
  EXPECT_NE(during, before);
  EXPECT_EQ(StdoutInode(), before) << "stdout was not given back";
  EXPECT_EQ(first.text, "hello from 4096 elements\n");
  EXPECT_EQ(first.bytes, first.text.size());
  EXPECT_EQ(again.text, "");
  EXPECT_EQ(again.bytes, 0u);
  // Written from the start of the emptied file, with no hole before it.
  EXPECT_EQ(later.text, "ab");
  EXPECT_EQ(later.bytes, 2u);
}

TEST(PrintfCapture, ATakeKeepsItsFirstBytesAndCountsThemAll) {
  PrintfCapture::Taken taken;
  {
    absl::StatusOr<std::unique_ptr<PrintfCapture>> capture = PrintfCapture::Start();
    ASSERT_TRUE(capture.ok()) << capture.status();
    std::printf("%s", std::string(100000, 'x').c_str());
    taken = (*capture)->Take(10);
  }
  EXPECT_EQ(taken.text, std::string(10, 'x'));
  EXPECT_EQ(taken.bytes, 100000u);
}

TEST(PrintfCapture, OneCaptureAtATime) {
  absl::Status second;
  bool active_during = false;
  {
    absl::StatusOr<std::unique_ptr<PrintfCapture>> capture = PrintfCapture::Start();
    ASSERT_TRUE(capture.ok()) << capture.status();
    active_during = PrintfCapture::Active() == capture->get();
    second = PrintfCapture::Start().status();
  }
  EXPECT_TRUE(active_during);
  EXPECT_EQ(second.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(PrintfCapture::Active(), nullptr);
}

}  // namespace
}  // namespace kbench::server::worker::backends::cuda
