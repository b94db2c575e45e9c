// The results store: every run the front accepted or refused, its device,
// its results and its raw samples, kept across restarts; and each cohort's
// own quotas (kbench/v1/quota.proto). Two engines behind
// one interface: SQLite (a file; the default) and PostgreSQL (a URL; for
// several hosts sharing results). The front feeds it through StoreRecorder
// and reads it through the RunHistory service.
//
// A run's life in the store: Accept (QUEUED, or REFUSED with its error),
// then Start (RUNNING), then Finish (OK, FAILED_VERIFICATION, CANCELLED or
// ERROR). At start-up, before any run is accepted, the server calls
// MarkInFlightInterrupted: runs that a previous process of the same host
// left QUEUED or RUNNING become INTERRUPTED; other hosts' runs in a shared
// store are theirs to end, or, once a host has stopped renewing its lease
// (Heartbeat), any server's (MarkLapsedHostsInterrupted).
//
// Every method may be called from any thread; calls are serialized inside.
// Each one blocks on the database, so callers on gRPC threads hand them to a
// StoreThread. Errors: INVALID_ARGUMENT (a bad record or filter, naming the
// field), NOT_FOUND (an unknown run id, named), ALREADY_EXISTS (a run id
// accepted twice), FAILED_PRECONDITION (Start or Finish of a run that has
// already ended), INTERNAL or UNAVAILABLE (the database failed; the message
// is the database's).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/repeated_field.h"
#include "kbench/v1/history.pb.h"
#include "kbench/v1/quota.pb.h"
#include "server/common/echo.h"

namespace kbench::server::store {

// How a run ended, as Finish records it.
struct RunOutcome {
  // OK, FAILED_VERIFICATION, CANCELLED or ERROR.
  v1::RunStatus status = v1::RUN_STATUS_UNSPECIFIED;
  // Why it failed; empty for OK and FAILED_VERIFICATION.
  std::string error;
  google::protobuf::RepeatedPtrField<v1::VariantResult> results;
  // Empty when the run ended before its summary.
  std::optional<v1::Summary> summary;
  google::protobuf::RepeatedPtrField<v1::SampleSeries> samples;
  // Milliseconds since the Unix epoch.
  int64_t unix_ms = 0;
};

// Device time of one user's runs that ended in a window (see DeviceTimeOf).
struct DeviceTime {
  // Start to end of each run, summed.
  double seconds = 0;
  // When the run of the window that ended first ended; 0 when none did.
  int64_t oldest_end_unix_ms = 0;
};

// The runs of one label or one learner, counted (see Tally).
struct RunTally {
  // The label, or the learner (store::LearnerOf).
  std::string key;
  int64_t runs = 0;
  // How many learners ran under the label, or labels the learner ran under
  // (the empty label counts as one).
  int64_t others = 0;
  int64_t ok = 0;
  int64_t failed_verification = 0;
  // The newest run's acceptance.
  int64_t last_unix_ms = 0;
};

// The most rows one Tally returns: the labels or learners of the newest
// runs first.
inline constexpr size_t kMaxTallyRows = 10000;

struct RunTallies {
  // Newest last_unix_ms first; ties by key, in byte order.
  std::vector<RunTally> rows;
  // True when more labels or learners matched than kMaxTallyRows.
  bool truncated = false;
};

enum class TallyBy { kLabel, kLearner };

// Which of the runs' variant results Results reads (the assignment tables);
// "completed" runs are those whose summary arrived (OK or
// FAILED_VERIFICATION).
enum class ResultView {
  // Per learner, op, problem, dtype and variant: the verified result of a
  // completed run with the lowest median (ties: the newest), with how many
  // such results competed (ResultRow.attempts).
  kBestVerified,
  // Per learner, op, problem, dtype, variant and baseline: the highest
  // speedup of an OK run (ties: the newest).
  kBestSpeedups,
  // Every verified result of a completed run, newest first.
  kVerified,
  // Every result that failed verification, of any run, newest first.
  kFailedVerification,
};

// One variant result (or one speedup) of a run, with what makes results
// comparable: op, problem (proto::ops::DescribeProblemOf) and dtype.
struct ResultRow {
  std::string run_id;
  // store::LearnerOf of the run.
  std::string learner;
  std::string op;
  std::string problem;
  v1::DType dtype = v1::DTYPE_UNSPECIFIED;
  std::string variant;
  // A speedup's baseline; "" for a result.
  std::string baseline;
  int64_t accepted_unix_ms = 0;
  // The result (kBestVerified, kVerified, kFailedVerification).
  v1::VariantResult result;
  // The speedup (kBestSpeedups).
  v1::Speedup speedup;
  // kBestVerified: the verified results that competed; 0 otherwise.
  int64_t attempts = 0;
};

// The most rows one Results returns.
inline constexpr size_t kMaxResultRows = 20000;

struct ResultRows {
  // Within a run, results in the order the run reported them.
  std::vector<ResultRow> rows;
  // True when more rows matched than kMaxResultRows (the newest are kept).
  bool truncated = false;
};

// One user's runs on the other hosts sharing the store (see
// ActivityElsewhereOf).
struct ActivityElsewhere {
  // QUEUED runs.
  int64_t waiting = 0;
  // QUEUED or RUNNING runs.
  int64_t open = 0;
  // Runs accepted (refused ones included) at or after the time asked.
  int64_t requests = 0;
};

// Whether listed runs carry their raw samples.
enum class Samples { kOmit, kInclude };

// The NOT_FOUND of a run id the store does not hold. GetRun answers a run
// its caller may not read with the same status, so that others' run ids
// cannot be told from unknown ones.
inline absl::Status RunNotFoundError(const std::string& run_id) {
  return absl::NotFoundError(absl::StrCat("no run ", Echo(run_id), " in the store"));
}

class RunStore {
 public:
  virtual ~RunStore() = default;

