#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "server/store/postgres_database.h"
#include "server/store/run_store.h"
#include "server/store/sql_run_store.h"
#include "server/store/sqlite_database.h"

namespace kbench::server::store {

absl::StatusOr<std::unique_ptr<SqlDatabase>> OpenDatabase(const std::string& spec) {
  std::unique_ptr<SqlDatabase> database;
  if (absl::StartsWith(spec, "postgresql://") || absl::StartsWith(spec, "postgres://")) {
    KBENCH_ASSIGN_OR_RETURN(database, OpenPostgresDatabase(spec));
  } else {
    if (spec.empty()) return absl::InvalidArgumentError("store: no path or URL given");
    const std::filesystem::path directory = std::filesystem::path(spec).parent_path();
    std::error_code error;
    if (!directory.empty()) std::filesystem::create_directories(directory, error);
    if (error) {
      return absl::UnavailableError(absl::StrCat("cannot create the store's directory ",
                                                 directory.string(), ": ", error.message()));
    }
    KBENCH_ASSIGN_OR_RETURN(database, OpenSqliteDatabase(spec));
  }
  return database;
}

absl::StatusOr<std::unique_ptr<RunStore>> OpenStore(const std::string& spec,
                                                    const std::string& host) {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<SqlDatabase> database, OpenDatabase(spec));
  auto store = std::make_unique<SqlRunStore>(std::move(database), host);
  KBENCH_RETURN_IF_ERROR(store->Migrate());
  return store;
}

}  // namespace kbench::server::store
