#include "client/timing_flags.h"

#include "client/flag_errors.h"
#include "client/flag_values.h"
#include "kernels/common/status_macros.h"

namespace kbench::client {
namespace {

constexpr char kTimingGroup[] = "Timing (unset or 0: the server's default, see kbench info)";

using Options = v1::TimingOptions;

}  // namespace

const std::vector<TimingFlag>& TimingFlags() {
  static const std::vector<TimingFlag> flags = {
      {"--warmup", "N", "Untimed runs of each variant before sampling",
       [](Options& t, std::string_view text) {
         KBENCH_ASSIGN_OR_RETURN(const uint32_t v, ParseUint32(text));
         t.set_warmup_runs(v);
         return absl::OkStatus();
       }},
      {"--min-samples", "N", "Samples each variant takes at least",
       [](Options& t, std::string_view text) {
         KBENCH_ASSIGN_OR_RETURN(const uint32_t v, ParseUint32(text));
         t.set_min_samples(v);
         return absl::OkStatus();
       }},
      {"--min-time-ms", "MS", "Milliseconds of sampling at least (all variants together)",
       [](Options& t, std::string_view text) {
         KBENCH_ASSIGN_OR_RETURN(const double v, ParseAmount(text, false));
         t.set_min_time_ms(v);
         return absl::OkStatus();
       }},
      {"--target-rse", "FRACTION",
       "Stop once each variant's relative standard error of the mean is "
       "under this fraction, e.g. 0.005 for 0.5%",
       [](Options& t, std::string_view text) {
         KBENCH_ASSIGN_OR_RETURN(const double v, ParseAmount(text, false));
         t.set_target_rse(v);
         return absl::OkStatus();
       }},
      {"--budget-ms", "MS", "...or once sampling took this many milliseconds",
       [](Options& t, std::string_view text) {
         KBENCH_ASSIGN_OR_RETURN(const double v, ParseAmount(text, false));
         t.set_time_budget_ms(v);
         return absl::OkStatus();
       }},
      {"--max-samples", "N", "...or once each variant has this many samples",
       [](Options& t, std::string_view text) {
         KBENCH_ASSIGN_OR_RETURN(const uint32_t v, ParseUint32(text));
         t.set_max_samples(v);
         return absl::OkStatus();
       }},
      {"--mode", "cold|hot",
       "cold: caches flushed before each sample; hot: back-to-back "
       "launches, for launch-bound sizes (default: cold)",
       [](Options& t, std::string_view text) {
         KBENCH_ASSIGN_OR_RETURN(const v1::TimingMode v, ParseTimingMode(text));
         t.set_mode(v);
         return absl::OkStatus();
       }},
      {"--min-effect", "FRACTION",
       "A speedup is judged faster or slower only when it is at least this "
       "fraction away from 1, e.g. 0.02 for 2%",
       [](Options& t, std::string_view text) {
         KBENCH_ASSIGN_OR_RETURN(const double v, ParseAmount(text, false));
         t.set_min_effect(v);
         return absl::OkStatus();
       }},
  };
  return flags;
}

const TimingFlag* FindTimingFlag(std::string_view name) {
  for (const TimingFlag& flag : TimingFlags()) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

void AddTimingFlags(CLI::App& command, v1::TimingOptions& timing) {
  for (const TimingFlag& flag : TimingFlags()) {
    command
        .add_option_function<std::string>(
            flag.name,
            [&timing, &flag](const std::string& text) {
              OkOrThrow(flag.set(timing, text), flag.name);
            },
            flag.help)
        ->type_name(flag.type_name)
        ->group(kTimingGroup);
  }
}

}  // namespace kbench::client
