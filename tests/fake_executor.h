// An Executor for service tests that need timings without a device: it
// reports a "cuda" backend (so admission takes learners' kernels) and
// "runs" a request by emitting Started, one VariantResult per variant and
// the Summary, with times read off the request. A built-in variant takes
// the time the executor was given for it; a learner's kernel takes the
// time its source states on a line "fake: ms=0.5", and fails verification
// when the source says "fake: wrong". Nothing is compiled. Header-only.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "server/run/executor.h"

namespace kbench::testing {

class FakeExecutor final : public server::Executor {
 public:
  // `builtin_ms`: each built-in variant's median time; 1 ms where unnamed.
  explicit FakeExecutor(std::map<std::string, double> builtin_ms)
      : builtin_ms_(std::move(builtin_ms)) {}

  v1::DeviceInfo Info() const override {
    v1::DeviceInfo info;
    info.set_backend("cuda");
    info.set_name("Fake GPU");
    info.set_healthy(true);
    return info;
  }
  bool Ready() const override { return true; }
  bool Failed() const override { return false; }

  absl::Status Execute(const server::AdmittedRun& run, const std::string& run_id,
                       server::RunSink& sink) override {
    const server::Problem& problem = run.problem;
    std::vector<std::pair<std::string, double>> times;
    std::vector<bool> verified;
    for (size_t i = 0; i < problem.variants.size(); ++i) {
      const std::string& name = problem.VariantName(i);
      const auto found = builtin_ms_.find(name);
      times.emplace_back(name, found == builtin_ms_.end() ? 1.0 : found->second);
      verified.push_back(true);
    }
    for (const v1::KernelSource& kernel : problem.request.kernels()) {
      times.emplace_back(kernel.name(), StatedMs(kernel.source()));
      verified.push_back(kernel.source().find("fake: wrong") == std::string::npos);
    }
    v1::RunEvent started;
    started.mutable_started()->set_run_id(run_id);
    started.mutable_started()->set_backend("cuda");
    started.mutable_started()->set_device("Fake GPU");
    started.mutable_started()->set_seed(problem.request.seed());
    for (const auto& [name, ms] : times) started.mutable_started()->add_variants(name);
    sink.Emit(started);
    bool all_verified = true;
    for (size_t i = 0; i < times.size(); ++i) {
      v1::RunEvent event;
      v1::VariantResult& result = *event.mutable_variant_result();
      result.set_variant(times[i].first);
      v1::Statistics& stats = *result.mutable_stats();
      stats.set_samples(10);
      stats.set_median_ms(times[i].second);
      stats.set_median_ci_low_ms(times[i].second * 0.98);
      stats.set_median_ci_high_ms(times[i].second * 1.02);
      result.mutable_verification()->set_passed(verified[i]);
      if (!verified[i]) {
        result.mutable_verification()->set_elements_over_tolerance(3);
        result.mutable_verification()->set_failure("3 elements over tolerance");
      }
      all_verified = all_verified && verified[i];
      sink.Emit(event);
    }
    v1::RunEvent summary;
    summary.mutable_summary()->set_run_id(run_id);
    summary.mutable_summary()->set_all_verified(all_verified);
    for (size_t i = 1; i < times.size(); ++i) {
      v1::Speedup& speedup = *summary.mutable_summary()->add_speedups();
      speedup.set_variant(times[i].first);
      speedup.set_baseline(times[0].first);
      speedup.set_speedup(times[0].second / times[i].second);
      speedup.set_ci_low(speedup.speedup() * 0.96);
      speedup.set_ci_high(speedup.speedup() * 1.04);
      speedup.set_ci_confidence(0.95);
      speedup.set_rounds(10);
    }
    sink.Emit(summary);
    return absl::OkStatus();
  }

  absl::StatusOr<v1::CompileFacts> Compile(const v1::CompileKernelRequest&) override {
    return absl::UnimplementedError("the fake executor compiles nothing");
  }
  void SetStateListener(std::function<void()>) override {}

 private:
  // The time a source states ("fake: ms=0.5"); 1 ms when none.
  static double StatedMs(const std::string& source) {
    const std::string key = "fake: ms=";
    const size_t at = source.find(key);
    if (at == std::string::npos) return 1.0;
    const size_t end = source.find_first_of(" \n", at + key.size());
    double ms = 1.0;
    if (!absl::SimpleAtod(source.substr(at + key.size(), end - at - key.size()), &ms)) return 1.0;
    return ms;
  }

  const std::map<std::string, double> builtin_ms_;
};

}  // namespace kbench::testing
