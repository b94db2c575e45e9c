// Unit tests of the kbench CLI library: flag values, the command line, exit
// codes, and the table, CSV, JSON and progress output of hand-built events.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "client/command_line.h"
#include "client/csv_format.h"
#include "client/exit_codes.h"
#include "client/flag_values.h"
#include "client/json_format.h"
#include "client/progress_reporter.h"
#include "client/quota_command.h"
#include "client/refusal.h"
#include "client/result_text.h"
#include "client/run_report.h"
#include "client/server_info_format.h"
#include "client/table_format.h"
#include "kernels/dtype.h"
#include "proto/ops/registry.h"

namespace kbench::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// ---- Flag values -----------------------------------------------------------

TEST(ParseCount, AcceptsPlainIntegers) {
  EXPECT_EQ(ParseCount("1000").value(), 1000u);
  EXPECT_EQ(ParseCount("1").value(), 1u);
}

TEST(ParseCount, AcceptsPowers) {
  EXPECT_EQ(ParseCount("2^28").value(), uint64_t{1} << 28);
  EXPECT_EQ(ParseCount("10^6").value(), 1000000u);
  EXPECT_EQ(ParseCount("2^0").value(), 1u);
}

TEST(ParseCount, ReadsKMAndGSuffixesAsPowersOfTwo) {
  EXPECT_EQ(ParseCount("1Mi").value(), uint64_t{1} << 20);
  EXPECT_EQ(ParseCount("1M").value(), uint64_t{1} << 20);
  EXPECT_EQ(ParseCount("16Mi").value(), uint64_t{16} << 20);
  EXPECT_EQ(ParseCount("4K").value(), 4096u);
  EXPECT_EQ(ParseCount("4k").value(), 4096u);
  EXPECT_EQ(ParseCount("2Gi").value(), uint64_t{2} << 30);
}

TEST(ParseCount, RefusesZeroNegativesAndGarbageQuotingTheText) {
  for (const char* bad :
       {"0", "-5", "abc", "", "1.5M", "2^", "^3", "1Mx", " 5", "5 ", "1Ti", "0Mi", "0^3", "1e6"}) {
    absl::StatusOr<uint64_t> count = ParseCount(bad);
    ASSERT_FALSE(count.ok()) << bad;
    EXPECT_EQ(count.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string quoted = std::string("'").append(bad).append("'");
    EXPECT_THAT(std::string(count.status().message()), HasSubstr(quoted));
  }
}

TEST(ParseCount, RefusesExponentNotationWritingTheCountOut) {
  EXPECT_THAT(
      std::string(ParseCount("1e9").status().message()),
      HasSubstr("exponent notation, which a count does not take; write 1000000000 or 10^9"));
  EXPECT_THAT(std::string(ParseCount("5E6").status().message()), HasSubstr("write 5000000"));
  EXPECT_THAT(std::string(ParseCount("5E6").status().message()), Not(HasSubstr("10^")));
  // Past 64 bits, or not digits either side: the general advice.
  for (const char* bad : {"1e20", "2e19", "1.5e6", "e6", "1e", "0e3"}) {
    absl::StatusOr<uint64_t> count = ParseCount(bad);
    ASSERT_FALSE(count.ok()) << bad;
    EXPECT_THAT(std::string(count.status().message()), HasSubstr("use e.g. 1000")) << bad;
  }
}

TEST(ParseCount, RefusesCountsThatOverflow64Bits) {
  EXPECT_FALSE(ParseCount("2^64").ok());
  EXPECT_FALSE(ParseCount("18446744073709551616").ok());
  EXPECT_FALSE(ParseCount("17179869184Gi").ok());
  EXPECT_EQ(ParseCount("2^63").value(), uint64_t{1} << 63);
}

TEST(SplitVariantList, SplitsOnCommasAndTrimsSpaces) {
  EXPECT_EQ(SplitVariantList("naive,vectorized").value(),
            (std::vector<std::string>{"naive", "vectorized"}));
  EXPECT_EQ(SplitVariantList(" naive , fused ").value(),
            (std::vector<std::string>{"naive", "fused"}));
  EXPECT_EQ(SplitVariantList("fused").value(), (std::vector<std::string>{"fused"}));
}

TEST(SplitVariantList, RefusesEmptyNames) {
  for (const char* bad : {"", "naive,,fused", "naive,", ",naive", " , "}) {
    EXPECT_FALSE(SplitVariantList(bad).ok()) << "'" << bad << "'";
  }
}

TEST(ParseDType, KnowsTheThreeDTypesAndNamesThemBack) {
  EXPECT_EQ(ParseDType("bf16").value(), v1::DTYPE_BF16);
  EXPECT_EQ(DTypeName(ParseDType("fp16").value()), "fp16");
  EXPECT_EQ(DTypeName(v1::DTYPE_UNSPECIFIED), "fp32");
  EXPECT_FALSE(ParseDType("fp64").ok());
}

TEST(ParseDType, ReadsEveryNameOfTheKernelsDTypeTable) {
  for (const kernels::DTypeInfo& info : kernels::AllDTypes()) {
    const absl::StatusOr<v1::DType> dtype = ParseDType(info.name);
    ASSERT_TRUE(dtype.ok()) << info.name;
    EXPECT_EQ(static_cast<int>(*dtype), static_cast<int>(info.dtype));
    EXPECT_EQ(DTypeName(*dtype), info.name);
    EXPECT_THAT(DTypeChoices(), HasSubstr(info.name));
  }
  EXPECT_THAT(std::string(ParseDType("fp64").status().message()), HasSubstr(DTypeChoices()));
}

TEST(CheckServerAddress, AcceptsHostPortAndGrpcTargets) {
  for (const char* good :
       {"localhost:50051", "127.0.0.1:1", "gpu-1.lab_x.example:65535", "[::1]:50051",
        "unix:/tmp/kbench.sock", "dns:///gpu1:50051", "ipv4:10.0.0.1:7000"}) {
    EXPECT_TRUE(CheckServerAddress(good).ok()) << good;
  }
}

TEST(CheckServerAddress, SaysWhatIsWrongWithABadAddress) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "is empty"},
      {"localhost", "has no port"},
      {"[::1]", "has no port"},
      {"localhost:", "has port ''"},
      {"localhost:abc", "has port 'abc'"},
      {"localhost:0", "from 1 to 65535"},
      {"localhost:70000", "from 1 to 65535"},
      {":50051", "has no host"},
      {"http://localhost:50051", "is a URL"},
      {"::1:50051", "IPv6 address in brackets"},
      {"local host:50051", "character no host name has"},
  };
  for (const auto& [address, reason] : cases) {
    const absl::Status status = CheckServerAddress(address);
    ASSERT_FALSE(status.ok()) << address;
    EXPECT_THAT(std::string(status.message()), HasSubstr(reason)) << address;
    EXPECT_THAT(std::string(status.message()), HasSubstr("'" + address + "'"));
  }
}

// ---- Command line ----------------------------------------------------------

struct Parsed {
  std::variant<CommandLine, ExitCode> result;
  std::string out;
  std::string err;
};

Parsed Parse(std::vector<const char*> args) {
  args.insert(args.begin(), "kbench");
  std::ostringstream out, err;
  auto result = ParseCommandLine(static_cast<int>(args.size()), args.data(), out, err);
  return {std::move(result), out.str(), err.str()};
}

