#include "tests/security_server.h"

#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "server/run/limits.h"
#include "server/worker/backends/cpu/cpu_device.h"
#include "server/worker/local_executor.h"

namespace kbench::testing {

SecurityServer::SecurityServer(const v1::QuotaLimits& quotas) {
  store_path_ = dir_.path() + "/runs.db";
  absl::StatusOr<SeededStores> stores = OpenSeededStores(store_path_);
  if (!stores.ok()) return;
  stores_ = *std::move(stores);
  authenticator_ = std::make_unique<server::auth::TokenAuthenticator>(*stores_.identities);
  quotas_ = std::make_unique<server::QuotaGate>(
      quotas, [this](const std::string& user, int64_t since_unix_ms) {
        return stores_.runs->DeviceTimeOf(user, since_unix_ms);
      });
  recorder_ = std::make_unique<server::store::StoreRecorder>(*stores_.runs);

  server::ServiceOptions options;
  options.limits = server::DefaultLimits(v1::DeviceInfo());
  options.timing_defaults = server::DefaultTiming();
  options.authenticator = authenticator_.get();
  options.quotas = quotas_.get();
  std::vector<std::unique_ptr<server::Executor>> executors;
  executors.push_back(std::make_unique<server::worker::LocalExecutor>(
      server::worker::backends::cpu::MakeCpuDevice()));
  scheduler_ = std::make_unique<server::Scheduler>(std::move(executors), options.limits.max_queue(),
                                                   nullptr);
  service_ = std::make_unique<server::KernelBenchService>(
      *scheduler_, options, std::vector<server::RunObserver*>{recorder_.get()});
  history_ = std::make_unique<server::HistoryService>(*stores_.runs, authenticator_.get(),
                                                      stores_.identities.get());
  quota_service_ =
      std::make_unique<server::QuotaService>(*quotas_, *stores_.runs, authenticator_.get());
  auth_service_ =
      std::make_unique<server::auth::AuthService>(*stores_.identities, authenticator_.get());

  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
  for (grpc::Service* service : std::vector<grpc::Service*>{
           service_.get(), history_.get(), quota_service_.get(), auth_service_.get()})
    builder.RegisterService(service);
  grpc_server_ = builder.BuildAndStart();
  if (grpc_server_ == nullptr) return;

  absl::StatusOr<std::unique_ptr<server::http::DashboardServer>> dashboard =
      server::http::DashboardServer::Start(
          *stores_.runs, [] { return server::LiveState(); }, registry_,
          {.listen = "127.0.0.1:0", .authenticator = authenticator_.get()});
  if (!dashboard.ok()) return;
  dashboard_ = *std::move(dashboard);
  ok_ = true;
}

SecurityServer::~SecurityServer() {
  if (dashboard_) dashboard_->Stop();
  if (grpc_server_)
    grpc_server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  if (scheduler_) scheduler_->Stop();
}

std::shared_ptr<grpc::Channel> SecurityServer::Channel() const {
  return grpc::CreateChannel("127.0.0.1:" + std::to_string(port_),
                             grpc::InsecureChannelCredentials());
}

std::unique_ptr<grpc::ClientContext> SecurityServer::As(const std::string& token) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->AddMetadata("authorization", "Bearer " + token);
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return context;
}

grpc::Status SecurityServer::Run(const std::string& token, const v1::RunRequest& request) const {
  auto stub = v1::KernelBench::NewStub(Channel());
  auto context = As(token);
  auto reader = stub->Run(context.get(), request);
  v1::RunEvent event;
  while (reader->Read(&event)) {
  }
  return reader->Finish();
}

grpc::Status SecurityServer::RunVectorAdd(const std::string& token,
                                          const v1::VectorAddRequest& request) const {
  auto stub = v1::KernelBench::NewStub(Channel());
  auto context = As(token);
  auto reader = stub->RunVectorAdd(context.get(), request);
  v1::RunEvent event;
  while (reader->Read(&event)) {
  }
  return reader->Finish();
}

grpc::Status SecurityServer::ListAll(const std::string& token,
                                     std::vector<v1::RunRecord>& runs) const {
  auto stub = v1::RunHistory::NewStub(Channel());
  v1::ListRunsRequest request;
  do {
    auto context = As(token);
    v1::ListRunsResponse page;
    if (grpc::Status status = stub->ListRuns(context.get(), request, &page); !status.ok())
      return status;
    for (v1::RunRecord& run : *page.mutable_runs()) runs.push_back(std::move(run));
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return grpc::Status::OK;
}

httplib::Result SecurityServer::Get(const std::string& path, const std::string& token) const {
  httplib::Client client("127.0.0.1", dashboard_->port());
  return client.Get(path, {{"Authorization", "Bearer " + token}});
}

bool SecurityServer::WaitForStoredRuns(size_t count) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  v1::ListRunsRequest request;
  request.set_page_size(500);
  while (std::chrono::steady_clock::now() < give_up) {
    absl::StatusOr<v1::ListRunsResponse> page =
        stores_.runs->List(request, server::store::Samples::kOmit);
    if (page.ok() && size_t(page->runs_size()) >= count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

v1::RunRequest SmallRun() {
  v1::RunRequest request;
  request.mutable_vector_add()->set_n(4096);
  request.add_variants("naive");
  request.mutable_timing()->set_warmup_runs(1);
  request.mutable_timing()->set_min_samples(3);
  request.mutable_timing()->set_min_time_ms(1);
  request.mutable_timing()->set_time_budget_ms(50);
  return request;
}

}  // namespace kbench::testing
