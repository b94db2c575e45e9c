// A fuzz target (label security): a CPU kbench-server as a process takes
// 12,000 generated requests at every RPC of its services (KernelBench,
// RunHistory, Auth, Quotas): valid requests with fields set to extremes
// (huge and negative numbers, NaN, unknown enum values, long strings,
// invalid UTF-8, many repeated elements), and their serialized bytes
// mutated, truncated or replaced. It fails on a crash (the server or a
// worker gone), a hang (a call past its deadline), a code outside the
// expected ones (UNKNOWN, INTERNAL, UNAVAILABLE...), or a response that does
// not parse as the method's response type, or when the server's memory
// grows by more than kMaxRssGrowthKb over the requests (printed every 500).
// A Run stream that is admitted is cancelled after its first event. Seeded: KBENCH_FUZZ_SEED=N
// reproduces a failure (the seed is printed), KBENCH_FUZZ_REQUESTS=N sets the count.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/message.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/codegen/client_unary_call.h"
#include "grpcpp/impl/codegen/rpc_method.h"
#include "grpcpp/impl/codegen/sync_stream.h"
#include "kbench/v1/auth.pb.h"
#include "kbench/v1/history.pb.h"
#include "kbench/v1/kbench.pb.h"
#include "kbench/v1/quota.pb.h"
#include "tests/server_under_test.h"