TEST(ParseCommandLine, TakesGlobalOptionsAfterTheSubcommand) {
  Parsed parsed = Parse({"vector-add", "--n", "1Mi", "--json", "--server", "gpu1:7000", "--timeout",
                         "30", "--quiet"});
  const auto& line = std::get<CommandLine>(parsed.result);
  EXPECT_EQ(line.options.format, OutputFormat::kJson);
  EXPECT_EQ(line.options.server, "gpu1:7000");
  EXPECT_EQ(line.options.timeout_s, 30);
  EXPECT_TRUE(line.options.quiet);
  const auto& request = std::get<v1::RunRequest>(line.command);
  EXPECT_EQ(request.problem_case(), v1::RunRequest::kVectorAdd);
  EXPECT_EQ(request.vector_add().n(), 1u << 20);
}

TEST(ParseCommandLine, TakesGlobalOptionsBeforeTheSubcommand) {
  Parsed parsed = Parse({"--csv", "attention", "--seq", "128"});
  EXPECT_EQ(std::get<CommandLine>(parsed.result).options.format, OutputFormat::kCsv);
}

TEST(ParseCommandLine, FillsTheAttentionRequestWithDefaultsAndFlags) {
  Parsed parsed = Parse({"attention",    "--seq",        "4096",   "--causal",      "--variant",
                         "naive,fused",  "--dtype",      "bf16",   "--min-samples", "7",
                         "--target-rse", "0.005",        "--mode", "hot",           "--seed",
                         "42",           "--min-effect", "0.02",   "--label",       "hw3"});
  const auto& request = std::get<v1::RunRequest>(std::get<CommandLine>(parsed.result).command);
  ASSERT_EQ(request.problem_case(), v1::RunRequest::kAttention);
  EXPECT_EQ(request.attention().batch(), 1u);
  EXPECT_EQ(request.attention().heads(), 8u);
  EXPECT_EQ(request.attention().head_dim(), 64u);
  EXPECT_EQ(request.attention().seq_len(), 4096u);
  EXPECT_TRUE(request.attention().causal());
  EXPECT_EQ(request.dtype(), v1::DTYPE_BF16);
  EXPECT_DOUBLE_EQ(request.timing().min_effect(), 0.02);
  EXPECT_EQ(request.label(), "hw3");
  ASSERT_EQ(request.variants_size(), 2);
  EXPECT_EQ(request.variants(1), "fused");
  EXPECT_EQ(request.timing().min_samples(), 7u);
  EXPECT_DOUBLE_EQ(request.timing().target_rse(), 0.005);
  EXPECT_EQ(request.timing().mode(), v1::TIMING_MODE_HOT);
  EXPECT_EQ(request.timing().time_budget_ms(), 0);  // unset: server default
  EXPECT_EQ(request.seed(), 42u);
}

TEST(ParseCommandLine, LeavesCausalOffAndTheMinEffectToTheServerUnlessGiven) {
  Parsed parsed = Parse({"attention", "--seq", "128"});
  const auto& request = std::get<v1::RunRequest>(std::get<CommandLine>(parsed.result).command);
  EXPECT_FALSE(request.attention().causal());
  EXPECT_EQ(request.timing().min_effect(), 0);
}

TEST(ParseCommandLine, ReadsEveryUnsignedProblemFieldAsACount) {
  Parsed parsed =
      Parse({"attention", "--seq", "2^12", "--heads", "16", "--batch", "2^2", "--head-dim", "2^7"});
  const auto& attention =
      std::get<v1::RunRequest>(std::get<CommandLine>(parsed.result).command).attention();
  EXPECT_EQ(attention.seq_len(), 4096u);
  EXPECT_EQ(attention.heads(), 16u);
  EXPECT_EQ(attention.batch(), 4u);
  EXPECT_EQ(attention.head_dim(), 128u);
}

TEST(ParseCommandLine, RefusesAZeroOrTooLargeProblemFieldNamingTheFlag) {
  Parsed zero = Parse({"attention", "--seq", "0"});
  EXPECT_EQ(std::get<ExitCode>(zero.result), ExitCode::kBadArguments);
  EXPECT_THAT(zero.err, HasSubstr("--seq"));
  EXPECT_THAT(zero.err, HasSubstr("'0'"));
  // seq_len is a uint32 field of the proto.
  Parsed large = Parse({"attention", "--seq", "2^32"});
  EXPECT_EQ(std::get<ExitCode>(large.result), ExitCode::kBadArguments);
  EXPECT_THAT(large.err, HasSubstr("--seq"));
  EXPECT_THAT(large.err, HasSubstr("too large"));
}

