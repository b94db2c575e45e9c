// The Assignments service in-process beside the KernelBench service, over
// one SQLite store, with a fake executor for timings (fake_executor.h) and
// users signed in by the test authenticator: a cohort simulation. The
// instructor writes an assignment; learners submit kernels (their stated
// times, one wrong, one tampered with) and run the submissions' runs
// through Run as the CLI does; the reports, the leaderboard (ranks, ties,
// hidden names), the roster, the hourly limit, closing, and who may see
// what follow from the stored runs.
#include "server/front/assignment_service.h"

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "kbench/v1/assignment.grpc.pb.h"
#include "server/front/scheduler.h"
#include "server/front/service.h"
#include "server/run/limits.h"
#include "server/store/assignment_store.h"
#include "server/store/store_recorder.h"
#include "tests/fake_executor.h"
#include "tests/role_stores.h"
#include "tests/temp_dir.h"
#include "tests/test_authenticator.h"

namespace kbench::server {
namespace {

using ::kbench::testing::TestAuthenticator;

// A vector add kernel whose fake run takes `ms` (and is wrong when asked).
v1::KernelSource Kernel(double ms, bool wrong = false, const std::string& name = "my_add.cu") {
  v1::KernelSource kernel;
  kernel.set_name(name);
  kernel.set_language(v1::KERNEL_LANGUAGE_CUDA_CPP);
  kernel.set_entry("my_add");
  kernel.set_source("// fake: ms=" + std::to_string(ms) + (wrong ? "\n// fake: wrong" : "") +
                    "\nextern \"C\" __global__ void my_add(const kbench_t* a, const kbench_t* "
                    "b, kbench_t* c, unsigned long long n) {}\n");
  kernel.mutable_launch()->set_grid("cdiv(n, 256)");
  kernel.mutable_launch()->set_block("256");
  return kernel;
}

v1::Assignment Lab1() {
  v1::Assignment lab;
  lab.set_name("lab1");
  lab.set_title("Vector add");
  lab.set_op("vector_add");
  for (uint64_t n : {uint64_t{1} << 20, uint64_t{1} << 22}) {
    v1::RunRequest& problem = *lab.add_problems();
    problem.mutable_vector_add()->set_n(n);
  }
  lab.add_baselines("naive");
  lab.add_baselines("vectorized");
  lab.set_submissions_per_hour(3);
  return lab;
}

class AssignmentServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string spec = dir_.path() + "/store.db";
    absl::StatusOr<::kbench::testing::SeededStores> stores =
        ::kbench::testing::OpenSeededStores(spec);
    ASSERT_TRUE(stores.ok()) << stores.status();
    stores_ = *std::move(stores);
    ASSERT_TRUE(
        stores_.identities->AddUsers({{"dan", identity::Role::kLearner, "fall24", ""}}).ok());
    absl::StatusOr<std::unique_ptr<store::AssignmentStore>> assignments =
        store::OpenAssignmentStore(spec);
    ASSERT_TRUE(assignments.ok()) << assignments.status();
    assignments_ = *std::move(assignments);
    for (const auto& [user, cohort, role] : {std::tuple{"ada", "fall24", identity::Role::kLearner},
                                             {"bob", "fall24", identity::Role::kLearner},
                                             {"dan", "fall24", identity::Role::kLearner},
                                             {"cy", "spring25", identity::Role::kLearner},
                                             {"grace", "fall24", identity::Role::kInstructor},
                                             {"root", "", identity::Role::kAdmin}})
      authenticator_.Add(user, cohort, role);

