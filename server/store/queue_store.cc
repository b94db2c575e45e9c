#include "server/store/queue_store.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "kernels/common/status_macros.h"
#include "server/store/proto_column.h"

namespace kbench::server::store {
namespace {

// What a user is charged from their runs claimed (see the header), for
// the run `q` of a query: one probe of run_queue_share per row, so the
// plan does not hang on the table's statistics. Binds the start of the
// fair-share window.
constexpr char kUsed[] = R"sql((SELECT COALESCE(SUM(CASE WHEN r.ended_unix_ms > 0
      THEN r.ended_unix_ms - r.claimed_unix_ms ELSE r.budget_ms END), 0)
    FROM run_queue r
    WHERE r.user_name = q.user_name AND r.claimed_host <> ''
      AND (r.ended_unix_ms = 0 OR r.ended_unix_ms >= ?)))sql";

// The waiting runs of one backend with what orders them (see the header),
// as a WITH clause; binds the start of the fair-share window, then the
// backend.
std::string FairOrder() {
  return absl::StrCat(R"sql(WITH waiting AS (
  SELECT q.run_id, q.admitted_host, q.budget_ms, q.priority, q.enqueued_unix_ms,
         )sql",
                      kUsed, R"sql( - q.budget_ms + SUM(q.budget_ms) OVER (
           PARTITION BY q.user_name ORDER BY q.enqueued_unix_ms, q.run_id
           ROWS UNBOUNDED PRECEDING) AS charged_ms
  FROM run_queue q
  WHERE q.claimed_host = '' AND q.cancelled = 0 AND q.backend = ?) )sql");
}
constexpr char kFairOrderBy[] =
    " ORDER BY w.priority DESC, w.charged_ms, w.enqueued_unix_ms, w.run_id";

// The run Claim takes: the first of the fair order is always some user's
// oldest waiting run (a user's later runs are charged the budgets of those
// ahead of them as well), so only those are ordered, each found by one
// probe of run_queue_waiting (a correlated subquery, not a join, so that
// no plan made from a new table's statistics scans the queue once per
// waiting run). Binds the start of the fair-share window, then the backend.
std::string NextRun() {
  return absl::StrCat("SELECT q.run_id, q.user_name, q.priority, q.op, q.budget_ms, q.request, ",
                      kUsed,
                      R"sql( AS used_ms
FROM run_queue q
WHERE q.claimed_host = '' AND q.cancelled = 0 AND q.backend = ? AND q.enqueued_unix_ms = (
  SELECT MIN(o.enqueued_unix_ms) FROM run_queue o
  WHERE o.claimed_host = '' AND o.cancelled = 0 AND o.backend = q.backend
    AND o.user_name = q.user_name)
ORDER BY q.priority DESC, used_ms, q.enqueued_unix_ms, q.run_id LIMIT 1)sql");
}

int64_t Int(const SqlValue& value) { return std::get<int64_t>(value); }
const std::string& Text(const SqlValue& value) { return std::get<std::string>(value); }

}  // namespace