// The subcommand the CLI offers for `op`.
std::string SubcommandOf(const proto::ops::Op& op) {
  std::string name(op.name());
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

TEST(ParseCommandLine, OffersOneRunSubcommandPerOpWithItsFieldsAndExamples) {
  ASSERT_FALSE(proto::ops::AllOps().empty());
  for (const proto::ops::Op* op : proto::ops::AllOps()) {
    const std::string name = SubcommandOf(*op);
    Parsed help = Parse({name.c_str(), "--help"});
    EXPECT_EQ(std::get<ExitCode>(help.result), ExitCode::kOk) << name;
    EXPECT_THAT(help.out, HasSubstr(std::string(op->description()))) << name;
    for (const std::string& example : op->examples()) {
      EXPECT_THAT(help.out, HasSubstr(example)) << name;
    }
    for (const proto::ops::ProblemField& field : op->fields()) {
      EXPECT_THAT(help.out, HasSubstr(field.flag)) << name;
      EXPECT_THAT(help.out, HasSubstr(field.help)) << name;
      if (!field.default_value.empty() && !field.type_name.empty()) {
        EXPECT_THAT(help.out, HasSubstr("(default: " + field.default_value + ")"))
            << name << " " << field.flag;
      }
    }
    EXPECT_THAT(help.out, HasSubstr("--min-effect")) << name;
  }
}

TEST(ParseCommandLine, RequiresTheFieldsWithoutADefaultAndSetsTheOthers) {
  for (const proto::ops::Op* op : proto::ops::AllOps()) {
    const std::string name = SubcommandOf(*op);
    // Every field given: 3 for a count, nothing for a bool.
    std::vector<std::string> words = {name};
    for (const proto::ops::ProblemField& field : op->fields()) {
      words.push_back(field.flag);
      if (!field.type_name.empty()) words.push_back("3");
    }
    std::vector<const char*> args;
    for (const std::string& word : words) args.push_back(word.c_str());
    Parsed all = Parse(args);
    const auto& request = std::get<v1::RunRequest>(std::get<CommandLine>(all.result).command);
    EXPECT_EQ(request.problem_case(), op->problem_case()) << name;
    for (const proto::ops::ProblemField& field : op->fields()) {
      EXPECT_EQ(op->FieldText(request, field), field.type_name.empty() ? "true" : "3")
          << name << " " << field.flag;
    }
    // Only the subcommand: each field without a default is named as missing,
    // or the request holds every default.
    Parsed bare = Parse({name.c_str()});
    bool any_required = false;
    for (const proto::ops::ProblemField& field : op->fields()) {
      if (field.default_value.empty() && !field.type_name.empty()) {
        any_required = true;
        EXPECT_THAT(bare.err, HasSubstr(field.flag)) << name;
      }
    }
    if (any_required) {
      EXPECT_EQ(std::get<ExitCode>(bare.result), ExitCode::kBadArguments);
      continue;
    }
    const auto& defaults = std::get<v1::RunRequest>(std::get<CommandLine>(bare.result).command);
    for (const proto::ops::ProblemField& field : op->fields()) {
      EXPECT_EQ(op->FieldText(defaults, field),
                field.type_name.empty() ? "false" : field.default_value);
    }
  }
}

TEST(ParseCommandLine, RefusesNonFiniteTimingValuesAsNotAFiniteNumber) {
  for (const char* flag : {"--budget-ms", "--min-time-ms", "--target-rse", "--min-effect"}) {
    for (const char* value : {"nan", "inf", "-inf", "NaN"}) {
      Parsed parsed = Parse({"vector-add", "--n", "8", flag, value});
      ASSERT_EQ(std::get<ExitCode>(parsed.result), ExitCode::kBadArguments) << flag << " " << value;
      EXPECT_THAT(parsed.err, HasSubstr(flag));
      EXPECT_THAT(parsed.err, HasSubstr("must be a finite number")) << parsed.err;
      EXPECT_THAT(parsed.err, Not(HasSubstr("0 or more")));
    }
  }
  Parsed timeout = Parse({"--timeout", "nan", "info"});
  EXPECT_EQ(std::get<ExitCode>(timeout.result), ExitCode::kBadArguments);
  EXPECT_THAT(timeout.err, HasSubstr("--timeout"));
  EXPECT_THAT(timeout.err, HasSubstr("must be a finite number"));
}

TEST(ParseCommandLine, StillRefusesNegativeTimingValues) {
  Parsed parsed = Parse({"vector-add", "--n", "8", "--min-effect", "-0.1"});
  EXPECT_EQ(std::get<ExitCode>(parsed.result), ExitCode::kBadArguments);
  EXPECT_THAT(parsed.err, HasSubstr("--min-effect"));
  EXPECT_THAT(parsed.err, HasSubstr("must be 0 or more"));
}

TEST(ParseCommandLine, NamesAnUnknownSubcommandAndListsTheSubcommands) {
  for (const std::vector<const char*>& args :
       {std::vector<const char*>{"bogus"},
        std::vector<const char*>{"--server", "gpu1:7000", "bogus", "--n", "8"},
        std::vector<const char*>{"vector_add", "--n", "8"}}) {
    Parsed parsed = Parse(args);
    EXPECT_EQ(std::get<ExitCode>(parsed.result), ExitCode::kBadArguments);
    EXPECT_THAT(parsed.err, HasSubstr("unknown subcommand '"));
    EXPECT_THAT(parsed.err, Not(HasSubstr("A subcommand is required")));
    for (const proto::ops::Op* op : proto::ops::AllOps()) {
      EXPECT_THAT(parsed.err, HasSubstr(SubcommandOf(*op)));
    }
    EXPECT_THAT(parsed.err, HasSubstr("info"));
  }
  EXPECT_THAT(Parse({"bogus"}).err, HasSubstr("unknown subcommand 'bogus'"));
}

TEST(ParseCommandLine, RefusesAnEmptyServerNamingTheFlag) {
  Parsed parsed = Parse({"--server", "", "info"});
  EXPECT_EQ(std::get<ExitCode>(parsed.result), ExitCode::kBadArguments);
  EXPECT_THAT(parsed.err, HasSubstr("--server"));
  EXPECT_THAT(parsed.err, HasSubstr("is empty"));
}

TEST(ParseCommandLine, SaysWhatIsWrongWithAnInvalidServerAddress) {
  Parsed parsed = Parse({"info", "--server", "localhost:notaport"});
  EXPECT_EQ(std::get<ExitCode>(parsed.result), ExitCode::kBadArguments);
  EXPECT_THAT(parsed.err, HasSubstr("--server"));
  EXPECT_THAT(parsed.err, HasSubstr("has port 'notaport'"));
  setenv("KBENCH_SERVER", "gpu1", 1);
  Parsed from_env = Parse({"info"});
  unsetenv("KBENCH_SERVER");
  EXPECT_EQ(std::get<ExitCode>(from_env.result), ExitCode::kBadArguments);
  EXPECT_THAT(from_env.err, HasSubstr("has no port"));
}

TEST(ParseCommandLine, DefaultsToLocalhostWithoutFlagOrEnvironment) {
  unsetenv("KBENCH_SERVER");
  Parsed parsed = Parse({"info"});
  EXPECT_EQ(std::get<CommandLine>(parsed.result).options.server, "localhost:50051");
  setenv("KBENCH_SERVER", "envhost:1234", 1);
  Parsed from_env = Parse({"info"});
  unsetenv("KBENCH_SERVER");
  EXPECT_EQ(std::get<CommandLine>(from_env.result).options.server, "envhost:1234");
}

TEST(ParseCommandLine, RefusesABadCountNamingTheFlag) {
  Parsed parsed = Parse({"vector-add", "--n", "-5"});
  EXPECT_EQ(std::get<ExitCode>(parsed.result), ExitCode::kBadArguments);
  EXPECT_THAT(parsed.err, HasSubstr("--n"));
  EXPECT_THAT(parsed.err, HasSubstr("'-5'"));
}

TEST(ParseCommandLine, RefusesJsonWithCsv) {
  Parsed parsed = Parse({"vector-add", "--n", "8", "--json", "--csv"});
  EXPECT_EQ(std::get<ExitCode>(parsed.result), ExitCode::kBadArguments);
}

TEST(ParseCommandLine, RefusesAMissingSubcommandOrRequiredFlag) {
  Parsed none = Parse({});
  EXPECT_EQ(std::get<ExitCode>(none.result), ExitCode::kBadArguments);
  EXPECT_THAT(none.err, HasSubstr("a subcommand is required"));
  EXPECT_THAT(none.err, HasSubstr("info"));
  Parsed parsed = Parse({"attention"});
  EXPECT_EQ(std::get<ExitCode>(parsed.result), ExitCode::kBadArguments);
  EXPECT_THAT(parsed.err, HasSubstr("--seq"));
}

TEST(ParseCommandLine, HelpTeachesExitCodesEnvironmentAndExamples) {
  Parsed parsed = Parse({"--help"});
  EXPECT_EQ(std::get<ExitCode>(parsed.result), ExitCode::kOk);
  EXPECT_THAT(parsed.out, HasSubstr("KBENCH_SERVER"));
  EXPECT_THAT(parsed.out, HasSubstr("130"));
  EXPECT_THAT(parsed.out, HasSubstr("  4    not signed in"));
  EXPECT_THAT(parsed.out, HasSubstr("kbench attention --seq 4096"));
  Parsed sub = Parse({"vector-add", "--help"});
  EXPECT_THAT(sub.out, HasSubstr("--budget-ms"));
  EXPECT_THAT(sub.out, HasSubstr("Exit codes"));
}

// ---- Exit codes ------------------------------------------------------------

TEST(ExitCodeForStatus, MapsInvalidArgumentTo2AuthTo4AndOtherFailuresTo3) {
  EXPECT_EQ(ExitCodeForStatus(grpc::StatusCode::OK), ExitCode::kOk);
  EXPECT_EQ(ExitCodeForStatus(grpc::StatusCode::INVALID_ARGUMENT), ExitCode::kBadArguments);
  EXPECT_EQ(int(ExitCodeForStatus(grpc::StatusCode::UNAUTHENTICATED)), 4);
  EXPECT_EQ(int(ExitCodeForStatus(grpc::StatusCode::PERMISSION_DENIED)), 4);
  for (grpc::StatusCode code :
       {grpc::StatusCode::UNAVAILABLE, grpc::StatusCode::INTERNAL,
        grpc::StatusCode::DEADLINE_EXCEEDED, grpc::StatusCode::RESOURCE_EXHAUSTED,
        grpc::StatusCode::CANCELLED, grpc::StatusCode::UNKNOWN}) {
    EXPECT_EQ(ExitCodeForStatus(code), ExitCode::kServerError) << static_cast<int>(code);
  }
}

TEST(DescribeRpcFailure, PassesOnTheServersMessageForInvalidRequests) {
  grpc::Status status(grpc::StatusCode::INVALID_ARGUMENT, "seq_len must be 1 to 65536");
  EXPECT_EQ(DescribeRpcFailure(status, "localhost:50051", 600),
            "kbench: invalid request: seq_len must be 1 to 65536");
}

TEST(DescribeRpcFailure, TellsHowToReachTheServerWhenUnavailable) {
  std::string message = DescribeRpcFailure(
      grpc::Status(grpc::StatusCode::UNAVAILABLE, "connection refused"), "localhost:50051", 600);
  EXPECT_THAT(message, HasSubstr("cannot reach server at localhost:50051"));
  EXPECT_THAT(message, HasSubstr("KBENCH_SERVER"));
  EXPECT_THAT(message, HasSubstr("is kbench-server running?"));
}

TEST(DescribeRpcFailure, SaysTheConnectionWasLostWhenTheServerDiedMidRun) {
  const std::string message =
      DescribeRpcFailure(grpc::Status(grpc::StatusCode::UNAVAILABLE, "Socket closed"),
                         "localhost:50051", 600, CallStage::kStreaming);
  EXPECT_THAT(message, HasSubstr("connection to the server at localhost:50051 "
                                 "was lost during the run"));
  EXPECT_THAT(message, HasSubstr("Socket closed"));
  EXPECT_THAT(message, Not(HasSubstr("is kbench-server running?")));
  EXPECT_THAT(message, Not(HasSubstr("cannot reach")));
}

TEST(DescribeRpcFailure, DoesNotAskWhetherAServerThatAnsweredIsRunning) {
  const std::string message =
      DescribeRpcFailure(grpc::Status(grpc::StatusCode::UNAVAILABLE, "server is shutting down"),
                         "localhost:50051", 600, CallStage::kCalling);
  EXPECT_THAT(message, HasSubstr("unavailable"));
  EXPECT_THAT(message, HasSubstr("server is shutting down"));
  EXPECT_THAT(message, Not(HasSubstr("is kbench-server running?")));
}

grpc::Status Refusal(v1::Refusal::Reason reason, double retry_after_seconds,
                     const std::string& message) {
  v1::Refusal refusal;
  refusal.set_reason(reason);
  refusal.set_retry_after_seconds(retry_after_seconds);
  return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, message, refusal.SerializeAsString());
}

