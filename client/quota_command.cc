#include "client/quota_command.h"

#include <iostream>
#include <memory>
#include <sstream>

#include "client/json_format.h"
#include "kbench/v1/quota.grpc.pb.h"

namespace kbench::client {
namespace {

std::string Number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string Limit(double value, const char* unit) {
  return value == 0 ? "none" : Number(value) + unit;
}

}  // namespace

std::string FormatQuotaReport(const v1::QuotaReport& report, bool own) {
  std::ostringstream out;
  out << "cohort: " << (report.cohort().empty() ? "(none)" : report.cohort()) << "\n";
  if (own && report.unlimited()) {
    out << "no quotas apply to you (instructor, admin, or a server without identities)\n";
    return out.str();
  }
  const v1::QuotaLimits& l = report.limits();
  const v1::QuotaUsage& u = report.usage();
  const v1::QuotaOverrides& o = report.overrides();
  struct Row {
    const char* name;
    std::string limit;
    std::string used;
    bool overridden;
  };
  const Row rows[] = {
      {"queued runs at once", Limit(l.queued_runs(), ""), Number(u.queued_runs()),
       o.has_queued_runs()},
      {"open run streams at once", Limit(l.open_streams(), ""), Number(u.open_streams()),
       o.has_open_streams()},
      {"runs per minute", Limit(l.runs_per_minute(), ""), Number(u.runs_last_minute()),
       o.has_runs_per_minute()},
      {"device time per hour", Limit(l.device_seconds_per_hour(), " s"),
       Number(u.device_seconds_last_hour()) + " s", o.has_device_seconds_per_hour()},
      {"device time per day", Limit(l.device_seconds_per_day(), " s"),
       Number(u.device_seconds_last_day()) + " s", o.has_device_seconds_per_day()},
  };
  for (const Row& row : rows) {
    out << "  " << row.name << ": " << row.limit;
    if (own) out << ", used " << row.used;
    if (row.overridden) out << " (the cohort's own)";
    out << "\n";
  }
  return out.str();
}

ExitCode RunQuotaCommand(const GlobalOptions& options, const CallOptions& call,
                         InterruptWatcher& watcher, const QuotaCommand& command) {
  CallResult result;
  std::shared_ptr<grpc::Channel> channel;
  v1::QuotaReport report;
  const auto* show = std::get_if<QuotaShowCommand>(&command);
  const bool own = show != nullptr && show->request.cohort().empty();
  result.status = ConnectToServer(call, watcher, channel);
  if (result.status.ok()) {
    auto stub = v1::Quotas::NewStub(channel);
    grpc::ClientContext context;
    PrepareContext(call, context);
    InterruptWatcher::Watch watch(watcher, &context);
    result.stage = CallStage::kCalling;
    result.status =
        show ? stub->GetQuotas(&context, show->request, &report)
             : stub->SetCohortQuotas(&context, std::get<QuotaSetCommand>(command).request, &report);
  }
  if (!result.status.ok()) {
    if (watcher.interrupted()) {
      std::cerr << "kbench: interrupted" << std::endl;
      return ExitCode::kInterrupted;
    }
    std::cerr << DescribeRpcFailure(result.status, options.server, options.timeout_s, result.stage)
              << std::endl;
    return result.status.error_code() == grpc::StatusCode::INVALID_ARGUMENT
               ? ExitCode::kBadArguments
               : ExitCodeForStatus(result.status.error_code());
  }
  std::cout << (options.format == OutputFormat::kJson ? FormatMessageJson(report)
                                                      : FormatQuotaReport(report, own))
            << std::flush;
  return ExitCode::kOk;
}

}  // namespace kbench::client