absl::Status SweepQueueOfHosts(SqlDatabase& database, const std::string& hosts_sql,
                               const std::vector<SqlValue>& hosts_params, int64_t unix_ms,
                               const std::string& why) {
  const auto run = [&](const std::string& sql, std::vector<SqlValue> params) {
    params.insert(params.end(), hosts_params.begin(), hosts_params.end());
    return database.Execute(absl::StrReplaceAll(sql, {{"HOSTS", hosts_sql}}), params).status();
  };
  // Their runs started and not ended: lost with the host.
  KBENCH_RETURN_IF_ERROR(
      run("UPDATE runs SET status = ?, error = ? WHERE status IN (?, ?) AND run_id IN ("
          "SELECT run_id FROM run_queue WHERE started_unix_ms > 0 AND ended_unix_ms = 0 "
          "AND claimed_host IN (HOSTS))",
          {int64_t{v1::RUN_STATUS_INTERRUPTED}, why, int64_t{v1::RUN_STATUS_QUEUED},
           int64_t{v1::RUN_STATUS_RUNNING}}));
  KBENCH_RETURN_IF_ERROR(
      run("UPDATE run_queue SET ended_unix_ms = ?, end_code = ?, end_message = ? "
          "WHERE started_unix_ms > 0 AND ended_unix_ms = 0 AND claimed_host IN (HOSTS)",
          {unix_ms, int64_t(absl::StatusCode::kUnavailable), why}));
  // Their claims not started: back to the queue, unless their client left.
  KBENCH_RETURN_IF_ERROR(
      run("DELETE FROM run_queue WHERE started_unix_ms = 0 AND ended_unix_ms = 0 "
          "AND cancelled = 1 AND claimed_host IN (HOSTS)",
          {}));
  KBENCH_RETURN_IF_ERROR(
      run("UPDATE run_queue SET claimed_host = '', claimed_unix_ms = 0 "
          "WHERE started_unix_ms = 0 AND ended_unix_ms = 0 AND claimed_host IN (HOSTS)",
          {}));
  // The runs they admitted have no client left to follow them.
  KBENCH_RETURN_IF_ERROR(
      run("DELETE FROM run_events WHERE run_id IN ("
          "SELECT run_id FROM run_queue WHERE admitted_host IN (HOSTS))",
          {}));
  KBENCH_RETURN_IF_ERROR(
      run("DELETE FROM run_queue WHERE claimed_host = '' AND admitted_host IN (HOSTS)", {}));
  KBENCH_RETURN_IF_ERROR(
      run("UPDATE run_queue SET cancelled = 1 WHERE ended_unix_ms = 0 AND admitted_host IN (HOSTS)",
          {}));
  return run(
      "UPDATE run_queue SET delivered = 1 WHERE ended_unix_ms > 0 AND admitted_host IN (HOSTS)",
      {});
}

absl::StatusOr<std::unique_ptr<QueueStore>> QueueStore::Open(const std::string& spec,
                                                             std::string host, std::string backend,
                                                             std::chrono::milliseconds window) {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<SqlDatabase> database, OpenDatabase(spec));
  return std::make_unique<QueueStore>(std::move(database), std::move(host), std::move(backend),
                                      window);
}

QueueStore::QueueStore(std::unique_ptr<SqlDatabase> database, std::string host, std::string backend,
                       std::chrono::milliseconds window)
    : database_(std::move(database)),
      host_(std::move(host)),
      backend_(std::move(backend)),
      window_ms_(window.count()) {}

absl::Status QueueStore::Enqueue(const QueueEntry& entry, int64_t unix_ms) {
  std::lock_guard lock(mu_);
  return database_
      ->Execute(
          "INSERT INTO run_queue (run_id, user_name, priority, op, budget_ms, request, "
          "admitted_host, backend, enqueued_unix_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
          "ON CONFLICT (run_id) DO NOTHING",
          {entry.run_id, entry.user, int64_t{entry.priority}, entry.op, entry.budget_ms,
           Serialized(entry.request), host_, backend_, unix_ms})
      .status();
}

absl::StatusOr<bool> QueueStore::Withdraw(const std::string& run_id) {
  std::lock_guard lock(mu_);
  bool was_waiting = false;
  KBENCH_RETURN_IF_ERROR(database_->InTransaction([&]() -> absl::Status {
    KBENCH_ASSIGN_OR_RETURN(
        const int64_t removed,
        database_->Execute("DELETE FROM run_queue WHERE run_id = ? AND claimed_host = ''",
                           {run_id}));
    was_waiting = removed > 0;
    if (was_waiting) return absl::OkStatus();
    return database_->Execute("UPDATE run_queue SET cancelled = 1 WHERE run_id = ?", {run_id})
        .status();
  }));
  return was_waiting;
}

absl::StatusOr<std::optional<QueueEntry>> QueueStore::Claim(int64_t unix_ms) {
  std::lock_guard lock(mu_);
  std::optional<QueueEntry> claimed;
  KBENCH_RETURN_IF_ERROR(database_->InTransaction([&]() -> absl::Status {
    const bool postgres = database_->dialect() == SqlDialect::kPostgres;
    KBENCH_ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        database_->Query(absl::StrCat(NextRun(), postgres ? " FOR UPDATE OF q SKIP LOCKED" : ""),
                         {unix_ms - window_ms_, backend_}));
    if (rows.empty()) return absl::OkStatus();
    const SqlRow& row = rows[0];
    QueueEntry entry;
    entry.run_id = Text(row[0]);
    entry.user = Text(row[1]);
    entry.priority = Int(row[2]) != 0;
    entry.op = Text(row[3]);
    entry.budget_ms = Int(row[4]);
    if (!ParseColumn(row[5], entry.request))
      return absl::DataLossError(
          absl::StrCat("the queued request of ", entry.run_id, " cannot be read"));
    KBENCH_RETURN_IF_ERROR(
        database_
            ->Execute("UPDATE run_queue SET claimed_host = ?, claimed_unix_ms = ? WHERE run_id = ?",
                      {host_, unix_ms, entry.run_id})
            .status());
    claimed = std::move(entry);
    return absl::OkStatus();
  }));
  return claimed;
}