TEST(DescribeRpcFailure, SaysALearnersOwnQuotaIsNotABusyServer) {
  const std::string message = DescribeRpcFailure(
      Refusal(v1::Refusal::REASON_QUOTA, 59,
              "quota: runs 30 per minute used (refused requests count too); resets in 59 s"),
      "gpu:50051", 600);
  EXPECT_THAT(message, HasSubstr("your own quota on gpu:50051 is used up"));
  EXPECT_THAT(message, HasSubstr("resets in 59 s"));
  EXPECT_THAT(message, Not(HasSubstr("busy (queue full)")));
}

TEST(DescribeRpcFailure, TellsAFullQueueAndTooManyStreamsApart) {
  EXPECT_THAT(DescribeRpcFailure(Refusal(v1::Refusal::REASON_QUEUE_FULL, 0, "the queue is full"),
                                 "gpu:50051", 600),
              HasSubstr("is too busy (queue full)"));
  const std::string streams = DescribeRpcFailure(
      Refusal(v1::Refusal::REASON_STREAMS, 0,
              "streams: ... (Limits.max_streams_per_client = 8); wait for one to end"),
      "gpu:50051", 600);
  EXPECT_THAT(streams, HasSubstr("too many runs open at once from this client"));
  EXPECT_THAT(streams, HasSubstr("max_streams_per_client = 8"));
  EXPECT_THAT(streams, Not(HasSubstr("busy")));
}

TEST(QuotaWaitSeconds, WaitsOnlyForAKnownResetOfTheLearnersOwnQuota) {
  EXPECT_EQ(QuotaWaitSeconds(Refusal(v1::Refusal::REASON_QUOTA, 59, "q")), 59.0);
  // A reset that waits on a run's end, or one too far away, is not waited for.
  EXPECT_EQ(QuotaWaitSeconds(Refusal(v1::Refusal::REASON_QUOTA, 0, "q")), std::nullopt);
  EXPECT_EQ(QuotaWaitSeconds(Refusal(v1::Refusal::REASON_QUOTA, 14 * 60, "q")), std::nullopt);
  EXPECT_EQ(QuotaWaitSeconds(Refusal(v1::Refusal::REASON_QUEUE_FULL, 30, "q")), std::nullopt);
  EXPECT_EQ(QuotaWaitSeconds(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "old server")),
            std::nullopt);
}

// ---- Reports ---------------------------------------------------------------

v1::RunEvent Started() {
  v1::RunEvent event;
  v1::Started* started = event.mutable_started();
  started->set_run_id("run-17");
  started->set_backend("cpu");
  started->set_device("Test CPU");
  started->set_seed(42);
  started->add_variants("naive");
  started->add_variants("vectorized");
  started->set_timing_method("host steady_clock around the kernel call");
  return event;
}

v1::RunEvent Result(const std::string& variant, double median_ms, double gbps, bool passed) {
  v1::RunEvent event;
  v1::VariantResult* result = event.mutable_variant_result();
  result->set_variant(variant);
  v1::Statistics* stats = result->mutable_stats();
  stats->set_samples(50);
  stats->set_median_ms(median_ms);
  stats->set_p10_ms(median_ms * 0.9);
  stats->set_p90_ms(median_ms * 1.1);
  stats->set_stop_reason(v1::STOP_REASON_CONVERGED);
  stats->set_median_ci_confidence(0.95);
  v1::Throughput* throughput = result->mutable_throughput();
  throughput->set_value(gbps);
  throughput->set_unit("GB/s");
  throughput->set_formula("bytes = 3 * n * 4");
  throughput->set_fraction_of_ceiling(gbps / 4237.0);
  v1::Verification* verification = result->mutable_verification();
  verification->set_passed(passed);
  verification->set_rel_l2_error(passed ? 3.1e-8 : 0.42);
  verification->set_tolerance(1e-5);
  return event;
}

