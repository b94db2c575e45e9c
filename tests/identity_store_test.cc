// IdentityStore on both engines: SQLite (a file in a temporary directory)
// and the PostgreSQL 15 that the test starts; and the roster parser.
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "server/app/roster.h"
#include "server/identity/secret.h"
#include "server/store/identity_store.h"
#include "server/store/run_store.h"
#include "server/store/unix_time.h"
#include "tests/postgres_fixture.h"
#include "tests/run_records.h"
#include "tests/temp_dir.h"

namespace kbench::server::store {
namespace {

using identity::Role;

using Engine = ::kbench::testing::StoreEngine;

int64_t Now() { return NowUnixMs(); }
int64_t NowPlusHours(int hours) { return Now() + int64_t{hours} * 3600 * 1000; }

class IdentityStoreTest : public ::testing::TestWithParam<Engine> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> spec = ::kbench::testing::FreshStoreSpec(GetParam(), dir_.path());
    ASSERT_TRUE(spec.ok()) << spec.status();
    spec_ = *spec;
    absl::StatusOr<std::unique_ptr<IdentityStore>> store = OpenIdentityStore(spec_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    ASSERT_TRUE(store_->AddCohort("fall24").ok());
  }

  std::string AddUser(const std::string& name, Role role, const std::string& cohort) {
    absl::StatusOr<std::vector<std::string>> tokens =
        store_->AddUsers({NewUser{name, role, cohort, ""}});
    EXPECT_TRUE(tokens.ok()) << tokens.status();
    return tokens.ok() ? tokens->front() : "";
  }

  ::kbench::testing::TempDir dir_;
  std::string spec_;
  std::unique_ptr<IdentityStore> store_;
};

TEST_P(IdentityStoreTest, ATokenNamesItsUserAndIsStoredOnlyAsItsHash) {
  const std::string token = AddUser("ada", Role::kLearner, "fall24");
  EXPECT_EQ(token.rfind("kbt_", 0), 0u) << token;
  EXPECT_GT(token.size(), 40u);
  absl::StatusOr<identity::Principal> who = store_->FindByToken(token);
  ASSERT_TRUE(who.ok()) << who.status();
  EXPECT_EQ(who->user, "ada");
  EXPECT_EQ(who->cohort, "fall24");
  EXPECT_EQ(who->role, Role::kLearner);
  // The hash is not a token.
  EXPECT_TRUE(absl::IsNotFound(store_->FindByToken(identity::SecretHash(token)).status()));
  EXPECT_TRUE(absl::IsNotFound(store_->FindByToken("kbt_made_up").status()));
}

TEST_P(IdentityStoreTest, EveryTokenIsDifferent) {
  EXPECT_NE(AddUser("ada", Role::kLearner, "fall24"), AddUser("bob", Role::kLearner, "fall24"));
}

TEST_P(IdentityStoreTest, ARevokedTokenStopsWorking) {
  const std::string token = AddUser("ada", Role::kLearner, "fall24");
  ASSERT_EQ(*store_->CountActiveUsers(), 1);
  ASSERT_TRUE(store_->Revoke("ada").ok());
  EXPECT_TRUE(absl::IsNotFound(store_->FindByToken(token).status()));
  EXPECT_EQ(*store_->CountActiveUsers(), 0);
  EXPECT_TRUE(absl::IsFailedPrecondition(store_->Revoke("ada")));
  EXPECT_TRUE(absl::IsNotFound(store_->Revoke("nobody")));
  absl::StatusOr<std::vector<UserRecord>> users = store_->ListUsers();
  ASSERT_TRUE(users.ok());
  ASSERT_EQ(users->size(), 1u);
  EXPECT_GT((*users)[0].revoked_unix_ms, 0);
}

TEST_P(IdentityStoreTest, RefusesBadUsersNamingTheField) {
  absl::StatusOr<std::vector<std::string>> bad =
      store_->AddUsers({NewUser{"a b", Role::kLearner, "fall24", ""}});
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status()));
  EXPECT_NE(bad.status().message().find("name"), std::string::npos) << bad.status();
  bad = store_->AddUsers({NewUser{std::string(65, 'a'), Role::kLearner, "fall24", ""}});
  EXPECT_NE(bad.status().message().find("64"), std::string::npos) << bad.status();
  bad = store_->AddUsers({NewUser{"ada", Role::kLearner, "", ""}});
  EXPECT_NE(bad.status().message().find("cohort"), std::string::npos) << bad.status();
  bad = store_->AddUsers({NewUser{"root", Role::kAdmin, "fall24", ""}});
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status()));
  bad = store_->AddUsers({NewUser{"ada", Role::kLearner, "spring25", ""}});
  EXPECT_TRUE(absl::IsNotFound(bad.status()));
  EXPECT_NE(bad.status().message().find("spring25"), std::string::npos);
  EXPECT_TRUE(absl::IsAlreadyExists(store_->AddCohort("fall24")));
}

