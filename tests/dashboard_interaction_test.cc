// The dashboard as a person uses it, in headless Chromium driven through
// chromedriver (tests/webdriver.h): signing in with a token and out again,
// the header's counts following the server without a reload, and the
// learner's history chart read from Chart.js itself (one point per result,
// problems in natural order, results without a ceiling plotted, the note
// for results above their ceiling).
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "kernels/common/status_macros.h"
#include "nlohmann/json.hpp"
#include "tests/dashboard_seed.h"
#include "tests/dashboard_test_server.h"
#include "tests/run_records.h"
#include "tests/webdriver.h"

namespace kbench::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// A browser for the test, or a failure that says how to get one.
std::unique_ptr<Browser> StartBrowser() {
  EXPECT_TRUE(std::filesystem::exists(ChromeDriverPath()))
      << "chromedriver is needed for the dashboard's interaction tests and is not at "
      << ChromeDriverPath()
      << ": install it with scripts/install-deps.sh (Debian package chromium-driver), or set "
         "KBENCH_CHROMEDRIVER to its path";
  absl::StatusOr<std::unique_ptr<Browser>> browser = Browser::Start();
  EXPECT_TRUE(browser.ok()) << browser.status();
  return browser.ok() ? *std::move(browser) : nullptr;
}

std::string Url(const DashboardTestServer& server, const std::string& fragment) {
  return absl::StrCat("http://127.0.0.1:", server.port(), "/#", fragment);
}

// The text of the element with `id`, as the page shows it.
std::string TextOf(Browser& browser, const std::string& id) {
  absl::StatusOr<json> text = browser.Execute(
      "const e = document.getElementById(arguments[0]); return e ? e.textContent : null;", {id});
  return text.ok() && text->is_string() ? text->get<std::string>() : "";
}

// A browser on `fragment` once the page has drawn `view` there; nullptr,
// having failed the test, when it cannot.
std::unique_ptr<Browser> OpenView(const DashboardTestServer& server, const std::string& fragment,
                                  const std::string& view) {
  std::unique_ptr<Browser> browser = StartBrowser();
  if (browser == nullptr) return nullptr;
  const absl::Status navigated = browser->Navigate(Url(server, fragment));
  EXPECT_TRUE(navigated.ok()) << navigated;
  const absl::Status drawn = browser->WaitFor("document.body.dataset.ready === '" + view + "'");
  EXPECT_TRUE(drawn.ok()) << drawn << "; page errors: " << TextOf(*browser, "page-errors");
  return navigated.ok() && drawn.ok() ? std::move(browser) : nullptr;
}

constexpr char kLoginBoxShown[] = "!document.getElementById('login-box').hidden";