v1::RunEvent Summary(bool all_verified) {
  v1::RunEvent event;
  v1::Summary* summary = event.mutable_summary();
  summary->set_run_id("run-17");
  summary->set_all_verified(all_verified);
  v1::Speedup* speedup = summary->add_speedups();
  speedup->set_variant("vectorized");
  speedup->set_baseline("naive");
  speedup->set_speedup(2.31);
  speedup->set_ci_low(2.28);
  speedup->set_ci_high(2.35);
  speedup->set_verdict(v1::VERDICT_FASTER);
  speedup->set_min_effect(0.02);
  speedup->set_ci_confidence(0.95);
  speedup->set_rounds(50);
  speedup->set_verdict_min_rounds(6);
  return event;
}

RunReport VectorAddReport(bool vectorized_passes = true) {
  v1::RunRequest request;
  request.mutable_vector_add()->set_n(1000);
  request.add_variants("naive");
  request.add_variants("vectorized");
  RunReport report;
  report.request = request;
  for (const v1::RunEvent& event :
       {Started(), Result("naive", 1.5, 812.3, true),
        Result("vectorized", 0.65, 1874.0, vectorized_passes), Summary(vectorized_passes)}) {
    RecordEvent(event, report);
  }
  return report;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

size_t FieldCount(const std::string& csv_line) {
  return std::count(csv_line.begin(), csv_line.end(), ',') + 1;
}

TEST(RunReport, IsVerifiedOnlyWhenEveryResultPassed) {
  EXPECT_TRUE(AllVerified(VectorAddReport()));
  EXPECT_FALSE(AllVerified(VectorAddReport(/*vectorized_passes=*/false)));
}

TEST(FormatTable, ShowsHeaderColumnsAndTheSpeedupVerdict) {
  const std::string table = FormatTable(VectorAddReport());
  EXPECT_THAT(table, HasSubstr("vector_add n=1000, fp32, cpu (Test CPU)"));
  EXPECT_THAT(table, HasSubstr("100 samples"));
  EXPECT_THAT(table, HasSubstr("run run-17"));
  EXPECT_THAT(table, HasSubstr("seed 42"));
  EXPECT_THAT(table, HasSubstr("median ms"));
  EXPECT_THAT(table, HasSubstr("812.3 GB/s"));
  EXPECT_THAT(table, HasSubstr("19.2%"));     // 812.3 / 4237
  EXPECT_THAT(table, HasSubstr("3.10e-08"));  // rel err
  EXPECT_THAT(table, HasSubstr("baseline"));
  EXPECT_THAT(table, HasSubstr("2.31x [2.28, 2.35] faster"));
  EXPECT_THAT(table, HasSubstr("throughput: bytes = 3 * n * 4"));
  // Both variants share the formula: it is stated once.
  size_t footnotes = 0;
  for (size_t at = table.find("throughput: "); at != std::string::npos;
       at = table.find("throughput: ", at + 1)) {
    ++footnotes;
  }
  EXPECT_EQ(footnotes, 1u) << table;
  EXPECT_THAT(table, HasSubstr("naive converged, vectorized converged"));
  EXPECT_THAT(table, Not(HasSubstr("clocks:")));  // the CPU has none
  EXPECT_THAT(table, HasSubstr("they say nothing about a GPU"));
}

TEST(FormatTable, ShowsTheRseOfEachVariantAndADashWhereAbsent) {
  RunReport report = VectorAddReport();
  report.results[0].mutable_stats()->set_rse(0.003125);
  // results[1] has no rse: a single sample has none.
  EXPECT_THAT(FormatTable(report), HasSubstr("rse of the mean: naive 0.312%, vectorized -\n"));
}

TEST(FormatTable, SaysWhatWasCheckedAndWhyAVariantFailed) {
  RunReport report = VectorAddReport(/*vectorized_passes=*/false);
  for (v1::VariantResult& result : report.results) {
    result.mutable_verification()->set_method("all 1,000 elements against the device reference");
    if (!result.verification().passed())
      result.mutable_verification()->set_failure("3 elements over the per-element tolerance");
  }
  const std::string table = FormatTable(report);
  EXPECT_THAT(table, HasSubstr("checked: all 1,000 elements against the device reference\n"));
  EXPECT_THAT(table, HasSubstr("FAILED: 3 elements over the per-element tolerance"));
}

TEST(FormatTable, DescribesTheShapeFromTheOpsFields) {
  RunReport report = VectorAddReport();
  v1::AttentionProblem* attention = report.request.mutable_attention();
  attention->set_batch(2);
  attention->set_heads(8);
  attention->set_seq_len(256);
  attention->set_head_dim(64);
  attention->set_causal(true);
  report.request.set_dtype(v1::DTYPE_BF16);
  EXPECT_THAT(FormatTable(report), HasSubstr("attention batch=2 heads=8 seq_len=256 head_dim=64 "
                                             "causal, bf16, cpu"));
  EXPECT_EQ(DescribeShape(report.request),
            proto::ops::OpOf(report.request)->Describe(report.request));
}

// The cells of `variant`'s row of a table: columns are separated by two or
// more spaces, and no cell holds two spaces in a row.
std::vector<std::string> TableRow(const std::string& table, const std::string& variant) {
  for (const std::string& line : Lines(table)) {
    if (line.rfind(variant + " ", 0) != 0) continue;
    std::vector<std::string> cells;
    size_t begin = 0;
    while (begin < line.size()) {
      size_t end = line.find("  ", begin);
      if (end == std::string::npos) end = line.size();
      cells.push_back(line.substr(begin, end - begin));
      begin = line.find_first_not_of(' ', end);
    }
    return cells;
  }
  return {};
}

TEST(FormatTable, PutsEachVariantOnItsOwnRowInColumnOrder) {
  const std::string table = FormatTable(VectorAddReport(/*vectorized_passes=*/false));
  EXPECT_EQ(TableRow(table, "naive"),
            (std::vector<std::string>{"naive", "1.500", "1.350", "1.650", "812.3 GB/s", "19.2%",
                                      "3.10e-08", "yes", "baseline"}));
  EXPECT_EQ(TableRow(table, "vectorized"),
            (std::vector<std::string>{"vectorized", "0.6500", "0.5850", "0.7150", "1874 GB/s",
                                      "44.2%", "4.20e-01", "NO", "2.31x [2.28, 2.35] faster"}));
}

TEST(FormatMeasured, KeepsFourSignificantFiguresWithTheirTrailingZeros) {
  EXPECT_EQ(FormatMeasured(5.93), "5.930");
  EXPECT_EQ(FormatMeasured(5.499), "5.499");
  EXPECT_EQ(FormatMeasured(0.0031), "0.003100");
  EXPECT_EQ(FormatMeasured(0.001902), "0.001902");
  EXPECT_EQ(FormatMeasured(1980), "1980");
  EXPECT_EQ(FormatMeasured(123456.7), "123457");
  EXPECT_EQ(FormatMeasured(0), "0");
}

TEST(FormatTable, StatesHowTheSpeedupWasJudgedUnderTheTable) {
  EXPECT_THAT(FormatTable(VectorAddReport()),
              HasSubstr("speedup: baseline median / variant median; interval: 95% bootstrap "
                        "over 50 rounds; verdict: interval on one side of 1 and at least 2% "
                        "effect\n"));
}

TEST(FormatTable, GivesNoVerdictOrIntervalFromTooFewRounds) {
  RunReport report = VectorAddReport();
  v1::Speedup* speedup = report.summary->mutable_speedups(0);
  speedup->set_verdict(v1::VERDICT_TOO_FEW_SAMPLES);
  speedup->set_rounds(2);
  speedup->set_ci_confidence(0);
  speedup->set_ci_low(2.31);
  speedup->set_ci_high(2.31);
  const std::string table = FormatTable(report);
  EXPECT_EQ(TableRow(table, "vectorized").back(), "2.31x, no verdict (2 rounds; needs 6)");
  EXPECT_THAT(table, Not(HasSubstr("faster")));
  EXPECT_THAT(table, HasSubstr("no verdict from 2 rounds (6 needed): raise --budget-ms or "
                               "--max-samples\n"));
  EXPECT_THAT(table, Not(HasSubstr("interval:")));
}

TEST(FormatTable, ShowsClocksAndThrottlingWhenAvailable) {
  RunReport report = VectorAddReport();
  v1::Clocks* clocks = report.results[1].mutable_clocks();
  clocks->set_available(true);
  clocks->set_sm_clock_mhz_min(1755);
  clocks->set_sm_clock_mhz_max(1980);
  clocks->set_throttled(true);
  EXPECT_THAT(FormatTable(report), HasSubstr("clocks: vectorized 1755-1980 MHz throttled"));
}

TEST(FormatTable, SaysHowAVariantThatChoosesAConfigurationWasLaunched) {
  RunReport report = VectorAddReport();
  EXPECT_THAT(FormatTable(report), Not(HasSubstr("launched:")));
  report.results[1].set_config("split-KV x11: 24 query blocks < 132 SMs");
  EXPECT_THAT(FormatTable(report),
              HasSubstr("launched: vectorized split-KV x11: 24 query blocks < 132 SMs\n"));
}

TEST(FormatTable, SaysHowALearnersKernelCompiledAndHowItFaresAgainstEveryBuiltIn) {
  RunReport report = VectorAddReport();
  EXPECT_THAT(FormatTable(report), Not(HasSubstr("compiled:")));
  EXPECT_THAT(FormatTable(report), Not(HasSubstr("also:")));
  v1::VariantResult& mine = report.results.emplace_back(report.results[1]);
  mine.set_variant("mine.cu");
  mine.mutable_compile()->set_arch("sm_90a");
  mine.mutable_compile()->set_registers_per_thread(32);
  v1::Speedup& baseline = *report.summary->add_speedups();
  baseline = report.summary->speedups(0);
  baseline.set_variant("mine.cu");
  v1::Speedup& against = *report.summary->add_speedups();
  against.set_variant("mine.cu");
  against.set_baseline("vectorized");
  against.set_speedup(1.25);
  against.set_ci_low(1.2);
  against.set_ci_high(1.3);
  against.set_ci_confidence(0.95);
  against.set_min_effect(0.02);
  against.set_verdict(v1::VERDICT_FASTER);
  const std::string table = FormatTable(report);
  EXPECT_THAT(table, HasSubstr("compiled: mine.cu sm_90a, 32 registers, spills 0 B stored"));
  EXPECT_THAT(table, HasSubstr("also: mine.cu vs vectorized 1.25x [1.20, 1.30] faster\n"));
  // The table's speedup column is against the baseline.
  EXPECT_THAT(table, ::testing::ContainsRegex("mine.cu .* 2.31x \\[2.28, 2.35\\] faster"));
}

TEST(FormatTable, ShowsWhatALearnersKernelPrintedAndHowMuchWasCut) {
  RunReport report = VectorAddReport();
  EXPECT_THAT(FormatTable(report), Not(HasSubstr("printed by")));
  v1::VariantResult& mine = report.results.emplace_back(report.results[1]);
  mine.set_variant("mine.cu");
  std::string printed;
  for (int i = 0; i < 25; ++i) printed += "line " + std::to_string(i) + "\n";
  mine.set_kernel_output(printed);
  mine.set_kernel_output_bytes(100000);
  const std::string table = FormatTable(report);
  EXPECT_THAT(table, HasSubstr("printed by mine.cu (100000 bytes, the first " +
                               std::to_string(printed.size()) + " kept):\n  line 0\n  line 1\n"));
  EXPECT_THAT(table, HasSubstr("  line 19\n  ... 40 more bytes kept; --json has them\n"));
  EXPECT_THAT(table, Not(HasSubstr("line 20")));
}

TEST(FormatTable, SaysHowManyRunsOfEachVariantWereChecked) {
  RunReport report = VectorAddReport();
  for (v1::VariantResult& result : report.results)
    result.mutable_verification()->set_checked_runs(5);
  EXPECT_THAT(FormatTable(report), HasSubstr("; 5 runs checked\n"));
}

TEST(FormatTable, ShowsADashWhenNoCeilingWasMeasured) {
  RunReport report = VectorAddReport();
  for (v1::VariantResult& result : report.results) {
    result.mutable_throughput()->set_fraction_of_ceiling(0);
  }
  const std::vector<std::string> row = TableRow(FormatTable(report), "naive");
  ASSERT_EQ(row.size(), 9u);
  EXPECT_EQ(row[5], "-");
}

TEST(FormatCsv, KeepsTheHeaderOfEarlierVersionsAndAddsColumnsAtTheEnd) {
  EXPECT_EQ(CsvHeader(),
            "run_id,op,dtype,n,batch,heads,seq_len,head_dim,causal,variant,"
            "samples,median_ms,p10_ms,p90_ms,mean_ms,std_ms,median_ci_low_ms,"
            "median_ci_high_ms,throughput,throughput_unit,fraction_of_ceiling,"
            "max_abs_error,rel_l2_error,verified,speedup,speedup_ci_low,"
            "speedup_ci_high,verdict,stop_reason,median_ci_confidence,"
            "speedup_min_effect,speedup_ci_confidence,speedup_rounds");
}

TEST(FormatCsv, LeavesTheHeaderOutWhenAsked) {
  const std::vector<std::string> lines =
      Lines(FormatCsv(VectorAddReport(), CsvHeaderLine::kWithout));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("run-17,vector_add,", 0), 0u);
}

