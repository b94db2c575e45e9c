// The first admin of an empty store (--bootstrap-admin): added once, with
// the operator's token, only while the store has never had a user; on both
// engines.
#include <fstream>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "server/app/bootstrap_admin.h"
#include "server/store/identity_store.h"
#include "tests/postgres_fixture.h"
#include "tests/temp_dir.h"

namespace kbench::server::store {
namespace {

using Engine = ::kbench::testing::StoreEngine;

constexpr char kToken[] = "0123456789abcdef0123456789abcdef0123456789abcdef";

class BootstrapAdminTest : public ::testing::TestWithParam<Engine> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> spec = ::kbench::testing::FreshStoreSpec(GetParam(), dir_.path());
    ASSERT_TRUE(spec.ok()) << spec.status();
    absl::StatusOr<std::unique_ptr<IdentityStore>> store = OpenIdentityStore(*spec);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  std::string TokenFile(const std::string& text) {
    const std::string path = dir_.path() + "/admin-token";
    std::ofstream(path) << text;
    return path;
  }

  ::kbench::testing::TempDir dir_;
  std::unique_ptr<IdentityStore> store_;
};

TEST_P(BootstrapAdminTest, AnEmptyStoreGetsTheAdminWithTheOperatorsToken) {
  ASSERT_TRUE(BootstrapAdmin(*store_, "root", TokenFile(std::string(kToken) + "\n")).ok());
  absl::StatusOr<identity::Principal> who = store_->FindByToken(kToken);
  ASSERT_TRUE(who.ok()) << who.status();
  EXPECT_EQ(who->user, "root");
  EXPECT_EQ(who->role, identity::Role::kAdmin);
}

TEST_P(BootstrapAdminTest, AStoreWithUsersIsLeftAsItWas) {
  ASSERT_TRUE(store_->AddUsers({NewUser{"ada", identity::Role::kAdmin, "", ""}}).ok());
  ASSERT_TRUE(BootstrapAdmin(*store_, "root", TokenFile(kToken)).ok());
  EXPECT_FALSE(store_->FindByToken(kToken).ok());
  EXPECT_EQ(store_->FindUser("root").status().code(), absl::StatusCode::kNotFound);
}

TEST_P(BootstrapAdminTest, AStoreWhoseUsersWereAllRevokedGetsNoNewAdmin) {
  ASSERT_TRUE(store_->AddUsers({NewUser{"ada", identity::Role::kAdmin, "", ""}}).ok());
  ASSERT_TRUE(store_->Revoke("ada").ok());
  absl::StatusOr<bool> added = store_->BootstrapAdmin("root", kToken);
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_FALSE(*added);
  EXPECT_FALSE(store_->FindByToken(kToken).ok());
}

TEST_P(BootstrapAdminTest, AShortTokenIsRefusedNamingTheMinimum) {
  const absl::Status status = BootstrapAdmin(*store_, "root", TokenFile("hunter2"));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("minimum of 32"), std::string::npos) << status;
  EXPECT_EQ(store_->FindUser("root").status().code(), absl::StatusCode::kNotFound);
}

TEST_P(BootstrapAdminTest, AMissingFileOrAMissingFlagIsAnErrorNamingIt) {
  EXPECT_EQ(BootstrapAdmin(*store_, "root", dir_.path() + "/none").code(),
            absl::StatusCode::kFailedPrecondition);
  const absl::Status no_file = BootstrapAdmin(*store_, "root", "");
  EXPECT_NE(no_file.message().find("--bootstrap-admin-token-file"), std::string::npos);
  const absl::Status no_name = BootstrapAdmin(*store_, "", TokenFile(kToken));
  EXPECT_NE(no_name.message().find("--bootstrap-admin NAME"), std::string::npos);
  EXPECT_TRUE(BootstrapAdmin(*store_, "", "").ok());
}

INSTANTIATE_TEST_SUITE_P(Engines, BootstrapAdminTest,
                         ::testing::Values(Engine::kSqlite, Engine::kPostgres),
                         [](const ::testing::TestParamInfo<Engine>& info) {
                           return ::kbench::testing::StoreEngineName(info.param);
                         });

}  // namespace
}  // namespace kbench::server::store
