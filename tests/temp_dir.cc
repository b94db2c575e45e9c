#include "tests/temp_dir.h"

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>

namespace kbench::testing {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "kbench-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed for " + pattern);
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace kbench::testing