TEST(WritesAfterExistingContent, IsTrueOnlyForAFileThatHoldsSomethingAlready) {
  char path[] = "/tmp/kbench-csv-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  const int empty = open(path, O_WRONLY | O_APPEND);
  EXPECT_FALSE(WritesAfterExistingContent(empty));
  ASSERT_EQ(write(empty, "x\n", 2), 2);
  close(empty);
  const int appending = open(path, O_WRONLY | O_APPEND);
  EXPECT_TRUE(WritesAfterExistingContent(appending));  // >> runs.csv, the second time
  close(appending);
  const int truncated = open(path, O_WRONLY | O_TRUNC);
  EXPECT_FALSE(WritesAfterExistingContent(truncated));  // > runs.csv
  close(truncated);
  unlink(path);
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  EXPECT_FALSE(WritesAfterExistingContent(pipe_fds[1]));  // | another program
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

TEST(FormatCsv, HasAProblemColumnForEveryFieldOfEveryOp) {
  const std::string header = CsvHeader();
  for (const proto::ops::Op* op : proto::ops::AllOps()) {
    for (const proto::ops::ProblemField& field : op->fields()) {
      EXPECT_THAT(header, HasSubstr("," + field.field + ","));
    }
  }
}

TEST(FormatCsv, WritesTheHeaderAndOneRowPerVariantOf33Fields) {
  const std::vector<std::string> lines = Lines(FormatCsv(VectorAddReport()));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], CsvHeader());
  for (const std::string& line : lines) EXPECT_EQ(FieldCount(line), 33u);
  EXPECT_EQ(lines[1].rfind("run-17,vector_add,fp32,1000,,,,,,naive,50,1.5,", 0), 0u);
  // The baseline has no speedup; the other row has it, its verdict, the
  // minimum effect the verdict required, the interval's confidence and the
  // rounds it came from.
  EXPECT_THAT(lines[1], ::testing::EndsWith(",true,,,,,converged,0.95,,,"));
  EXPECT_THAT(lines[2],
              ::testing::EndsWith(",true,2.31,2.28,2.35,faster,converged,0.95,0.02,0.95,50"));
}

