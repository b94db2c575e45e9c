#include "tests/postgres_fixture.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "kernels/common/status_macros.h"

extern char** environ;

namespace kbench::testing {
namespace {

constexpr char kDefaultBin[] = "/usr/lib/postgresql/15/bin";
constexpr int kStartAttempts = 5;  // ports can be taken between probe and bind

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs argv (as the `postgres` user when we are root), its output to
// `log`; an error quoting the log unless it exits 0.
absl::Status RunTool(std::vector<std::string> argv, const std::string& log) {
  if (geteuid() == 0) {
    argv.insert(argv.begin(), {"runuser", "-u", "postgres", "--"});
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  pid_t pid;
  const int error = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  const std::string command = absl::StrJoin(argv, " ");
  if (error != 0) {
    return absl::InternalError(absl::StrCat("cannot run ", command, ": ", strerror(error)));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(absl::StrCat(command, " failed:\n", ReadFile(log)));
  }
  return absl::OkStatus();
}

// A port of 127.0.0.1 that nothing listened on a moment ago.
absl::StatusOr<int> FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  close(fd);
  if (!ok) return absl::InternalError("cannot find a free port on 127.0.0.1");
  return ntohs(address.sin_port);
}

std::unique_ptr<PostgresServer>& Shared() {
  static auto* server = new std::unique_ptr<PostgresServer>();
  return *server;
}

// Stops the shared server after the last test.
class StopSharedPostgres : public ::testing::Environment {
 public:
  void TearDown() override { Shared().reset(); }
};
[[maybe_unused]] ::testing::Environment* const kStopSharedPostgres =
    ::testing::AddGlobalTestEnvironment(new StopSharedPostgres);

}  // namespace

PostgresServer::PostgresServer(std::string bin, int port) : bin_(std::move(bin)), port_(port) {}

absl::StatusOr<std::unique_ptr<PostgresServer>> PostgresServer::Start() {
  const char* from_env = std::getenv("KBENCH_PG_BIN");
  const std::string bin = from_env != nullptr ? from_env : kDefaultBin;
  for (const char* tool : {"initdb", "pg_ctl", "postgres", "createdb"}) {
    if (access(absl::StrCat(bin, "/", tool).c_str(), X_OK) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("PostgreSQL 15 is not installed: no ", tool, " in ", bin,
                       " (scripts/install-deps.sh installs postgresql-15; KBENCH_PG_BIN names "
                       "another directory)"));
    }
  }
  std::unique_ptr<PostgresServer> server(new PostgresServer(bin, 0));
  const std::string& dir = server->dir_.path();
  if (geteuid() == 0) {
    const passwd* postgres = getpwnam("postgres");
    if (postgres == nullptr) {
      return absl::FailedPreconditionError(
          "running as root, but there is no `postgres` user to run PostgreSQL as");
    }
    if (chown(dir.c_str(), postgres->pw_uid, postgres->pw_gid) != 0) {
      return absl::InternalError(absl::StrCat("cannot chown ", dir, " to postgres"));
    }
  }
  const std::string data = dir + "/data";
  KBENCH_RETURN_IF_ERROR(RunTool({bin + "/initdb", "-D", data, "-U", "postgres", "-A", "trust",
                                  "-E", "UTF8", "--locale=C", "--no-sync"},
                                 dir + "/initdb.log"));
  absl::Status started;
  for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
    KBENCH_ASSIGN_OR_RETURN(server->port_, FreePort());
    started = server->StartOnPort();
    if (started.ok()) {
      server->running_ = true;
      return server;
    }
  }
  return absl::UnavailableError(
      absl::StrCat(started.message(), "\npostgres.log:\n", ReadFile(dir + "/postgres.log")));
}

absl::Status PostgresServer::StartOnPort() {
  const std::string& dir = dir_.path();
  return RunTool(
      {bin_ + "/pg_ctl", "-D", dir + "/data", "-l", dir + "/postgres.log", "-w", "-t", "60", "-o",
       absl::StrCat("-p ", port_, " -k ", dir, " -c listen_addresses=127.0.0.1 -c fsync=off"),
       "start"},
      dir + "/pg_ctl.log");
}

absl::Status PostgresServer::StopNow() {
  return RunTool({bin_ + "/pg_ctl", "-D", dir_.path() + "/data", "-m", "immediate", "-w", "stop"},
                 dir_.path() + "/pg_ctl-stop.log");
}

absl::Status PostgresServer::Restart() {
  KBENCH_RETURN_IF_ERROR(StopNow());
  running_ = false;
  KBENCH_RETURN_IF_ERROR(StartOnPort());
  running_ = true;
  return absl::OkStatus();
}

PostgresServer::~PostgresServer() {
  if (!running_) return;
  const absl::Status stopped = StopNow();
  if (!stopped.ok()) ADD_FAILURE() << stopped;
}

absl::StatusOr<std::string> PostgresServer::CreateDatabase() {
  const std::string name = absl::StrCat("kbench_test_", ++databases_);
  KBENCH_RETURN_IF_ERROR(RunTool(
      {bin_ + "/createdb", "-h", "127.0.0.1", "-p", absl::StrCat(port_), "-U", "postgres", name},
      dir_.path() + "/createdb.log"));
  return absl::StrCat("postgresql://postgres@127.0.0.1:", port_, "/", name);
}

absl::StatusOr<PostgresServer*> SharedPostgres() {
  static absl::Status failed;
  if (!failed.ok()) return failed;
  if (Shared() == nullptr) {
    absl::StatusOr<std::unique_ptr<PostgresServer>> server = PostgresServer::Start();
    if (!server.ok()) {
      failed = server.status();
      return failed;
    }
    Shared() = *std::move(server);
  }
  return Shared().get();
}

absl::StatusOr<std::string> FreshStoreSpec(StoreEngine engine, const std::string& dir) {
  if (engine == StoreEngine::kSqlite) return dir + "/state/runs.db";
  absl::StatusOr<PostgresServer*> server = SharedPostgres();
  if (!server.ok()) return server.status();
  return (*server)->CreateDatabase();
}

std::string StoreEngineName(StoreEngine engine) {
  return engine == StoreEngine::kSqlite ? "Sqlite" : "Postgres";
}

void PrintTo(StoreEngine engine, std::ostream* os) { *os << StoreEngineName(engine); }

}  // namespace kbench::testing
