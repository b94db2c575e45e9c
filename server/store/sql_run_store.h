// RunStore over a SqlDatabase: the one implementation of the store's
// statements, migrations and record layout, shared by the SQLite and
// PostgreSQL engines. A mutex serializes every call.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "server/store/run_store.h"
#include "server/store/sql_database.h"

namespace kbench::server::store {

class SqlRunStore final : public RunStore {
 public:
  // Does not migrate; OpenStore does. `host`: see OpenStore.
  explicit SqlRunStore(std::unique_ptr<SqlDatabase> database, std::string host = "");

  absl::Status Migrate() override;
  absl::Status Accept(const v1::RunRecord& record) override;
  absl::Status Start(const std::string& run_id, const v1::DeviceInfo& device,
                     const v1::Started& started, int64_t unix_ms) override;
  absl::Status Finish(const std::string& run_id, const RunOutcome& outcome) override;
  absl::StatusOr<int64_t> MarkInFlightInterrupted() override;
  absl::Status Heartbeat(int64_t unix_ms) override;
  absl::StatusOr<int64_t> MarkLapsedHostsInterrupted(int64_t unix_ms, int64_t lease_ms) override;
  absl::StatusOr<v1::ListRunsResponse> List(const v1::ListRunsRequest& request,
                                            Samples samples) override;
  absl::StatusOr<RunTallies> Tally(TallyBy by, const v1::ListRunsRequest& filter) override;
  absl::StatusOr<ResultRows> Results(ResultView view, const v1::ListRunsRequest& filter) override;
  absl::StatusOr<v1::RunRecord> Get(const std::string& run_id) override;
  absl::StatusOr<std::vector<std::string>> KernelHashes(const std::string& run_id) override;
  absl::StatusOr<DeviceTime> DeviceTimeOf(const std::string& user, int64_t since_unix_ms) override;
  absl::StatusOr<ActivityElsewhere> ActivityElsewhereOf(const std::string& user,
                                                        int64_t since_unix_ms) override;
  absl::StatusOr<std::map<std::string, v1::QuotaOverrides>> CohortQuotas() override;
  absl::Status SetCohortQuotas(const std::string& cohort, const v1::QuotaOverrides& overrides,
                               int64_t unix_ms) override;

 private:
  // Why an update of an in-flight run changed nothing: NOT_FOUND, or
  // FAILED_PRECONDITION naming the status the run already has.
  absl::Status NotInFlight(const std::string& run_id);
  absl::Status ReadSamples(v1::RunRecord& record);
  // Puts the sources of the record's kernels back from kernel_sources.
  absl::Status ReadKernelSources(v1::RunRecord& record);

  std::mutex mu_;
  const std::unique_ptr<SqlDatabase> database_;
  const std::string host_;
};

}  // namespace kbench::server::store