TEST(FormatCsv, LeavesNEmptyForAttentionAndFillsTheShape) {
  RunReport report = VectorAddReport();
  v1::AttentionProblem* attention = report.request.mutable_attention();
  attention->set_batch(2);
  attention->set_heads(8);
  attention->set_seq_len(256);
  attention->set_head_dim(64);
  attention->set_causal(true);
  const std::vector<std::string> lines = Lines(FormatCsv(report));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1].rfind("run-17,attention,fp32,,2,8,256,64,true,naive,", 0), 0u);
  EXPECT_EQ(FieldCount(lines[1]), 33u);
}

TEST(FormatRunJson, AssemblesRequestStartedResultsAndSummary) {
  const nlohmann::json json = nlohmann::json::parse(FormatRunJson(VectorAddReport()));
  EXPECT_EQ(json["run_id"], "run-17");
  EXPECT_EQ(json["op"], "vector_add");
  // The RunRequest, its integers as numbers (proto JSON writes a uint64 as
  // a string).
  EXPECT_EQ(json["request"]["vector_add"]["n"], 1000);  // a number, not a string
  EXPECT_EQ(json["request"]["dtype"], "DTYPE_FP32");    // the default, not UNSPECIFIED
  EXPECT_EQ(json["request"]["variants"][1], "vectorized");
  EXPECT_EQ(json["started"]["device"], "Test CPU");
  ASSERT_EQ(json["results"].size(), 2u);
  EXPECT_EQ(json["results"][0]["verification"]["passed"], true);
  EXPECT_EQ(json["results"][1]["stats"]["samples"], 50);
  EXPECT_EQ(json["results"][1]["verification"]["passed"], true);
  ASSERT_EQ(json["summary"]["speedups"].size(), 1u);
  EXPECT_EQ(json["summary"]["speedups"][0]["verdict"], "VERDICT_FASTER");
}

TEST(FormatRunJson, SaysTheLabelAsTextAndReadsItBack) {
  // RunRequest.label is bytes on the wire; people read it as text.
  RunReport report = VectorAddReport();
  report.request.set_label("lab 3: caf\xc3\xa9");
  const nlohmann::json json = nlohmann::json::parse(FormatRunJson(report));
  EXPECT_EQ(json["request"]["label"], "lab 3: caf\xc3\xa9");
  v1::RunRequest back;
  ASSERT_TRUE(ParseRunRequestJson(json["request"].dump(), &back));
  EXPECT_EQ(back.label(), "lab 3: caf\xc3\xa9");
  EXPECT_EQ(back.vector_add().n(), 1000u);
}

// ---- Server info -----------------------------------------------------------

// ServerInfo with each op's offers as the registry makes them for `backend`.
v1::ServerInfo InfoOf(const std::string& backend) {
  v1::ServerInfo info;
  info.set_backend(backend);
  for (const v1::OpInfo& op : proto::ops::OffersOf(backend)) *info.add_ops() = op;
  return info;
}

TEST(FormatServerInfo, ShowsEachOpsDescriptionAndEachVariantsSummary) {
  const std::string text = FormatServerInfo(InfoOf("cuda"));
  for (const proto::ops::Op* op : proto::ops::AllOps()) {
    EXPECT_THAT(text, HasSubstr(std::string(op->name()) + ": " + std::string(op->description())));
    for (const proto::ops::VariantSpec& variant : op->variants()) {
      EXPECT_THAT(text, HasSubstr(": " + variant.summary + "\n"));
    }
  }
}

TEST(FormatServerInfo, ShowsEachVariantsDTypesAndHeadDims) {
  v1::ServerInfo info;
  v1::OpInfo* op = info.add_ops();
  op->set_op("attention");
  op->set_description("softmax attention");
  v1::VariantInfo* fused = op->add_variant_details();
  fused->set_name("fused");
  fused->set_summary("tiles on chip");
  fused->add_dtypes(v1::DTYPE_FP32);
  fused->add_dtypes(v1::DTYPE_BF16);
  fused->add_head_dims(64);
  fused->add_head_dims(128);
  v1::VariantInfo* naive = op->add_variant_details();
  naive->set_name("naive");
  naive->set_summary("S to memory");
  naive->add_dtypes(v1::DTYPE_FP16);
  const std::string text = FormatServerInfo(info);
  EXPECT_THAT(text, HasSubstr("  attention: softmax attention\n"));
  EXPECT_THAT(text, HasSubstr("    fused (fp32, bf16; head dims 64, 128): tiles on "
                              "chip\n"));
  EXPECT_THAT(text, HasSubstr("    naive (fp16; any head dim up to "
                              "max_head_dim): S to memory\n"));
}

TEST(FormatServerInfo, ListsEveryLimit) {
  v1::ServerInfo info;
  info.mutable_limits()->set_max_seq_len(8192);
  const std::string text = FormatServerInfo(info);
  const google::protobuf::Descriptor* limits = v1::Limits::descriptor();
  for (int i = 0; i < limits->field_count(); ++i) {
    EXPECT_THAT(text, HasSubstr("  " + limits->field(i)->name() + " "));
  }
  EXPECT_THAT(text, HasSubstr("  max_seq_len 8192\n"));
}

// ---- Quota -----------------------------------------------------------------

TEST(ParseCommandLine, QuotaShowAsksForYourOwnOrACohorts) {
  Parsed own = Parse({"quota", "show"});
  const auto& line = std::get<CommandLine>(own.result);
  const auto& show = std::get<QuotaShowCommand>(std::get<QuotaCommand>(line.command));
  EXPECT_EQ(show.request.cohort(), "");
  Parsed cohort = Parse({"quota", "show", "--cohort", "cohort-1"});
  EXPECT_EQ(std::get<QuotaShowCommand>(
                std::get<QuotaCommand>(std::get<CommandLine>(cohort.result).command))
                .request.cohort(),
            "cohort-1");
}