TEST(DashboardSignInTest, ATokenSignsInShowingWhoAndSignOutForgetsIt) {
  DashboardTestServer server(/*with_authentication=*/true);
  ASSERT_TRUE(server.ok());
  std::unique_ptr<Browser> browser = StartBrowser();
  ASSERT_NE(browser, nullptr);
  ASSERT_TRUE(browser->Navigate(Url(server, "learner/ada")).ok());
  ASSERT_TRUE(browser->WaitFor(kLoginBoxShown).ok()) << "no login box without a token";

  // A wrong token: the box comes back, saying why (the reason it showed
  // for no token is cleared first), and no view is drawn.
  ASSERT_NE(TextOf(*browser, "login-reason"), "");
  ASSERT_TRUE(
      browser->Execute("document.getElementById('login-reason').textContent = ''; return true;")
          .ok());
  ASSERT_TRUE(browser->Type("#token-input", "kbt_not-a-token").ok());
  ASSERT_TRUE(browser->Click("#login-box button[type=submit]").ok());
  ASSERT_TRUE(browser
                  ->WaitFor(absl::StrCat(kLoginBoxShown,
                                         " && document.getElementById('login-reason')"
                                         ".textContent !== ''"))
                  .ok());
  EXPECT_THAT(TextOf(*browser, "login-reason"), HasSubstr("not valid"));
  absl::StatusOr<json> ready = browser->Execute("return document.body.dataset.ready || null;");
  ASSERT_TRUE(ready.ok());
  EXPECT_TRUE(ready->is_null()) << "a view was drawn for a wrong token: " << ready->dump();
  EXPECT_EQ(TextOf(*browser, "page-errors"), "");

  // grace's token: the learner view, and who is signed in.
  ASSERT_TRUE(browser->Type("#token-input", server.token()).ok());
  ASSERT_TRUE(browser->Click("#login-box button[type=submit]").ok());
  const absl::Status drawn = browser->WaitFor("document.body.dataset.ready === 'learner'");
  ASSERT_TRUE(drawn.ok()) << drawn << "; page errors: " << TextOf(*browser, "page-errors")
                          << "; login box: " << TextOf(*browser, "login-reason")
                          << "; header: " << TextOf(*browser, "server-line");
  ASSERT_TRUE(browser->WaitFor("!document.getElementById('signed-in').hidden").ok());
  EXPECT_EQ(TextOf(*browser, "signed-in-as"), "grace (instructor)");
  // grace's cohort has no runs yet: the view says so.
  EXPECT_EQ(TextOf(*browser, "learner-summary"), "No runs stored yet.");
  EXPECT_TRUE(browser->WaitFor("document.getElementById('login-box').hidden").ok());

  // Sign out: the token leaves the tab and the box asks again.
  ASSERT_TRUE(browser->Click("#sign-out").ok());
  ASSERT_TRUE(browser->WaitFor(kLoginBoxShown).ok()) << "signing out left the view open";
  absl::StatusOr<json> kept = browser->Execute("return sessionStorage.getItem('kbench-token');");
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_TRUE(kept->is_null()) << "the token stayed in the tab: " << kept->dump();
  EXPECT_TRUE(browser->WaitFor("document.getElementById('signed-in').hidden").ok());
}

TEST(DashboardHeaderTest, TheRunningAndQueuedCountsFollowTheServerWithoutAReload) {
  DashboardTestServer server;
  ASSERT_TRUE(server.ok());
  std::unique_ptr<Browser> browser = OpenView(server, "learner/ada", "learner");
  ASSERT_NE(browser, nullptr);
  ASSERT_TRUE(browser
                  ->WaitFor("document.getElementById('server-line').textContent"
                            ".includes('1 running · 1 queued')")
                  .ok())
      << TextOf(*browser, "server-line");
  ASSERT_TRUE(browser->Execute("window.kbenchTestMark = 'same page'; return true;").ok());

  server.SetCounts(3, 7);
  const absl::Status refreshed = browser->WaitFor(
      "document.getElementById('server-line').textContent.includes('3 running · 7 queued')");
  EXPECT_TRUE(refreshed.ok()) << refreshed << "; header: " << TextOf(*browser, "server-line");
  absl::StatusOr<json> mark = browser->Execute("return window.kbenchTestMark || null;");
  ASSERT_TRUE(mark.ok());
  EXPECT_EQ(*mark, json("same page")) << "the page reloaded to refresh its header";
  EXPECT_EQ(TextOf(*browser, "page-errors"), "");
}

// A vector add of ada's at size n with one variant's median and,
// when `fraction_of_ceiling` > 0, a ceiling.
absl::Status AddVectorAdd(server::store::RunStore& store, const std::string& run_id, int64_t n,
                          double median_ms, double fraction_of_ceiling) {
  const int64_t unix_ms = kSeedStartUnixMs + 3'600'000;
  v1::RunRecord run = AdmittedRun(run_id, unix_ms, "lab2-vector-add", "vector_add", "ada");
  run.mutable_request()->mutable_vector_add()->set_n(n);
  run.mutable_request()->set_dtype(v1::DTYPE_FP32);
  run.mutable_request()->clear_variants();
  run.mutable_request()->add_variants("naive");
  KBENCH_RETURN_IF_ERROR(store.Accept(run));
  KBENCH_RETURN_IF_ERROR(store.Start(run_id, TestDevice(), TestStarted(run_id), unix_ms + 1000));
  server::store::RunOutcome outcome;
  outcome.status = v1::RUN_STATUS_OK;
  outcome.unix_ms = unix_ms + 2000;
  v1::VariantResult& result = *outcome.results.Add();
  result.set_variant("naive");
  result.mutable_stats()->set_samples(20);
  result.mutable_stats()->set_median_ms(median_ms);
  result.mutable_throughput()->set_value(12.0 * n / (median_ms / 1000) / 1e9);
  result.mutable_throughput()->set_unit("GB/s");
  if (fraction_of_ceiling > 0) {
    result.mutable_throughput()->set_fraction_of_ceiling(fraction_of_ceiling);
  }
  result.mutable_verification()->set_passed(true);
  v1::Summary summary;
  summary.set_run_id(run_id);
  summary.set_all_verified(true);
  outcome.summary = summary;
  return store.Finish(run_id, outcome);
}