absl::Status QueueStore::Release(const std::string& run_id) {
  std::lock_guard lock(mu_);
  return database_->InTransaction([&]() -> absl::Status {
    KBENCH_RETURN_IF_ERROR(
        database_
            ->Execute(
                "DELETE FROM run_queue WHERE run_id = ? AND claimed_host = ? AND cancelled = 1",
                {run_id, host_})
            .status());
    return database_
        ->Execute(
            "UPDATE run_queue SET claimed_host = '', claimed_unix_ms = 0 "
            "WHERE run_id = ? AND claimed_host = ? AND started_unix_ms = 0",
            {run_id, host_})
        .status();
  });
}

absl::Status QueueStore::Started(const std::string& run_id, const v1::DeviceInfo& device,
                                 int64_t unix_ms) {
  std::lock_guard lock(mu_);
  return database_
      ->Execute(
          "UPDATE run_queue SET device = ?, started_unix_ms = ? "
          "WHERE run_id = ? AND claimed_host = ?",
          {Serialized(device), unix_ms, run_id, host_})
      .status();
}

absl::Status QueueStore::InsertEvents(const std::string& run_id, int64_t first_seq,
                                      const std::vector<v1::RunEvent>& events) {
  for (size_t i = 0; i < events.size(); ++i)
    KBENCH_RETURN_IF_ERROR(database_
                               ->Execute("INSERT INTO run_events (run_id, seq, event) "
                                         "VALUES (?, ?, ?) ON CONFLICT (run_id, seq) DO NOTHING",
                                         {run_id, first_seq + int64_t(i), Serialized(events[i])})
                               .status());
  return absl::OkStatus();
}

absl::Status QueueStore::Append(const std::string& run_id, int64_t first_seq,
                                const std::vector<v1::RunEvent>& events) {
  std::lock_guard lock(mu_);
  return database_->InTransaction([&] { return InsertEvents(run_id, first_seq, events); });
}

absl::Status QueueStore::End(const std::string& run_id, int64_t first_seq,
                             const std::vector<v1::RunEvent>& events, const absl::Status& status,
                             int64_t unix_ms) {
  std::lock_guard lock(mu_);
  return database_->InTransaction([&]() -> absl::Status {
    KBENCH_RETURN_IF_ERROR(InsertEvents(run_id, first_seq, events));
    return database_
        ->Execute(
            "UPDATE run_queue SET ended_unix_ms = ?, end_code = ?, end_message = ?, request = ? "
            "WHERE run_id = ? AND ended_unix_ms = 0",
            {unix_ms, int64_t(status.code()), std::string(status.message()), SqlBytes{}, run_id})
        .status();
  });
}

absl::StatusOr<std::vector<std::string>> QueueStore::CancelledClaims() {
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> rows,
      database_->Query("SELECT run_id FROM run_queue WHERE claimed_host = ? AND ended_unix_ms = 0 "
                       "AND cancelled = 1",
                       {host_}));
  std::vector<std::string> run_ids;
  for (const SqlRow& row : rows) run_ids.push_back(Text(row[0]));
  return run_ids;
}

absl::Status QueueStore::SetDevices(int64_t devices) {
  std::lock_guard lock(mu_);
  return database_->Execute("UPDATE host_leases SET devices = ? WHERE host = ?", {devices, host_})
      .status();
}