TEST(ParseCommandLine, QuotaSetSetsOnlyTheQuotasGiven) {
  Parsed parsed = Parse({"quota", "set", "--cohort", "cohort-1", "--queued-runs", "2",
                         "--device-seconds-per-hour", "600", "--runs-per-minute", "0"});
  const auto& set = std::get<QuotaSetCommand>(
      std::get<QuotaCommand>(std::get<CommandLine>(parsed.result).command));
  EXPECT_EQ(set.request.cohort(), "cohort-1");
  const v1::QuotaOverrides& o = set.request.overrides();
  EXPECT_TRUE(o.has_queued_runs());
  EXPECT_EQ(o.queued_runs(), 2u);
  EXPECT_EQ(o.device_seconds_per_hour(), 600);
  EXPECT_TRUE(o.has_runs_per_minute());
  EXPECT_EQ(o.runs_per_minute(), 0u);
  EXPECT_FALSE(o.has_open_streams());
  EXPECT_FALSE(o.has_device_seconds_per_day());
}

TEST(ParseCommandLine, QuotaSetNeedsACohortAndAQuota) {
  Parsed no_cohort = Parse({"quota", "set", "--queued-runs", "2"});
  EXPECT_EQ(std::get<ExitCode>(no_cohort.result), ExitCode::kBadArguments);
  EXPECT_THAT(no_cohort.err, HasSubstr("--cohort"));
  Parsed nothing = Parse({"quota", "set", "--cohort", "cohort-1"});
  EXPECT_EQ(std::get<ExitCode>(nothing.result), ExitCode::kBadArguments);
  EXPECT_THAT(nothing.err, HasSubstr("give at least one of --queued-runs"));
  Parsed negative = Parse({"quota", "set", "--cohort", "c", "--queued-runs", "-1"});
  EXPECT_EQ(std::get<ExitCode>(negative.result), ExitCode::kBadArguments);
}

TEST(FormatQuotaReport, ShowsLimitsUsageAndTheCohortsOwn) {
  v1::QuotaReport report;
  report.set_cohort("cohort-1");
  report.mutable_limits()->set_queued_runs(2);
  report.mutable_limits()->set_device_seconds_per_hour(600);
  report.mutable_overrides()->set_queued_runs(2);
  report.mutable_usage()->set_queued_runs(1);
  report.mutable_usage()->set_device_seconds_last_hour(12.5);
  const std::string own = FormatQuotaReport(report, /*own=*/true);
  EXPECT_THAT(own, HasSubstr("cohort: cohort-1\n"));
  EXPECT_THAT(own, HasSubstr("  queued runs at once: 2, used 1 (the cohort's own)\n"));
  EXPECT_THAT(own, HasSubstr("  open run streams at once: none, used 0\n"));
  EXPECT_THAT(own, HasSubstr("  device time per hour: 600 s, used 12.5 s\n"));
  EXPECT_THAT(FormatQuotaReport(report, /*own=*/false),
              HasSubstr("  device time per hour: 600 s\n"));
  report.set_unlimited(true);
  EXPECT_THAT(FormatQuotaReport(report, /*own=*/true), HasSubstr("no quotas apply to you"));
}

// ---- Progress --------------------------------------------------------------

// A clock the test moves by hand.
struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  ProgressReporter::Clock AsClock() {
    return [this] { return now; };
  }
};

// A batch saying `variant` has `total` samples so far, the newest of them
// in it.
v1::RunEvent SamplesOf(const std::string& variant, uint32_t total) {
  v1::RunEvent event;
  v1::VariantSamples* samples = event.mutable_samples()->add_variants();
  samples->set_variant(variant);
  samples->set_total(total);
  samples->add_ms(1.0);
  return event;
}

TEST(ProgressReporter, ReportsQueueStartAndVerificationOnALog) {
  std::ostringstream out;
  FakeClock clock;
  ProgressReporter progress(out, /*is_tty=*/false, clock.AsClock());
  v1::RunEvent queued;
  queued.mutable_queued()->set_position(2);
  queued.mutable_queued()->set_running(1);
  queued.mutable_queued()->set_eta_seconds(11.6);
  progress.OnEvent(queued);
  queued.mutable_queued()->set_position(1);
  queued.mutable_queued()->set_eta_seconds(301);
  progress.OnEvent(queued);
  progress.OnEvent(Started());
  progress.OnEvent(Result("naive", 1, 1, true));
  progress.OnEvent(Result("vectorized", 1, 1, false));
  progress.Finish();
  EXPECT_THAT(out.str(), HasSubstr("queued: position 2, about 12 s (1 running)\n"));
  EXPECT_THAT(out.str(), HasSubstr("queued: position 1, about 5 min (1 running)\n"));
  EXPECT_THAT(out.str(), Not(HasSubstr("moved back")));  // it only moved forward
  queued.mutable_queued()->set_position(3);
  progress.OnEvent(queued);
  EXPECT_THAT(out.str(), HasSubstr("queued: position 3, about 5 min (1 running); moved back: "
                                   "runs of learners with less device time lately go first\n"));
  EXPECT_THAT(out.str(), HasSubstr("started on cpu (Test CPU), variants naive,vectorized"));
  EXPECT_THAT(out.str(), HasSubstr("naive: verified"));
  EXPECT_THAT(out.str(), HasSubstr("vectorized: FAILED verification"));
}

TEST(ProgressReporter, PrintsSampleCountsOnALogAtMostEveryTwoSeconds) {
  std::ostringstream out;
  FakeClock clock;
  ProgressReporter progress(out, /*is_tty=*/false, clock.AsClock());
  progress.OnEvent(Started());
  for (uint32_t i = 1; i <= 10; ++i) progress.OnEvent(SamplesOf("naive", i));
  EXPECT_THAT(out.str(), Not(HasSubstr("samples:")));
  clock.now += std::chrono::milliseconds(2100);
  progress.OnEvent(SamplesOf("vectorized", 1));
  EXPECT_THAT(out.str(), HasSubstr("samples: naive 10, vectorized 1\n"));
  progress.OnEvent(SamplesOf("naive", 11));
  progress.OnEvent(Result("naive", 1, 1, true));  // flushes the final counts
  EXPECT_THAT(out.str(), HasSubstr("samples: naive 11, vectorized 1\n"));
}

TEST(ProgressReporter, RewritesOneLineOnATerminal) {
  std::ostringstream out;
  FakeClock clock;
  ProgressReporter progress(out, /*is_tty=*/true, clock.AsClock());
  progress.OnEvent(Started());
  clock.now += std::chrono::milliseconds(150);
  progress.OnEvent(SamplesOf("naive", 1));
  clock.now += std::chrono::milliseconds(150);
  progress.OnEvent(SamplesOf("vectorized", 1));
  EXPECT_THAT(out.str(), HasSubstr("\rsamples: naive 1, vectorized 0"));
  EXPECT_THAT(out.str(), HasSubstr("\rsamples: naive 1, vectorized 1"));
  progress.Finish();
  EXPECT_EQ(out.str().back(), '\n');
}

TEST(ProgressReporter, CountsTheTotalsABatchCarriesNotItsLength) {
  // A batch the server coalesced for a slow reader holds only the newest
  // times; its total still counts every sample.
  std::ostringstream out;
  FakeClock clock;
  ProgressReporter progress(out, /*is_tty=*/false, clock.AsClock());
  progress.OnEvent(Started());
  progress.OnEvent(SamplesOf("naive", 5000));
  progress.OnEvent(Result("naive", 1, 1, true));
  EXPECT_THAT(out.str(), HasSubstr("samples: naive 5000, vectorized 0\n"));
}

}  // namespace
}  // namespace kbench::client