TEST(DashboardHistoryChartTest, PlotsEveryResultByProblemAndNotesResultsAboveTheirCeiling) {
  DashboardTestServer server;
  ASSERT_TRUE(server.ok());
  // Beside the seeded cohort's: one result without a ceiling (a CPU run)
  // and one above its ceiling, at sizes that sort apart as strings.
  ASSERT_TRUE(AddVectorAdd(server.store(), "x-no-ceiling", 2000, 0.001, 0).ok());
  ASSERT_TRUE(AddVectorAdd(server.store(), "x-over-ceiling", 10000, 0.002, 1.2).ok());

  // What the chart should hold, from the API it draws.
  httplib::Client api("127.0.0.1", server.port());
  httplib::Result reply = api.Get("/api/learner?learner=ada");
  ASSERT_TRUE(reply && reply->status == 200);
  const json history = json::parse(reply->body);
  size_t results = 0;
  std::vector<std::string> problems;
  for (const json& row : history["rows"]) {
    if (row["variant"].is_string() && !row["variant"].get<std::string>().empty()) ++results;
    const std::string problem = row["problem"];
    if (std::find(problems.begin(), problems.end(), problem) == problems.end()) {
      problems.push_back(problem);
    }
  }
  ASSERT_GE(results, 8u);

  std::unique_ptr<Browser> browser = OpenView(server, "learner/ada", "learner");
  ASSERT_NE(browser, nullptr);
  absl::StatusOr<json> chart = browser->Execute(R"(
      const chart = Chart.getChart(document.getElementById('history-chart'));
      return {
        labels: chart.data.labels,
        y: chart.options.scales.y.title.text,
        points: chart.data.datasets.flatMap((d) => d.data.map((p) => ({
          x: p.x, y: p.y, run_id: p.row.run_id, series: d.label}))),
      };)");
  ASSERT_TRUE(chart.ok()) << chart.status();

  // Every problem once, in natural order (n=2000 before n=10000).
  std::vector<std::string> labels = (*chart)["labels"];
  EXPECT_EQ(labels.size(), problems.size()) << chart->dump();
  auto at = [&](const std::string& label) {
    return std::find(labels.begin(), labels.end(), label) - labels.begin();
  };
  EXPECT_LT(at("n=2000"), at("n=10000")) << chart->dump();
  EXPECT_LT(at("n=10000"), at("n=16777216")) << chart->dump();
  EXPECT_LT(at("n=16777216"), static_cast<long>(labels.size()));
  // One point per result, each at its problem and median; the result
  // without a ceiling among them.
  EXPECT_EQ((*chart)["points"].size(), results) << chart->dump();
  bool no_ceiling_plotted = false;
  for (const json& point : (*chart)["points"]) {
    if (point["run_id"] == "x-no-ceiling") {
      no_ceiling_plotted = point["x"] == "n=2000" && point["y"] == 0.001;
    }
  }
  EXPECT_TRUE(no_ceiling_plotted) << chart->dump();
  EXPECT_THAT((*chart)["y"].get<std::string>(), HasSubstr("median time"));
  // 120% of the ceiling: the note says why that can be.
  EXPECT_THAT(TextOf(*browser, "history-note"), HasSubstr("above 100% of the ceiling"));
  EXPECT_EQ(TextOf(*browser, "page-errors"), "");
}

// Without a result above its ceiling, no note.
TEST(DashboardHistoryChartTest, NoNoteWhenEveryResultIsWithinItsCeiling) {
  DashboardTestServer server;
  ASSERT_TRUE(server.ok());
  std::unique_ptr<Browser> browser = OpenView(server, "learner/ada", "learner");
  ASSERT_NE(browser, nullptr);
  EXPECT_EQ(TextOf(*browser, "history-note"), "");
}

}  // namespace
}  // namespace kbench::testing