  // Applies, in order, each schema migration not yet recorded in the
  // schema_version table, each in its own transaction; safe to call again
  // and from several processes at once. OpenStore has already called it.
  virtual absl::Status Migrate() = 0;

  // Records a run at admission: its run_id, user, peer, label, op, request,
  // accepted_unix_ms, and status QUEUED, or REFUSED with its error. Any
  // other field the record carries (samples included) is stored too.
  // INVALID_ARGUMENT naming the field for text (run_id, user, peer, label,
  // op, error) that is not UTF-8: nothing is stored that a reader could
  // not parse.
  virtual absl::Status Accept(const v1::RunRecord& record) = 0;

  // A device took the run: status RUNNING, its device, its Started event and
  // started_unix_ms. Calling it again while the run is RUNNING replaces
  // them (the worker's Started event comes after the device took the run).
  virtual absl::Status Start(const std::string& run_id, const v1::DeviceInfo& device,
                             const v1::Started& started, int64_t unix_ms) = 0;

  // The run ended: its final status, error, results, summary, samples and
  // ended_unix_ms, written in one transaction; INVALID_ARGUMENT for an
  // error that is not UTF-8.
  virtual absl::Status Finish(const std::string& run_id, const RunOutcome& outcome) = 0;

  // Every QUEUED or RUNNING run of this store's host (OpenStore's `host`),
  // or of no host (accepted before runs named their host), becomes
  // INTERRUPTED; returns how many did.
  virtual absl::StatusOr<int64_t> MarkInFlightInterrupted() = 0;

  // Renews this store's host's lease: the host is alive at `unix_ms`.
  virtual absl::Status Heartbeat(int64_t unix_ms) = 0;
  // Every QUEUED or RUNNING run of another host whose last Heartbeat is
  // older than `lease_ms` at `unix_ms` becomes INTERRUPTED (its server
  // died and did not come back to end them); returns how many did. The
  // lapsed hosts' leases are forgotten, so each is swept once.
  virtual absl::StatusOr<int64_t> MarkLapsedHostsInterrupted(int64_t unix_ms, int64_t lease_ms) = 0;

