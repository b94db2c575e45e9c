#include "client/sweep_command.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <thread>

#include "client/csv_format.h"
#include "client/interrupt_watcher.h"
#include "client/refusal.h"
#include "client/sweep_file.h"
#include "client/sweep_preflight.h"
#include "client/sweep_progress.h"
#include "client/sweep_summary.h"

namespace kbench::client {
namespace {

// "sweep-20240501-142233", local time.
std::string DefaultLabel() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof(text), "sweep-%Y%m%d-%H%M%S", &local);
  return text;
}

// Where the results go and what is there already.
struct Output {
  std::string path;  // empty: stdout
  SweepFile done;
  std::string label;
};

// Whether `path` is a file with no point in it: empty, or the CSV header
// alone.
bool HoldsNoPoint(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return false;
  const uintmax_t size = std::filesystem::file_size(path, error);
  if (error || size > CsvHeader().size() + 1) return false;
  std::ifstream file(path);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return text.empty() || text == CsvHeader() + "\n";
}

// Sets up the output as RunSweep's contract says; nullopt after saying on
// stderr why it cannot be.
std::optional<Output> PrepareOutput(const GlobalOptions& options, const SweepCommand& sweep) {
  const SweepFormat wanted =
      options.format == OutputFormat::kJson ? SweepFormat::kJsonLines : SweepFormat::kCsv;
  Output output;
  output.label = sweep.label;
  if (sweep.resume_path.empty()) {
    output.path = sweep.out_path;
    output.done.format = wanted;
    if (!output.path.empty() && HoldsNoPoint(output.path)) {
      // Left by a sweep that ran nothing (refused, interrupted at once).
      std::filesystem::remove(output.path);
    }
    if (!output.path.empty() && std::filesystem::exists(output.path)) {
      std::cerr << "kbench: --out " << output.path << " exists; continue that sweep with --resume "
                << output.path << ", or choose another file" << std::endl;
      return std::nullopt;
    }
  } else {
    output.path = sweep.resume_path;
    std::string text;
    if (std::filesystem::exists(output.path)) {
      std::ifstream file(output.path);
      std::ostringstream content;
      content << file.rdbuf();
      text = content.str();
    }
    absl::StatusOr<SweepFile> done = ReadSweepFile(text, wanted, output.path);
    if (!done.ok()) {
      std::cerr << "kbench: --resume: " << done.status().message() << std::endl;
      return std::nullopt;
    }
    output.done = *std::move(done);
    if (options.format != OutputFormat::kTable && !output.done.empty &&
        output.done.format != wanted) {
      std::cerr << "kbench: --resume " << output.path << " holds "
                << (output.done.format == SweepFormat::kCsv ? "CSV" : "JSON lines")
                << "; leave out --json/--csv to append in its format" << std::endl;
      return std::nullopt;
    }
    if (output.label.empty() && !output.done.empty) {
      if (output.done.format == SweepFormat::kCsv) {
        std::cerr << "kbench: --resume of a CSV file needs --label (CSV rows "
                     "carry no label): give the label of the sweep that "
                     "wrote "
                  << output.path << std::endl;
        return std::nullopt;
      }
      output.label = output.done.label;
    }
    if (text.size() > output.done.valid_bytes) {
      std::filesystem::resize_file(output.path, output.done.valid_bytes);
      std::cerr << "kbench: --resume: dropped a partial last line of " << output.path << std::endl;
    }
  }
  if (output.label.empty()) output.label = DefaultLabel();
  return output;
}

// The outcome of a point whose call failed or ended without a summary.
PointOutcome FailedOutcome(const v1::RunRequest& point, const CallResult& result,
                           const GlobalOptions& options) {
  PointOutcome outcome;
  outcome.point = DescribePoint(point);
  outcome.result = PointOutcome::Result::kFailed;
  if (result.status.ok()) {
    outcome.error = "the server ended the run without a summary";
  } else {
    outcome.error =
        DescribeRpcFailure(result.status, options.server, options.timeout_s, result.stage);
    constexpr std::string_view kPrefix = "kbench: ";
    if (outcome.error.rfind(kPrefix, 0) == 0) {
      outcome.error.erase(0, kPrefix.size());
    }
  }
  return outcome;
}

// Times one point waits for a quota reset before it fails.
constexpr int kMaxQuotaWaits = 3;

// Says on stderr that the learner's own quota refused the point (`why`)
// and sleeps `seconds`, counting down on a terminal; false when Ctrl-C
// came first.
bool WaitForQuota(double seconds, const std::string& why, const std::string& out_path,
                  const InterruptWatcher& watcher, bool countdown) {
  std::cerr << "kbench: " << why << "\nkbench: waiting " << int(std::ceil(seconds))
            << " s for your quota to reset, then running the point again (Ctrl-C stops; "
            << "the same command with --resume "
            << (out_path.empty() ? "FILE (write it with --out FILE)" : out_path)
            << " continues later)" << std::endl;
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(seconds * 1000));
  int shown = -1;
  while (!watcher.interrupted()) {
    const auto left = until - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) break;
    const int left_s = int(std::chrono::ceil<std::chrono::seconds>(left).count());
    if (countdown && left_s != shown) {
      std::cerr << "\r  quota resets in " << left_s << " s " << std::flush;
      shown = left_s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (countdown) std::cerr << "\r" << std::string(32, ' ') << "\r" << std::flush;
  return !watcher.interrupted();
}

}  // namespace