namespace kbench {
namespace {

using ::google::protobuf::Descriptor;
using ::google::protobuf::FieldDescriptor;
using ::google::protobuf::Message;
using ::google::protobuf::MethodDescriptor;
using ::google::protobuf::Reflection;
using ::kbench::testing::ServerUnderTest;
using namespace std::chrono_literals;

// Every call must end within this; past it the server hangs. The longest
// bound the server sets on a call is a compile's wall-clock limit
// (SandboxLimits::wall_seconds, 20 s), which a loaded machine can reach.
constexpr auto kCallDeadline = 45s;

// Generated requests are cut at this size (twice gRPC's 4 MiB receive
// limit, so oversized ones still reach the server): repeated messages of
// 1 MiB strings nest to a gigabyte, which takes the fuzzer, not the server,
// past kCallDeadline to send.
constexpr size_t kMaxRequestBytes = size_t(8) << 20;

// What the server's RSS may gain over the requests (the default 12,000). It
// holds no state per request beyond the runs' records, so what it gains is
// the allocator's: 62 MB from 28.5 with its two malloc arenas
// (server/app/main.cc); with glibc's default of up to 8 per core it kept
// every arena's high-water mark, 95-99 MB at 12,000 requests and 148 MB at
// 36,000 (seed 7).
constexpr long kMaxRssGrowthKb = 48 * 1024;

// VmRSS of a process in kB, or -1.
long RssKb(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

uint64_t SeedFromEnvironment(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::strtoull(value, nullptr, 10) : fallback;
}

// Serializes a message without the library's UTF-8 check on the sender's
// side, so that invalid UTF-8 reaches the server.
std::string Bytes(const Message& message) {
  std::string out;
  {  // the streams write `out` through when they are destroyed
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    message.ByteSizeLong();  // caches the sizes the next line writes
    message.SerializeWithCachedSizes(&coded);
  }
  return out;
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  size_t Below(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  bool OneIn(size_t n) { return Below(n) == 0; }

  std::string Text() {
    static const std::vector<std::string> kSpecial = {"",
                                                      "naive",
                                                      "vectorized",
                                                      "fused",
                                                      "fp16",
                                                      "run-000000000000",
                                                      "../../etc/passwd",
                                                      "%s%n%x",
                                                      "lab\x80x",
                                                      "\xff\xfe",
                                                      "\xc0\xaf",
                                                      "\xed\xa0\x80",
                                                      "a\0b",
                                                      "=cmd|' /C calc'!A0",
                                                      "\x1b[2J",
                                                      "ʕ•ᴥ•ʔ",
                                                      "Bearer x",
                                                      "'; DROP TABLE runs; --"};
    switch (Below(4)) {
      case 0:
        return kSpecial[Below(kSpecial.size())];
      case 1:
        return std::string(size_t(1) << Below(21), char('a' + Below(26)));  // to 1 MiB
      case 2: {
        std::string s(Below(64), '\0');
        for (char& c : s) c = char(Below(256));
        return s;
      }
      default:
        return std::to_string(int64_t(rng_()));
    }
  }

  int64_t Integer() {
    static const std::vector<int64_t> kSpecial = {0,
                                                  1,
                                                  -1,
                                                  2,
                                                  3,
                                                  7,
                                                  64,
                                                  4096,
                                                  65536,
                                                  1 << 20,
                                                  int64_t(1) << 26,
                                                  int64_t(1) << 31,
                                                  int64_t(1) << 32,
                                                  std::numeric_limits<int32_t>::max(),
                                                  std::numeric_limits<int32_t>::min(),
                                                  std::numeric_limits<int64_t>::max(),
                                                  std::numeric_limits<int64_t>::min()};
    return OneIn(3) ? int64_t(rng_()) : kSpecial[Below(kSpecial.size())];
  }

  double Real() {
    static const std::vector<double> kSpecial = {0,
                                                 -0.0,
                                                 1,
                                                 -1,
                                                 0.5,
                                                 1e-9,
                                                 1e9,
                                                 1e308,
                                                 -1e308,
                                                 5e-324,
                                                 std::numeric_limits<double>::quiet_NaN(),
                                                 std::numeric_limits<double>::infinity(),
                                                 -std::numeric_limits<double>::infinity()};
    return OneIn(3) ? std::uniform_real_distribution<double>(-1e6, 1e6)(rng_)
                    : kSpecial[Below(kSpecial.size())];
  }

  // Sets one field of `message`, or of a message inside it, to an extreme.
  void MutateField(Message& message, int depth = 0) {
    const Descriptor* type = message.GetDescriptor();
    if (type->field_count() == 0) return;
    const FieldDescriptor* field = type->field(int(Below(size_t(type->field_count()))));
    const Reflection* r = message.GetReflection();
    if (field->is_repeated()) {
      const size_t count = OneIn(4) ? 1000 : Below(4);
      for (size_t i = 0; i < count; ++i) {
        AddValue(message, field, depth);
        // Past the cut the rest would only cost the fuzzer time (a
        // thousand 1 MiB strings are a gigabyte).
        if (i % 16 == 15 && message.ByteSizeLong() > kMaxRequestBytes) break;
      }
      return;
    }
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_MESSAGE:
        if (depth < 4) MutateField(*r->MutableMessage(&message, field), depth + 1);
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        r->SetString(&message, field, Text());
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        r->SetInt32(&message, field, int32_t(Integer()));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        r->SetInt64(&message, field, Integer());
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        r->SetUInt32(&message, field, uint32_t(Integer()));
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        r->SetUInt64(&message, field, uint64_t(Integer()));
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        r->SetDouble(&message, field, Real());
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        r->SetFloat(&message, field, float(Real()));
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        r->SetBool(&message, field, OneIn(2));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:  // an unknown value as often as a known one
        r->SetEnumValue(&message, field, OneIn(2) ? int(Integer()) : int(Below(8)));
        break;
    }
  }

  // Raw damage to a serialized request: flipped bytes, a cut, garbage, or
  // nothing but garbage.
  std::string Damage(std::string bytes) {
    switch (Below(4)) {
      case 0:
        for (size_t i = 0, n = 1 + Below(8); i < n && !bytes.empty(); ++i)
          bytes[Below(bytes.size())] = char(Below(256));
        return bytes;
      case 1:
        return bytes.substr(0, bytes.empty() ? 0 : Below(bytes.size()));
      case 2: {
        for (size_t i = 0, n = 1 + Below(32); i < n; ++i) bytes += char(Below(256));
        return bytes;
      }
      default: {
        std::string garbage(Below(256), '\0');
        for (char& c : garbage) c = char(Below(256));
        return garbage;
      }
    }
  }

 private:
  void AddValue(Message& message, const FieldDescriptor* field, int depth) {
    const Reflection* r = message.GetReflection();
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_MESSAGE: {
        Message* added = r->AddMessage(&message, field);
        if (depth < 4) MutateField(*added, depth + 1);
        break;
      }
      case FieldDescriptor::CPPTYPE_STRING:
        r->AddString(&message, field, Text());
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        r->AddInt32(&message, field, int32_t(Integer()));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        r->AddInt64(&message, field, Integer());
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        r->AddUInt32(&message, field, uint32_t(Integer()));
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        r->AddUInt64(&message, field, uint64_t(Integer()));
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        r->AddDouble(&message, field, Real());
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        r->AddFloat(&message, field, float(Real()));
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        r->AddBool(&message, field, OneIn(2));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        r->AddEnumValue(&message, field, int(Integer()));
        break;
    }
  }

  std::mt19937_64 rng_;
};

// Requests a run would be admitted with, for the mutations to start from:
// most generated runs then fail one check rather than the first.
std::unique_ptr<Message> BaseRequest(const Descriptor* type) {
  std::unique_ptr<Message> message(
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(type)->New());
  if (type == v1::RunRequest::descriptor()) {
    auto& run = static_cast<v1::RunRequest&>(*message);
    run.mutable_vector_add()->set_n(1000);
    run.mutable_timing()->set_time_budget_ms(20);
  } else if (type == v1::VectorAddRequest::descriptor()) {
    auto& run = static_cast<v1::VectorAddRequest&>(*message);
    run.set_n(1000);
    run.mutable_timing()->set_time_budget_ms(20);
  } else if (type == v1::AttentionRequest::descriptor()) {
    auto& run = static_cast<v1::AttentionRequest&>(*message);
    run.set_batch(1);
    run.set_heads(1);
    run.set_seq_len(16);
    run.set_head_dim(16);
    run.mutable_timing()->set_time_budget_ms(20);
  }
  return message;
}

// The codes a well-behaved server may answer a bad or unlucky request
// with.
const std::set<grpc::StatusCode> kExpected = {grpc::StatusCode::OK,
                                              grpc::StatusCode::CANCELLED,
                                              grpc::StatusCode::INVALID_ARGUMENT,
                                              grpc::StatusCode::NOT_FOUND,
                                              grpc::StatusCode::ALREADY_EXISTS,
                                              grpc::StatusCode::PERMISSION_DENIED,
                                              grpc::StatusCode::UNAUTHENTICATED,
                                              grpc::StatusCode::RESOURCE_EXHAUSTED,
                                              grpc::StatusCode::FAILED_PRECONDITION,
                                              grpc::StatusCode::OUT_OF_RANGE};

// And for bytes that do not parse as the request (invalid UTF-8 in a
// proto3 string included), gRPC's own answers, before the service sees
// them: UNIMPLEMENTED with no message from a callback service.
const std::set<grpc::StatusCode> kUnparsed = {grpc::StatusCode::UNIMPLEMENTED,
                                              grpc::StatusCode::INTERNAL};

struct Outcome {
  grpc::Status status;
  int unparsed = 0;  // responses that did not parse
};

grpc::ByteBuffer ToBuffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

bool Parses(const grpc::ByteBuffer& buffer, const Descriptor* type) {
  std::vector<grpc::Slice> slices;
  if (!buffer.Dump(&slices).ok()) return false;
  std::string bytes;
  for (const grpc::Slice& s : slices)
    bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  std::unique_ptr<Message> message(
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(type)->New());
  return message->ParseFromString(bytes);
}

Outcome Call(grpc::Channel& channel, const MethodDescriptor& method, const std::string& bytes) {
  const std::string path = "/" + method.service()->full_name() + "/" + method.name();
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
  Outcome outcome;
  const grpc::ByteBuffer request = ToBuffer(bytes);
  if (!method.server_streaming()) {
    grpc::internal::RpcMethod rpc(path.c_str(), grpc::internal::RpcMethod::NORMAL_RPC);
    grpc::ByteBuffer response;
    outcome.status = grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
        &channel, rpc, &context, request, &response);
    if (outcome.status.ok() && !Parses(response, method.output_type())) ++outcome.unparsed;
    return outcome;
  }
  grpc::internal::RpcMethod rpc(path.c_str(), grpc::internal::RpcMethod::SERVER_STREAMING);
  std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> reader(
      grpc::internal::ClientReaderFactory<grpc::ByteBuffer>::Create(&channel, rpc, &context,
                                                                    request));
  grpc::ByteBuffer event;
  bool first = true;
  while (reader->Read(&event)) {
    if (!Parses(event, method.output_type())) ++outcome.unparsed;
    // An admitted run is cancelled after its first event: the device moves
    // on at once, and the cancel path is fuzzed too.
    if (first && method.service()->name() == "KernelBench") context.TryCancel();
    first = false;
  }
  outcome.status = reader->Finish();
  return outcome;
}

TEST(RequestFuzz, EveryRpcAnswersGeneratedRequestsWithAnExpectedCodeAndParsableResponses) {
  const uint64_t seed = SeedFromEnvironment("KBENCH_FUZZ_SEED", 20261204);
  const uint64_t requests = SeedFromEnvironment("KBENCH_FUZZ_REQUESTS", 12000);
  std::printf("request fuzz: KBENCH_FUZZ_SEED=%llu KBENCH_FUZZ_REQUESTS=%llu\n",
              (unsigned long long)seed, (unsigned long long)requests);
  // The server's log goes to this test's own stderr: captured, it would sit
  // in a pipe nobody reads during the loop, and a server that has logged a
  // pipe's worth (64 KiB, a few hundred runs' start and end lines) blocks
  // in its next write, which reads as a hang.
  ServerUnderTest server({"--backend", "cpu"}, /*capture_stderr=*/false);
  ASSERT_FALSE(server.address().empty());  // its log is above
  const uint32_t worker_pid = server.Info().devices(0).worker_pid();

  // The methods of every service whose valid base request the server
  // serves (a service left out of this server answers UNIMPLEMENTED).
  std::vector<const MethodDescriptor*> methods;
  for (const google::protobuf::ServiceDescriptor* service :
       {v1::RunRequest::descriptor()->file()->FindServiceByName("KernelBench"),
        v1::ListRunsRequest::descriptor()->file()->FindServiceByName("RunHistory"),
        v1::LoginRequest::descriptor()->file()->FindServiceByName("Auth"),
        v1::GetQuotasRequest::descriptor()->file()->FindServiceByName("Quotas")})
    for (int i = 0; i < service->method_count(); ++i) {
      const MethodDescriptor* method = service->method(i);
      const Outcome base =
          Call(*server.channel(), *method, Bytes(*BaseRequest(method->input_type())));
      if (base.status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
        std::printf("  %s: not served here\n", method->full_name().c_str());
        continue;
      }
      methods.push_back(method);
    }
  ASSERT_FALSE(methods.empty());

  const long rss_before_kb = RssKb(server.process().pid());
  // The server's RSS every 500 requests, printed: whether its memory levels
  // off or keeps growing.
  std::vector<long> rss_series_kb;
  Generator generate(seed);
  std::map<std::string, std::map<grpc::StatusCode, int>> seen;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < requests; ++i) {
    const MethodDescriptor& method = *methods[generate.Below(methods.size())];
    std::unique_ptr<Message> request = BaseRequest(method.input_type());
    for (size_t m = 0, n = 1 + generate.Below(4); m < n; ++m) generate.MutateField(*request);
    std::string bytes = Bytes(*request);
    if (generate.OneIn(4)) bytes = generate.Damage(std::move(bytes));
    if (bytes.size() > kMaxRequestBytes) bytes.resize(kMaxRequestBytes);
    std::unique_ptr<Message> parsed(request->New());
    const bool parses = parsed->ParseFromString(bytes);

    const auto sent = std::chrono::steady_clock::now();
    const Outcome outcome = Call(*server.channel(), method, bytes);
    const grpc::StatusCode code = outcome.status.error_code();
    ++seen[method.name()][code];
    const std::string what =
        "request " + std::to_string(i) + " (KBENCH_FUZZ_SEED=" + std::to_string(seed) + ") to " +
        method.full_name() + ": code " + std::to_string(int(code)) + " " +
        outcome.status.error_message() + "\n  request (" + std::to_string(bytes.size()) + " bytes" +
        (parses ? "): " + parsed->ShortDebugString().substr(0, 300) : ")");
    ASSERT_LT(std::chrono::steady_clock::now() - sent, kCallDeadline) << "hang: " << what;
    ASSERT_TRUE(kExpected.count(code) > 0 || (!parses && kUnparsed.count(code) > 0)) << what;
    ASSERT_EQ(outcome.unparsed, 0) << "a response did not parse: " << what;
    if ((i + 1) % 500 == 0) rss_series_kb.push_back(RssKb(server.process().pid()));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("  %llu requests in %.1f s; server RSS %ld -> %ld kB\n", (unsigned long long)requests,
              seconds, rss_before_kb, RssKb(server.process().pid()));
  std::printf("  server RSS every 500 requests (kB):");
  for (long kb : rss_series_kb) std::printf(" %ld", kb);
  std::printf("\n");
  const long rss_after_kb = RssKb(server.process().pid());
  EXPECT_LT(rss_after_kb - rss_before_kb, kMaxRssGrowthKb)
      << "the server's memory grew from " << rss_before_kb << " to " << rss_after_kb
      << " kB over the requests";
  for (const auto& [name, codes] : seen) {
    std::printf("  %s:", name.c_str());
    for (const auto& [code, count] : codes) std::printf(" %d x%d", int(code), count);
    std::printf("\n");
  }
  // Neither the server nor its worker crashed on the way.
  const v1::ServerInfo info = server.Info();
  ASSERT_EQ(info.devices_size(), 1);
  EXPECT_EQ(info.devices(0).worker_pid(), worker_pid);
  EXPECT_EQ(info.devices(0).worker_restarts(), 0u);
  EXPECT_TRUE(info.devices(0).healthy());
}

}  // namespace
}  // namespace kbench