  // One page of the runs matching the request's filters, newest first (see
  // ListRunsRequest in kbench/v1/history.proto). Every record read can be
  // sent whatever its row holds (RunRecord.sanitized): one bad row never
  // fails a page, here or in Get. The request's kernels come without their
  // sources (Get has them), so a page stays small.
  virtual absl::StatusOr<v1::ListRunsResponse> List(const v1::ListRunsRequest& request,
                                                    Samples samples) = 0;

  // The runs matching the request's filters (its page_size and page_token
  // ignored) counted by label or by learner, in the database (GROUP BY over
  // the covering indexes of migration 11), so a dashboard's table costs the
  // same at a million runs as at a thousand. By label, a label only refused
  // runs carry is left out. INVALID_ARGUMENT for a bad filter, as List.
  virtual absl::StatusOr<RunTallies> Tally(TallyBy by, const v1::ListRunsRequest& filter) = 0;

  // The variant results of the runs matching the filter (its page_size and
  // page_token ignored) that `view` selects, from the run_results table
  // Finish fills (migration 13), chosen and counted in the database: an
  // assignment's tables cost the same at a million runs as at a thousand.
  // Row order: kBestVerified and kBestSpeedups by learner, op, problem,
  // dtype, variant, baseline (the caller sorts them for display); kVerified
  // and kFailedVerification newest run first. INVALID_ARGUMENT for a bad
  // filter, as List.
  virtual absl::StatusOr<ResultRows> Results(ResultView view,
                                             const v1::ListRunsRequest& filter) = 0;

  // One run with everything, its samples and its kernels' sources
  // included (each source is stored once, however many runs sent it);
  // RunNotFoundError when
  // the store holds no run `run_id`.
  virtual absl::StatusOr<v1::RunRecord> Get(const std::string& run_id) = 0;

  // The SHA-256 (hex) of each kernel source the run sent, in the order of
  // RunRequest.kernels (empty for a run without kernels or an unknown id):
  // what an assignment's scoring checks a run's kernel by.
  virtual absl::StatusOr<std::vector<std::string>> KernelHashes(const std::string& run_id) = 0;

  // The device time of `user`'s runs that started and ended at or after
  // since_unix_ms ended, each run counted whole (the quotas' usage).
  virtual absl::StatusOr<DeviceTime> DeviceTimeOf(const std::string& user,
                                                  int64_t since_unix_ms) = 0;

  // `user`'s runs recorded by the other hosts sharing the store (a host other
  // than this store's; '' too): what the quotas add to the counts a server
  // keeps of its own runs, so that they hold across servers. A host that
  // died leaves its runs in flight counted until its lease lapses
  // (MarkLapsedHostsInterrupted). Zero on a store one server uses.
  virtual absl::StatusOr<ActivityElsewhere> ActivityElsewhereOf(const std::string& user,
                                                                int64_t since_unix_ms) = 0;

  // Every cohort's own quotas (the cohort_quotas table), by cohort.
  virtual absl::StatusOr<std::map<std::string, v1::QuotaOverrides>> CohortQuotas() = 0;
  // Replaces `cohort`'s own quotas.
  virtual absl::Status SetCohortQuotas(const std::string& cohort,
                                       const v1::QuotaOverrides& overrides, int64_t unix_ms) = 0;
};

// Opens and migrates the store that `spec` names: a postgresql:// or
// postgres:// URL opens PostgreSQL; anything else is the path of a SQLite
// file, created with its directory when missing.
// `host`: the id of the server's host (--host-id). Runs this store accepts
// are recorded as that host's, and its MarkInFlightInterrupted ends only
// them: servers sharing a PostgreSQL store each end their own.
absl::StatusOr<std::unique_ptr<RunStore>> OpenStore(const std::string& spec,
                                                    const std::string& host = "");

}  // namespace kbench::server::store