ExitCode RunSweep(const GlobalOptions& options, const CallOptions& call, InterruptWatcher& watcher,
                  const SweepCommand& sweep) {
  // What the server offers decides, before anything is written, whether
  // every point can run.
  v1::ServerInfo info;
  if (const CallResult fetched = FetchServerInfo(call, watcher, info); !fetched.status.ok()) {
    if (watcher.interrupted()) return ExitCode::kInterrupted;
    std::cerr << DescribeRpcFailure(fetched.status, options.server, options.timeout_s,
                                    fetched.stage)
              << std::endl;
    return ExitCodeForStatus(fetched.status.error_code());
  }
  if (absl::Status possible = PreflightSweep(info, sweep.points); !possible.ok()) {
    std::cerr << "kbench: sweep: " << possible.message() << std::endl;
    return ExitCode::kBadArguments;
  }
  std::optional<Output> output = PrepareOutput(options, sweep);
  if (!output) return ExitCode::kBadArguments;
  std::ofstream file;
  if (!output->path.empty()) {
    file.open(output->path, std::ios::app);
    if (!file) {
      std::cerr << "kbench: cannot write " << output->path << std::endl;
      return ExitCode::kBadArguments;
    }
  }
  std::ostream& out = output->path.empty() ? std::cout : file;
  const SweepFormat format = output->done.format;
  if (format == SweepFormat::kCsv && output->done.empty) {
    out << CsvHeader() << "\n" << std::flush;
  }

  size_t skipped = 0;
  for (const v1::RunRequest& point : sweep.points) {
    if (output->done.Contains(point)) ++skipped;
  }
  std::optional<SweepProgress> progress;
  if (!options.quiet) {
    progress.emplace(std::cerr, isatty(STDERR_FILENO) == 1, sweep.points.size(), skipped);
  }
  std::vector<PointOutcome> outcomes;
  bool unreachable = false;
  for (v1::RunRequest point : sweep.points) {
    if (output->done.Contains(point)) continue;
    if (watcher.interrupted()) break;
    point.set_label(output->label);
    if (progress) progress->Start(DescribePoint(point));
    RunReport report;
    CallResult result;
    // A point refused by the learner's own quota waits for its reset and
    // runs again, up to kMaxQuotaWaits times.
    for (int waits = 0;; ++waits) {
      report = RunReport();
      report.request = point;
      result = RunBenchmark(call, point, watcher,
                            [&report](const v1::RunEvent& e) { RecordEvent(e, report); });
      const std::optional<double> wait = QuotaWaitSeconds(result.status);
      if (!wait || waits == kMaxQuotaWaits || watcher.interrupted()) break;
      if (progress) progress->Finish();
      if (!WaitForQuota(*wait, result.status.error_message(), output->path, watcher,
                        !options.quiet && isatty(STDERR_FILENO) == 1))
        break;
      if (progress) progress->Start(DescribePoint(point));
    }
    if (watcher.interrupted()) break;
    PointOutcome outcome;
    if (result.status.ok() && report.summary) {
      outcome = OutcomeOfReport(report);
      out << FormatSweepPoint(report, format) << std::flush;
      if (!out) {
        if (progress) progress->Finish();
        std::cerr << "kbench: cannot write the results to "
                  << (output->path.empty() ? "stdout" : output->path) << std::endl;
        return ExitCode::kServerError;
      }
    } else {
      outcome = FailedOutcome(point, result, options);
      // Not reached, or reached with the wrong transport (a TLS mismatch):
      // the next points would fail the same way.
      unreachable = result.stage == CallStage::kConnecting &&
                    (result.status.error_code() == grpc::StatusCode::UNAVAILABLE ||
                     result.status.error_code() == grpc::StatusCode::FAILED_PRECONDITION);
    }
    if (progress) progress->End(OutcomeText(outcome), outcome.result != PointOutcome::Result::kOk);
    outcomes.push_back(std::move(outcome));
    if (unreachable) break;
  }
  if (progress) progress->Finish();

  std::cerr << "\nsweep " << output->label << ":\n"
            << FormatSweepSummary(outcomes, skipped,
                                  sweep.points.size() - skipped - outcomes.size());
  const std::string where = output->path.empty() ? "the output" : output->path;
  if (watcher.interrupted()) {
    std::cerr << "kbench: interrupted; the point in flight was cancelled. "
              << "Finish the sweep with the same command and --resume "
              << (output->path.empty() ? "FILE (write it with --out FILE)" : output->path)
              << std::endl;
    return ExitCode::kInterrupted;
  }
  if (unreachable) {
    std::cerr << "kbench: stopped: the server at " << options.server
              << " cannot be reached; the points done are in " << where
              << "; continue later with --resume" << std::endl;
  }
  return SweepExitCode(outcomes);
}

}  // namespace kbench::client
