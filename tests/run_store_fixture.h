// A RunStore on a fresh store of the test's engine (SQLite, a file in a
// temporary directory; or a database of the PostgreSQL 15 the tests start),
// opened (and migrated) in SetUp and reopened by Open.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "server/store/run_store.h"
#include "server/store/sql_database.h"
#include "tests/postgres_fixture.h"
#include "tests/temp_dir.h"

namespace kbench::testing {

class RunStoreFixture : public ::testing::TestWithParam<StoreEngine> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> spec = FreshStoreSpec(GetParam(), dir_.path());
    ASSERT_TRUE(spec.ok()) << spec.status();
    spec_ = *spec;
    Open();
  }

  // Closes the store and opens it again.
  void Open() {
    store_.reset();
    absl::StatusOr<std::unique_ptr<server::store::RunStore>> store =
        server::store::OpenStore(spec_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  // Runs `statements` on the store's database directly, then reopens the
  // store (which migrates): how a test takes a migration back to check it
  // fills what it adds.
  void RunThenReopen(const std::vector<const char*>& statements) {
    {
      absl::StatusOr<std::unique_ptr<server::store::SqlDatabase>> database =
          server::store::OpenDatabase(spec_);
      ASSERT_TRUE(database.ok()) << database.status();
      for (const char* statement : statements) {
        absl::StatusOr<int64_t> done = (*database)->Execute(statement, {});
        ASSERT_TRUE(done.ok()) << statement << ": " << done.status();
      }
    }
    Open();
  }

  TempDir dir_;
  std::string spec_;
  std::unique_ptr<server::store::RunStore> store_;
};

}  // namespace kbench::testing