absl::StatusOr<QueueView> QueueStore::Follow(int64_t unix_ms, bool places) {
  std::lock_guard lock(mu_);
  QueueView view;
  KBENCH_RETURN_IF_ERROR(database_->InTransaction([&]() -> absl::Status {
    view = QueueView();
    // The rows first, then the events: an ended row's events were written
    // with its end, so none is missed.
    KBENCH_ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        database_->Query(
            "SELECT run_id, claimed_host, started_unix_ms, device, ended_unix_ms, end_code, "
            "end_message FROM run_queue WHERE admitted_host = ? AND delivered = 0",
            {host_}));
    if (rows.empty()) return absl::OkStatus();
    std::map<std::string, size_t> index;
    bool any_waiting = false;
    for (const SqlRow& row : rows) {
      FollowedRun& run = view.runs.emplace_back();
      run.run_id = Text(row[0]);
      index[run.run_id] = view.runs.size() - 1;
      any_waiting = any_waiting || Text(row[1]).empty();
      run.started = Int(row[2]) > 0;
      if (run.started) ParseColumn(row[3], run.device);
      run.ended = Int(row[4]) > 0;
      if (run.ended) run.end = absl::Status(absl::StatusCode(Int(row[5])), Text(row[6]));
    }
    if (places && any_waiting) {
      KBENCH_ASSIGN_OR_RETURN(
          std::vector<SqlRow> order,
          database_->Query(absl::StrCat(FairOrder(),
                                        "SELECT w.run_id, w.admitted_host, w.budget_ms "
                                        "FROM waiting w",
                                        kFairOrderBy),
                           {unix_ms - window_ms_, backend_}));
      int64_t position = 0;
      int64_t ahead_ms = 0;
      for (const SqlRow& row : order) {
        if (const auto it = index.find(Text(row[0])); it != index.end()) {
          view.runs[it->second].position = position;
          view.runs[it->second].budget_ahead_ms = ahead_ms;
        }
        ++position;
        ahead_ms += Int(row[2]);
      }
    }
    KBENCH_ASSIGN_OR_RETURN(
        std::vector<SqlRow> events,
        database_->Query("SELECT e.run_id, e.seq, e.event FROM run_events e "
                         "JOIN run_queue q ON q.run_id = e.run_id "
                         "WHERE q.admitted_host = ? AND q.delivered = 0 ORDER BY e.run_id, e.seq",
                         {host_}));
    std::map<std::string, int64_t> last_seq;
    for (const SqlRow& row : events) {
      const auto it = index.find(Text(row[0]));
      if (it == index.end()) continue;
      v1::RunEvent event;
      if (ParseColumn(row[2], event)) view.runs[it->second].events.push_back(std::move(event));
      last_seq[Text(row[0])] = Int(row[1]);
    }
    for (const auto& [run_id, seq] : last_seq)
      KBENCH_RETURN_IF_ERROR(
          database_->Execute("DELETE FROM run_events WHERE run_id = ? AND seq <= ?", {run_id, seq})
              .status());
    for (const FollowedRun& run : view.runs)
      if (run.ended)
        KBENCH_RETURN_IF_ERROR(
            database_->Execute("UPDATE run_queue SET delivered = 1 WHERE run_id = ?", {run.run_id})
                .status());
    KBENCH_ASSIGN_OR_RETURN(view.load, ReadLoad());
    return absl::OkStatus();
  }));
  return view;
}

absl::StatusOr<ClusterLoad> QueueStore::Load() {
  std::lock_guard lock(mu_);
  return ReadLoad();
}

absl::StatusOr<ClusterLoad> QueueStore::ReadLoad() {
  KBENCH_ASSIGN_OR_RETURN(
      std::vector<SqlRow> totals,
      database_->Query("SELECT (SELECT COUNT(*) FROM run_queue WHERE claimed_host <> '' "
                       "AND ended_unix_ms = 0), "
                       "(SELECT COUNT(*) FROM run_queue WHERE claimed_host = '' "
                       "AND cancelled = 0 AND ended_unix_ms = 0), "
                       "(SELECT CAST(COALESCE(SUM(devices), 0) AS BIGINT) FROM host_leases)",
                       {}));
  return ClusterLoad{
      .running = Int(totals[0][0]), .waiting = Int(totals[0][1]), .devices = Int(totals[0][2])};
}

absl::Status QueueStore::Prune(int64_t unix_ms) {
  std::lock_guard lock(mu_);
  const int64_t before = unix_ms - window_ms_;
  return database_->InTransaction([&]() -> absl::Status {
    KBENCH_RETURN_IF_ERROR(
        database_
            ->Execute("DELETE FROM run_events WHERE run_id IN (SELECT run_id FROM run_queue "
                      "WHERE ended_unix_ms > 0 AND ended_unix_ms < ?)",
                      {before})
            .status());
    return database_
        ->Execute("DELETE FROM run_queue WHERE ended_unix_ms > 0 AND ended_unix_ms < ?", {before})
        .status();
  });
}

}  // namespace kbench::server::store
