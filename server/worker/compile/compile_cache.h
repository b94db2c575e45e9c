// The worker's cache of compile results, so that a resubmitted kernel skips
// the compile: bounded, least recently used out first. Keyed by a SHA-256
// over everything that decides a result (kernel_compiler.cc CacheKey: the
// source, its name, language, entry, options, the op, dtype and the
// architecture). Results that say something about the kernel are kept,
// refusals included (a compile error comes back as fast as a success);
// failures of the sandbox itself are not.
//
// Threading: any thread.
#pragma once

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::server::worker::compile {

// What a compile gives: the facts the learner sees, and the linked cubin
// the worker loads to run the kernel.
struct CompiledKernel {
  v1::CompileFacts facts;
  std::string cubin;
};

class CompileCache {
 public:
  explicit CompileCache(size_t capacity) : capacity_(capacity) {}

  std::optional<absl::StatusOr<CompiledKernel>> Find(const std::string& key);
  void Put(const std::string& key, absl::StatusOr<CompiledKernel> result);

 private:
  using Entry = std::pair<std::string, absl::StatusOr<CompiledKernel>>;
  const size_t capacity_;
  std::mutex mu_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace kbench::server::worker::compile