    std::vector<std::unique_ptr<Executor>> executors;
    executors.push_back(std::make_unique<::kbench::testing::FakeExecutor>(
        std::map<std::string, double>{{"naive", 2.0}, {"vectorized", 1.0}}));
    scheduler_ = std::make_unique<Scheduler>(std::move(executors), 64, nullptr);
    recorder_ = std::make_unique<store::StoreRecorder>(*stores_.runs);
    ServiceOptions options{DefaultLimits(v1::DeviceInfo()), DefaultTiming()};
    options.authenticator = &authenticator_;
    runs_ = std::make_unique<KernelBenchService>(*scheduler_, options,
                                                 std::vector<RunObserver*>{recorder_.get()});
    book_ = std::make_unique<AssignmentBook>(
        *assignments_, *stores_.runs, stores_.identities.get(),
        [this](const v1::RunRequest& request) { return runs_->CheckRequest(request); });
    service_ = std::make_unique<AssignmentService>(*book_, &authenticator_);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(runs_.get());
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                       grpc::InsecureChannelCredentials());
    stub_ = v1::Assignments::NewStub(channel);
    run_stub_ = v1::KernelBench::NewStub(channel);
  }
  void TearDown() override {
    if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    if (scheduler_) scheduler_->Stop();
  }

  // Calls `method` of the Assignments stub as `user`.
  template <typename Request, typename Response, typename Method>
  grpc::Status Call(const std::string& user, Method method, const Request& request,
                    Response* response) {
    grpc::ClientContext context;
    TestAuthenticator::SignIn(context, user);
    return ((*stub_).*method)(&context, request, response);
  }

  grpc::Status Save(const std::string& user, const v1::Assignment& lab, bool replace = false) {
    v1::SaveAssignmentRequest request;
    *request.mutable_assignment() = lab;
    request.set_replace(replace);
    v1::Assignment saved;
    return Call(user, &v1::Assignments::Stub::SaveAssignment, request, &saved);
  }

  grpc::Status Submit(const std::string& user, const v1::KernelSource& kernel,
                      v1::Submission* submission, const std::string& lab = "lab1") {
    v1::SubmitRequest request;
    request.set_assignment(lab);
    *request.mutable_kernel() = kernel;
    return Call(user, &v1::Assignments::Stub::Submit, request, submission);
  }

  // Runs `request` through Run as `user`, to its end, and waits for the
  // store to hold that end (the recorder writes it just after the stream
  // ends).
  grpc::Status Run(const std::string& user, const v1::RunRequest& request) {
    grpc::ClientContext context;
    TestAuthenticator::SignIn(context, user);
    auto reader = run_stub_->Run(&context, request);
    v1::RunEvent event;
    std::string run_id;
    while (reader->Read(&event))
      if (event.has_started()) run_id = event.started().run_id();
    const grpc::Status status = reader->Finish();
    for (int i = 0; i < 200 && !run_id.empty(); ++i) {
      absl::StatusOr<v1::RunRecord> record = stores_.runs->Get(run_id);
      if (record.ok() && record->ended_unix_ms() != 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return status;
  }

  // Submits and makes every run of the submission; its id.
  std::string SubmitAndRun(const std::string& user, const v1::KernelSource& kernel) {
    v1::Submission submission;
    const grpc::Status submitted = Submit(user, kernel, &submission);
    EXPECT_TRUE(submitted.ok()) << submitted.error_message();
    for (const v1::RunRequest& run : submission.runs()) {
      const grpc::Status ran = Run(user, run);
      EXPECT_TRUE(ran.ok()) << ran.error_message();
    }
    return submission.submission_id();
  }

  grpc::Status Report(const std::string& user, const std::string& id,
                      v1::SubmissionReport* report) {
    v1::SubmissionId request;
    request.set_submission_id(id);
    return Call(user, &v1::Assignments::Stub::GetSubmission, request, report);
  }

  v1::Leaderboard Board(const std::string& user) {
    v1::AssignmentName name;
    name.set_name("lab1");
    v1::Leaderboard board;
    const grpc::Status status = Call(user, &v1::Assignments::Stub::GetLeaderboard, name, &board);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return board;
  }

  ::kbench::testing::TempDir dir_;
  ::kbench::testing::SeededStores stores_;
  std::unique_ptr<store::AssignmentStore> assignments_;
  TestAuthenticator authenticator_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<store::StoreRecorder> recorder_;
  std::unique_ptr<KernelBenchService> runs_;
  std::unique_ptr<AssignmentBook> book_;
  std::unique_ptr<AssignmentService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::Assignments::Stub> stub_;
  std::unique_ptr<v1::KernelBench::Stub> run_stub_;
};

TEST_F(AssignmentServiceTest, OnlyTheCohortsInstructorOrAnAdminWritesAssignments) {
  EXPECT_EQ(Save("ada", Lab1()).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  v1::Assignment other = Lab1();
  other.set_cohort("spring25");
  EXPECT_EQ(Save("grace", other).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  v1::Assignment no_cohort = Lab1();
  const grpc::Status admin = Save("root", no_cohort);
  EXPECT_EQ(admin.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(admin.error_message().find("cohort"), std::string::npos) << admin.error_message();
  ASSERT_TRUE(Save("grace", Lab1()).ok());
  EXPECT_EQ(Save("grace", Lab1()).error_code(), grpc::StatusCode::ALREADY_EXISTS);
  v1::Assignment edited = Lab1();
  edited.set_title("Vector add, edited");
  ASSERT_TRUE(Save("grace", edited, /*replace=*/true).ok());

  // A learner of another cohort cannot tell it from a missing one.
  v1::AssignmentName name;
  name.set_name("lab1");
  v1::Assignment got;
  EXPECT_EQ(Call("cy", &v1::Assignments::Stub::GetAssignment, name, &got).error_code(),
            grpc::StatusCode::NOT_FOUND);
  ASSERT_TRUE(Call("ada", &v1::Assignments::Stub::GetAssignment, name, &got).ok());
  EXPECT_EQ(got.title(), "Vector add, edited");
  EXPECT_EQ(got.cohort(), "fall24");
  EXPECT_EQ(got.created_by(), "grace");
}

TEST_F(AssignmentServiceTest, RefusesABadAssignmentNamingTheFieldAndTheLimit) {
  v1::Assignment too_big = Lab1();
  too_big.mutable_problems(1)->mutable_vector_add()->set_n(uint64_t{1} << 40);
  grpc::Status status = Save("grace", too_big);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("problems[1]"), std::string::npos)
      << status.error_message();

  v1::Assignment unknown_variant = Lab1();
  unknown_variant.set_baselines(0, "fastest");
  status = Save("grace", unknown_variant);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("fastest"), std::string::npos) << status.error_message();

  v1::Assignment per_hour = Lab1();
  per_hour.set_submissions_per_hour(kMaxSubmissionsPerHour + 1);
  status = Save("grace", per_hour);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("submissions_per_hour"), std::string::npos);

  v1::Assignment with_kernel = Lab1();
  *with_kernel.mutable_problems(0)->add_kernels() = Kernel(1);
  EXPECT_EQ(Save("grace", with_kernel).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(AssignmentServiceTest, ACohortSubmitsAndTheLeaderboardRanksWhatTheStoreHolds) {
  ASSERT_TRUE(Save("grace", Lab1()).ok());
  const std::string ada = SubmitAndRun("ada", Kernel(0.5));
  const std::string bob = SubmitAndRun("bob", Kernel(0.8));
  const std::string bob_wrong = SubmitAndRun("bob", Kernel(0.1, /*wrong=*/true));

  v1::SubmissionReport report;
  ASSERT_TRUE(Report("ada", ada, &report).ok());
  EXPECT_TRUE(report.counts()) << report.why_not();
  EXPECT_NEAR(report.score_ms(), 0.5, 1e-9);
  EXPECT_NEAR(report.score_ci_low_ms(), 0.49, 1e-9);
  ASSERT_EQ(report.speedups_size(), 2);
  EXPECT_EQ(report.speedups(0).baseline(), "naive");
  EXPECT_NEAR(report.speedups(0).speedup(), 4.0, 1e-9);
  EXPECT_NEAR(report.speedups(1).speedup(), 2.0, 1e-9);
  ASSERT_EQ(report.problems_size(), 2);
  EXPECT_EQ(report.problems(0).device(), "Fake GPU");
  EXPECT_EQ(report.submission().kernel().source(), Kernel(0.5).source());

  ASSERT_TRUE(Report("bob", bob_wrong, &report).ok());
  EXPECT_FALSE(report.counts());
  EXPECT_NE(report.why_not().find("problem 1"), std::string::npos) << report.why_not();
  EXPECT_NE(report.why_not().find("failed verification"), std::string::npos) << report.why_not();

  // Another learner's submission is not found; their instructor's is.
  EXPECT_EQ(Report("bob", ada, &report).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(Report("grace", ada, &report).ok());

  v1::Leaderboard board = Board("ada");
  ASSERT_EQ(board.entries_size(), 2);
  EXPECT_EQ(board.entries(0).rank(), 1u);
  EXPECT_EQ(board.entries(0).user(), "ada");
  EXPECT_TRUE(board.entries(0).you());
  EXPECT_EQ(board.entries(1).rank(), 2u);
  EXPECT_EQ(board.entries(1).user(), "") << "names are hidden from learners";
  EXPECT_FALSE(board.entries(1).best().submission().has_kernel());
  EXPECT_NEAR(board.entries(1).best().score_ms(), 0.8, 1e-9);
  EXPECT_EQ(board.entries(1).attempts(), 2u);

  board = Board("grace");
  ASSERT_EQ(board.entries_size(), 2);
  EXPECT_EQ(board.entries(1).user(), "bob");

  // Within the noise of the leader: a tie, one rank.
  SubmitAndRun("bob", Kernel(0.505));
  board = Board("grace");
  ASSERT_EQ(board.entries_size(), 2);
  EXPECT_EQ(board.entries(0).rank(), 1u);
  EXPECT_EQ(board.entries(1).rank(), 1u);
  EXPECT_TRUE(board.entries(0).tied());
  EXPECT_TRUE(board.entries(1).tied());
}

TEST_F(AssignmentServiceTest, ARunOfAnotherProblemOrKernelCountsForNothing) {
  ASSERT_TRUE(Save("grace", Lab1()).ok());
  v1::Submission submission;
  ASSERT_TRUE(Submit("ada", Kernel(0.5), &submission).ok());
  ASSERT_EQ(submission.runs_size(), 2);
  ASSERT_TRUE(Run("ada", submission.runs(0)).ok());
  // Problem 2 on a smaller problem, and with a faster kernel of the same name.
  v1::RunRequest smaller = submission.runs(1);
  smaller.mutable_vector_add()->set_n(1024);
  ASSERT_TRUE(Run("ada", smaller).ok());
  v1::RunRequest faster = submission.runs(1);
  *faster.mutable_kernels(0) = Kernel(0.01);
  ASSERT_TRUE(Run("ada", faster).ok());
  // Bob runs ada's submission's problem with his own token.
  ASSERT_TRUE(Run("bob", submission.runs(1)).ok());

  v1::SubmissionReport report;
  ASSERT_TRUE(Report("ada", submission.submission_id(), &report).ok());
  EXPECT_FALSE(report.counts());
  EXPECT_NE(report.why_not().find("problem 2"), std::string::npos) << report.why_not();
  EXPECT_NE(report.why_not().find("not run"), std::string::npos) << report.why_not();

  // The real run counts, and only it: a later, faster one does not replace it.
  ASSERT_TRUE(Run("ada", submission.runs(1)).ok());
  ASSERT_TRUE(Run("ada", submission.runs(1)).ok());
  ASSERT_TRUE(Report("ada", submission.submission_id(), &report).ok());
  EXPECT_TRUE(report.counts()) << report.why_not();
  EXPECT_NEAR(report.score_ms(), 0.5, 1e-9);
}

TEST_F(AssignmentServiceTest, SubmissionsAreLimitedPerHourAndEndWhenClosed) {
  ASSERT_TRUE(Save("grace", Lab1()).ok());
  v1::Submission submission;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Submit("ada", Kernel(0.5), &submission).ok());
  grpc::Status status = Submit("ada", Kernel(0.5), &submission);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(status.error_message().find("3 per hour"), std::string::npos) << status.error_message();
  EXPECT_FALSE(status.error_details().empty()) << "a Refusal says when to retry";
  // Another learner's count is their own.
  EXPECT_TRUE(Submit("bob", Kernel(0.5), &submission).ok());
  // A learner of another cohort cannot submit to it.
  EXPECT_EQ(Submit("cy", Kernel(0.5), &submission).error_code(), grpc::StatusCode::NOT_FOUND);

  v1::AssignmentName name;
  name.set_name("lab1");
  v1::Assignment closed;
  EXPECT_EQ(Call("ada", &v1::Assignments::Stub::CloseAssignment, name, &closed).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(Call("grace", &v1::Assignments::Stub::CloseAssignment, name, &closed).ok());
  EXPECT_TRUE(closed.closed());
  status = Submit("bob", Kernel(0.5), &submission);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(status.error_message().find("closed"), std::string::npos);
}

TEST_F(AssignmentServiceTest, ABadKernelIsRefusedAtSubmissionAndNothingIsRecorded) {
  ASSERT_TRUE(Save("grace", Lab1()).ok());
  v1::KernelSource kernel = Kernel(0.5);
  kernel.mutable_launch()->set_block("2048");
  v1::Submission submission;
  const grpc::Status status = Submit("ada", kernel, &submission);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("block"), std::string::npos) << status.error_message();
  v1::ListSubmissionsRequest request;
  request.set_assignment("lab1");
  v1::ListSubmissionsResponse listed;
  ASSERT_TRUE(Call("ada", &v1::Assignments::Stub::ListSubmissions, request, &listed).ok());
  EXPECT_EQ(listed.submissions_size(), 0);
}

TEST_F(AssignmentServiceTest, TheRosterShowsEveryLearnersStandingToTheInstructorOnly) {
  ASSERT_TRUE(Save("grace", Lab1()).ok());
  v1::Assignment lab2 = Lab1();
  lab2.set_name("lab2");
  ASSERT_TRUE(Save("grace", lab2).ok());
  SubmitAndRun("ada", Kernel(0.5));
  const std::string wrong = SubmitAndRun("bob", Kernel(0.5, /*wrong=*/true));
  v1::SubmissionReport report;
  ASSERT_TRUE(Report("bob", wrong, &report).ok());

  v1::GetRosterRequest request;
  v1::Roster roster;
  EXPECT_EQ(Call("ada", &v1::Assignments::Stub::GetRoster, request, &roster).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(Call("grace", &v1::Assignments::Stub::GetRoster, request, &roster).ok());
  EXPECT_EQ(roster.cohort(), "fall24");
  ASSERT_EQ(roster.assignments_size(), 2);
  ASSERT_EQ(roster.rows_size(), 3) << "ada, bob and dan; not cy (another cohort)";
  EXPECT_EQ(roster.rows(0).user(), "ada");
  EXPECT_EQ(roster.rows(0).cells(0).standing(), v1::STANDING_COUNTING);
  EXPECT_EQ(roster.rows(0).cells(0).rank(), 1u);
  EXPECT_EQ(roster.rows(0).cells(1).standing(), v1::STANDING_NOT_STARTED);
  EXPECT_EQ(roster.rows(1).user(), "bob");
  EXPECT_EQ(roster.rows(1).cells(0).standing(), v1::STANDING_ONLY_FAILING);
  EXPECT_NE(roster.rows(1).cells(0).why_not().find("failed verification"), std::string::npos);
  EXPECT_EQ(roster.rows(2).user(), "dan");
  EXPECT_EQ(roster.rows(2).cells(0).standing(), v1::STANDING_NOT_STARTED);

  request.set_cohort("spring25");
  EXPECT_EQ(Call("grace", &v1::Assignments::Stub::GetRoster, request, &roster).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(Call("root", &v1::Assignments::Stub::GetRoster, request, &roster).ok());
}

TEST_F(AssignmentServiceTest, AnInstructorReRunsTheTopWithoutTouchingTheBoardOrTheLimits) {
  ASSERT_TRUE(Save("grace", Lab1()).ok());
  const std::string ada = SubmitAndRun("ada", Kernel(0.5));
  SubmitAndRun("bob", Kernel(0.8));
  v1::RerunRequest request;
  request.set_assignment("lab1");
  request.set_top(1);
  v1::RerunPlan plan;
  EXPECT_EQ(Call("ada", &v1::Assignments::Stub::Rerun, request, &plan).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(Call("grace", &v1::Assignments::Stub::Rerun, request, &plan).ok());
  ASSERT_EQ(plan.before().entries_size(), 2);
  ASSERT_EQ(plan.reruns_size(), 1) << "the top one only";
  const v1::Submission& rerun = plan.reruns(0);
  EXPECT_EQ(rerun.user(), "ada");
  EXPECT_EQ(rerun.runner(), "grace");
  EXPECT_EQ(rerun.rerun_of(), ada);
  ASSERT_EQ(rerun.runs_size(), 2);

  // The learner's own run of it counts for nothing: the instructor makes it.
  ASSERT_TRUE(Run("ada", rerun.runs(0)).ok());
  v1::SubmissionReport report;
  ASSERT_TRUE(Report("grace", rerun.submission_id(), &report).ok());
  EXPECT_FALSE(report.counts());
  for (const v1::RunRequest& run : rerun.runs()) ASSERT_TRUE(Run("grace", run).ok());
  ASSERT_TRUE(Report("grace", rerun.submission_id(), &report).ok());
  EXPECT_TRUE(report.counts()) << report.why_not();
  EXPECT_NEAR(report.score_ms(), 0.5, 1e-9);
  EXPECT_EQ(report.submission().rerun_of(), ada);
  ASSERT_EQ(report.devices_size(), 1);
  EXPECT_EQ(report.devices(0), "Fake GPU");

  // Neither an attempt nor a place on the board, nor an hourly submission.
  const v1::Leaderboard board = Board("grace");
  ASSERT_EQ(board.entries_size(), 2);
  EXPECT_EQ(board.entries(0).user(), "ada");
  EXPECT_EQ(board.entries(0).attempts(), 1u);
  EXPECT_EQ(board.entries(0).best().submission().submission_id(), ada);
  v1::Submission more;
  for (int i = 0; i < 2; ++i) EXPECT_TRUE(Submit("ada", Kernel(0.5), &more).ok());

  request.set_top(kMaxRerunTop + 1);
  EXPECT_EQ(Call("grace", &v1::Assignments::Stub::Rerun, request, &plan).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace kbench::server
