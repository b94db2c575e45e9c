// `kbench quota show [--cohort C]` and `kbench quota set --cohort C
// --queued-runs 2 ...`: their flags and help, parsed into the Quotas call
// to make (kbench/v1/quota.proto).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <variant>

#include "kbench/v1/quota.pb.h"

namespace kbench::client {

// `kbench quota show`: the caller's own quotas and usage, or a cohort's.
struct QuotaShowCommand {
  v1::GetQuotasRequest request;
};

// `kbench quota set`: a cohort's overrides, the quotas given.
struct QuotaSetCommand {
  v1::SetCohortQuotasRequest request;
};

using QuotaCommand = std::variant<QuotaShowCommand, QuotaSetCommand>;

// Adds `quota` with `show` and `set` to the app it is made with; Parsed()
// reads the one parsed (and throws CLI::ValidationError for a `set` that
// sets nothing). Lives as long as the parse (the flags write into it).
class QuotaCommandLine {
 public:
  explicit QuotaCommandLine(CLI::App& app);

  std::optional<QuotaCommand> Parsed() const;

 private:
  CLI::App* show_ = nullptr;
  CLI::App* set_ = nullptr;
  QuotaShowCommand show_command_;
  QuotaSetCommand set_command_;
};

}  // namespace kbench::client
