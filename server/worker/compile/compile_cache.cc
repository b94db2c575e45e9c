#include "server/worker/compile/compile_cache.h"

namespace kbench::server::worker::compile {

std::optional<absl::StatusOr<CompiledKernel>> CompileCache::Find(const std::string& key) {
  std::lock_guard lock(mu_);
  const auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  entries_.splice(entries_.begin(), entries_, it->second);
  return it->second->second;
}

void CompileCache::Put(const std::string& key, absl::StatusOr<CompiledKernel> result) {
  std::lock_guard lock(mu_);
  if (capacity_ == 0) return;
  if (const auto it = index_.find(key); it != index_.end()) {
    it->second->second = std::move(result);
    entries_.splice(entries_.begin(), entries_, it->second);
    return;
  }
  entries_.emplace_front(key, std::move(result));
  index_[key] = entries_.begin();
  if (entries_.size() > capacity_) {
    index_.erase(entries_.back().first);
    entries_.pop_back();
  }
}

}  // namespace kbench::server::worker::compile