TEST_P(IdentityStoreTest, AddsAllUsersOrNone) {
  AddUser("bob", Role::kLearner, "fall24");
  absl::StatusOr<std::vector<std::string>> tokens = store_->AddUsers(
      {NewUser{"ada", Role::kLearner, "fall24", ""}, NewUser{"bob", Role::kLearner, "fall24", ""}});
  EXPECT_TRUE(absl::IsAlreadyExists(tokens.status())) << tokens.status();
  EXPECT_TRUE(absl::IsNotFound(store_->FindUser("ada").status()));
  EXPECT_EQ(*store_->CountActiveUsers(), 1);
}

TEST_P(IdentityStoreTest, AnInviteMakesLearnersInItsCohortUntilUsedUp) {
  absl::StatusOr<std::string> code = store_->CreateInvite("fall24", 2, NowPlusHours(1), "grace");
  ASSERT_TRUE(code.ok()) << code.status();
  absl::StatusOr<std::string> ada = store_->RedeemInvite(*code, "ada", Now());
  ASSERT_TRUE(ada.ok()) << ada.status();
  absl::StatusOr<identity::Principal> who = store_->FindByToken(*ada);
  ASSERT_TRUE(who.ok());
  EXPECT_EQ(who->cohort, "fall24");
  EXPECT_EQ(who->role, Role::kLearner);
  EXPECT_TRUE(absl::IsAlreadyExists(store_->RedeemInvite(*code, "ada", Now()).status()));
  ASSERT_TRUE(store_->RedeemInvite(*code, "bob", Now()).ok());
  absl::StatusOr<std::string> used_up = store_->RedeemInvite(*code, "cy", Now());
  EXPECT_TRUE(absl::IsPermissionDenied(used_up.status()));
  EXPECT_NE(used_up.status().message().find("used up"), std::string::npos);
  EXPECT_TRUE(absl::IsPermissionDenied(store_->RedeemInvite("kbi_nope", "cy", Now()).status()));
}

TEST_P(IdentityStoreTest, InvitesAreListedByIdRevocableAndDieWithTheirCreator) {
  AddUser("grace", Role::kInstructor, "fall24");
  absl::StatusOr<std::string> first = store_->CreateInvite("fall24", 3, NowPlusHours(1), "grace");
  absl::StatusOr<std::string> second = store_->CreateInvite("fall24", 3, NowPlusHours(1), "grace");
  ASSERT_TRUE(first.ok() && second.ok());
  absl::StatusOr<std::vector<InviteRecord>> invites = store_->ListInvites("fall24", Now());
  ASSERT_TRUE(invites.ok()) << invites.status();
  ASSERT_EQ(invites->size(), 2u);
  EXPECT_EQ((*invites)[0].created_by, "grace");
  EXPECT_EQ((*invites)[0].uses_left, 3);
  EXPECT_TRUE(store_->ListInvites("spring25", Now())->empty());
  const std::string first_id = identity::SecretHash(*first).substr(0, kInviteIdLength);
  ASSERT_TRUE(store_->RevokeInvite(first_id).ok());
  EXPECT_TRUE(absl::IsNotFound(store_->RevokeInvite(first_id)));
  EXPECT_TRUE(absl::IsInvalidArgument(store_->RevokeInvite("%")));
  EXPECT_TRUE(absl::IsPermissionDenied(store_->RedeemInvite(*first, "ada", Now()).status()));
  ASSERT_TRUE(store_->Revoke("grace").ok());
  EXPECT_TRUE(store_->ListInvites("", Now())->empty());
  EXPECT_TRUE(absl::IsPermissionDenied(store_->RedeemInvite(*second, "ada", Now()).status()));
  EXPECT_TRUE(*store_->HadUsers());
  EXPECT_EQ(*store_->RevokedUsers(), std::vector<std::string>{"grace"});
}

