#include "tests/assignment_seed.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "tests/dashboard_seed.h"

namespace kbench::testing {
namespace {

std::string Source(double ms) {
  return absl::StrCat("// kbench: grid=cdiv(n,256) block=256\n",
                      "extern \"C\" __global__ void my_add(const kbench_t* a, const kbench_t* b,\n",
                      "                                    kbench_t* c, long long n) {\n",
                      "  // takes ", ms, " ms\n",
                      "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n",
                      "  if (i < n) c[i] = a[i] + b[i];\n", "}\n");
}

v1::KernelSource Kernel(const std::string& name, double ms) {
  v1::KernelSource kernel;
  kernel.set_name(name);
  kernel.set_language(v1::KERNEL_LANGUAGE_CUDA_CPP);
  kernel.set_entry("my_add");
  kernel.set_source(Source(ms));
  kernel.mutable_launch()->set_grid("cdiv(n,256)");
  kernel.mutable_launch()->set_block("256");
  return kernel;
}

v1::VariantResult Result(const std::string& variant, double ms, bool passed) {
  v1::VariantResult result;
  result.set_variant(variant);
  result.mutable_stats()->set_samples(20);
  result.mutable_stats()->set_median_ms(ms);
  result.mutable_stats()->set_median_ci_low_ms(ms * 0.99);
  result.mutable_stats()->set_median_ci_high_ms(ms * 1.01);
  result.mutable_verification()->set_passed(passed);
  if (!passed) result.mutable_verification()->set_failure("12 elements over tolerance");
  return result;
}

}  // namespace

absl::Status SeedAssignment(server::store::RunStore& runs,
                            server::store::AssignmentStore& assignments, const std::string& cohort,
                            const std::string& first, const std::string& second) {
  v1::Assignment lab;
  lab.set_name("lab3");
  lab.set_cohort(cohort);
  lab.set_title("Vector add, your own kernel");
  lab.set_op("vector_add");
  for (uint64_t n : {1024u, 4096u}) lab.add_problems()->mutable_vector_add()->set_n(n);
  lab.add_baselines("naive");
  lab.set_submissions_per_hour(6);
  lab.set_updated_unix_ms(kSeedStartUnixMs);
  KBENCH_RETURN_IF_ERROR(assignments.Save(lab, /*replace=*/false));

  struct Seeded {
    const char* id;
    std::string user;
    v1::KernelSource kernel;
    double ms;
    bool first_problem_passes;
  };
  const Seeded seeds[] = {{"sub-00000000000a", first, Kernel("my_add.cu", 0.5), 0.5, true},
                          {"sub-00000000000b", first, Kernel("my_add.cu", 0.4), 0.4, true},
                          {"sub-00000000000c", second, Kernel("wrong.cu", 0.3), 0.3, false}};
  v1::DeviceInfo device;
  device.set_backend("cuda");
  device.set_name("Seed GPU");
  int64_t unix_ms = kSeedStartUnixMs;
  int run = 0;
  for (const Seeded& seed : seeds) {
    unix_ms += 60'000;
    v1::Submission submission;
    submission.set_submission_id(seed.id);
    submission.set_assignment("lab3");
    submission.set_user(seed.user);
    submission.set_submitted_unix_ms(unix_ms);
    *submission.mutable_kernel() = seed.kernel;
    KBENCH_ASSIGN_OR_RETURN(std::optional<int64_t> refused,
                            assignments.AddSubmission(submission, 6));
    if (refused) return absl::InternalError("the seed's submissions are over the hourly limit");
    for (int p = 0; p < lab.problems_size(); ++p) {
      v1::RunRecord record;
      record.set_run_id(absl::StrCat("lab3-run-", ++run));
      record.set_user(seed.user);
      record.set_label("lab3");
      record.set_op("vector_add");
      record.set_status(v1::RUN_STATUS_QUEUED);
      record.set_accepted_unix_ms(unix_ms + 1000 * p);
      v1::RunRequest& request = *record.mutable_request();
      request = lab.problems(p);
      request.set_dtype(v1::DTYPE_FP32);
      request.add_variants("naive");
      *request.add_kernels() = seed.kernel;
      request.set_label("lab3");
      request.set_submission_id(seed.id);
      request.set_seed(7);
      KBENCH_RETURN_IF_ERROR(runs.Accept(record));
      v1::Started started;
      started.set_run_id(record.run_id());
      started.set_backend("cuda");
      started.set_device("Seed GPU");
      KBENCH_RETURN_IF_ERROR(runs.Start(record.run_id(), device, started, unix_ms + 1000 * p));
      const bool passes = p != 0 || seed.first_problem_passes;
      server::store::RunOutcome outcome;
      outcome.status = passes ? v1::RUN_STATUS_OK : v1::RUN_STATUS_FAILED_VERIFICATION;
      *outcome.results.Add() = Result("naive", 2.0, true);
      v1::VariantResult& mine = *outcome.results.Add();
      mine = Result(seed.kernel.name(), seed.ms, passes);
      mine.mutable_compile()->set_arch("sm_90a");
      mine.mutable_compile()->set_registers_per_thread(16);
      mine.mutable_compile()->set_log(
          absl::StrCat(seed.kernel.name(), "(4): warning: a note from the compiler"));
      v1::Summary summary;
      summary.set_run_id(record.run_id());
      summary.set_all_verified(passes);
      v1::Speedup& speedup = *summary.add_speedups();
      speedup.set_variant(seed.kernel.name());
      speedup.set_baseline("naive");
      speedup.set_speedup(2.0 / seed.ms);
      speedup.set_ci_low(2.0 / seed.ms * 0.97);
      speedup.set_ci_high(2.0 / seed.ms * 1.03);
      speedup.set_ci_confidence(0.95);
      summary.set_wall_ms(100);
      outcome.summary = summary;
      outcome.unix_ms = unix_ms + 1000 * p + 500;
      KBENCH_RETURN_IF_ERROR(runs.Finish(record.run_id(), outcome));
    }
  }
  return absl::OkStatus();
}

}  // namespace kbench::testing