TEST_P(IdentityStoreTest, AnExpiredInviteIsRefused) {
  absl::StatusOr<std::string> code = store_->CreateInvite("fall24", 5, Now() + 1000, "grace");
  ASSERT_TRUE(code.ok());
  absl::StatusOr<std::string> late = store_->RedeemInvite(*code, "ada", Now() + 2000);
  EXPECT_TRUE(absl::IsPermissionDenied(late.status()));
  EXPECT_NE(late.status().message().find("expired"), std::string::npos);
  EXPECT_TRUE(absl::IsInvalidArgument(
      store_->CreateInvite("fall24", kMaxInviteUses + 1, Now() + 1000, "grace").status()));
  EXPECT_TRUE(absl::IsNotFound(store_->CreateInvite("nope", 1, Now() + 1000, "g").status()));
}

TEST_P(IdentityStoreTest, TheCohortFilterListsItsUsersRuns) {
  AddUser("ada", Role::kLearner, "fall24");
  ASSERT_TRUE(store_->AddCohort("spring25").ok());
  AddUser("bob", Role::kLearner, "spring25");
  absl::StatusOr<std::unique_ptr<RunStore>> runs = OpenStore(spec_);
  ASSERT_TRUE(runs.ok());
  using ::kbench::testing::AdmittedRun;
  ASSERT_TRUE((*runs)->Accept(AdmittedRun("run-1", 1000, "lab1", "attention", "ada")).ok());
  ASSERT_TRUE((*runs)->Accept(AdmittedRun("run-2", 1001, "lab1", "attention", "bob")).ok());
  v1::ListRunsRequest request;
  request.set_cohort("fall24");
  absl::StatusOr<v1::ListRunsResponse> page = (*runs)->List(request, Samples::kOmit);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->runs_size(), 1);
  EXPECT_EQ(page->runs(0).user(), "ada");
}

INSTANTIATE_TEST_SUITE_P(Engines, IdentityStoreTest,
                         ::testing::Values(Engine::kSqlite, Engine::kPostgres),
                         [](const ::testing::TestParamInfo<Engine>& info) {
                           return ::kbench::testing::StoreEngineName(info.param);
                         });

TEST(Roster, ReadsNamesAndEmailsSkippingTheHeaderAndBlankLines) {
  std::istringstream csv("name,email\nada, ada@example.org\r\n\nbob\n");
  absl::StatusOr<std::vector<NewUser>> users = ParseRoster(csv, "fall24");
  ASSERT_TRUE(users.ok()) << users.status();
  ASSERT_EQ(users->size(), 2u);
  EXPECT_EQ((*users)[0].name, "ada");
  EXPECT_EQ((*users)[0].email, "ada@example.org");
  EXPECT_EQ((*users)[1].name, "bob");
  EXPECT_EQ((*users)[1].cohort, "fall24");
  EXPECT_EQ((*users)[1].role, Role::kLearner);
}

TEST(Roster, NamesTheBadLine) {
  std::istringstream csv("ada\nbad name\n");
  absl::StatusOr<std::vector<NewUser>> users = ParseRoster(csv, "fall24");
  EXPECT_TRUE(absl::IsInvalidArgument(users.status()));
  EXPECT_NE(users.status().message().find("line 2"), std::string::npos) << users.status();
  std::istringstream three("ada,a@x,extra\n");
  EXPECT_NE(ParseRoster(three, "c").status().message().find("name[,email]"), std::string::npos);
}

}  // namespace
}  // namespace kbench::server::store
