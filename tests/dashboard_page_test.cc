// The dashboard page in Debian's headless Chromium against a server holding
// a seeded cohort (tests/dashboard_test_server.h): each view shows the
// learners and their numbers, the page reports no JavaScript error (its
// #page-errors stays empty and Chromium logs no console message), and a
// screenshot of each view is kept in the test's output directory.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/dashboard_test_server.h"
#include "tests/temp_dir.h"

namespace kbench::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Chromium from the README's install step (scripts/install-deps.sh), unless
// KBENCH_CHROMIUM names another.
std::string ChromiumPath() {
  const char* path = std::getenv("KBENCH_CHROMIUM");
  return path != nullptr ? path : "/usr/bin/chromium";
}

struct Chromium {
  int exit_code = -1;
  std::string stdout_text;
  std::string stderr_text;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs headless Chromium on `url` with `action` (--dump-dom, or
// --screenshot=PATH), logging the page's console to stderr.
Chromium RunChromium(const std::string& url, const std::vector<std::string>& action) {
  TempDir profile;
  const std::string out = profile.path() + "/stdout";
  const std::string err = profile.path() + "/stderr";
  std::vector<std::string> args = {ChromiumPath(),
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-quic",
                                   "--no-first-run",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--user-data-dir=" + profile.path() + "/profile",
                                   "--virtual-time-budget=5000",
                                   "--enable-logging=stderr",
                                   "--v=0",
                                   "--window-size=1280,1600"};
  args.insert(args.end(), action.begin(), action.end());
  args.push_back(url);
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  Chromium result;
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(126);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  }
  result.stdout_text = ReadFile(out);
  result.stderr_text = ReadFile(err);
  return result;
}

// Chromium's log lines of the page's console (any level) and of uncaught
// errors.
std::vector<std::string> ConsoleLines(const std::string& log) {
  std::vector<std::string> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find(":CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos) {
      lines.push_back(line);
    }
  }
  return lines;
}

// The text of the element with `id` in a dumped DOM; "" if it is empty or
// missing.
std::string ElementText(const std::string& dom, const std::string& id) {
  const std::regex element("id=\"" + id + "\"[^>]*>([^<]*)<");
  std::smatch match;
  return std::regex_search(dom, match, element) ? match[1].str() : "";
}

class DashboardPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(ChromiumPath()))
        << "Chromium is needed for the dashboard page test and is not at " << ChromiumPath()
        << ": install it with scripts/install-deps.sh (Debian package chromium), or set "
           "KBENCH_CHROMIUM to its path";
    ASSERT_TRUE(server_.ok());
    std::filesystem::create_directories(KBENCH_TEST_OUTPUT_DIR);
  }

  // The view's DOM once drawn, after checking that the page reported no
  // error; also keeps its screenshot as <name>.png. From `server` (the
  // test's own by default).
  std::string LoadView(const std::string& fragment, const std::string& view,
                       const std::string& name, const DashboardTestServer* server = nullptr) {
    const std::string url =
        absl::StrCat("http://127.0.0.1:", (server ? *server : server_).port(), "/#", fragment);
    const Chromium dom = RunChromium(url, {"--dump-dom"});
    EXPECT_EQ(dom.exit_code, 0) << dom.stderr_text;
    EXPECT_THAT(dom.stdout_text, HasSubstr("data-ready=\"" + view + "\""))
        << "the " << view << " view did not finish drawing; page errors: "
        << ElementText(dom.stdout_text, "page-errors");
    EXPECT_EQ(ElementText(dom.stdout_text, "page-errors"), "");
    EXPECT_THAT(ConsoleLines(dom.stderr_text), ::testing::IsEmpty())
        << "the page logged to its console";

    const std::string png = absl::StrCat(KBENCH_TEST_OUTPUT_DIR, "/", name, ".png");
    std::filesystem::remove(png);
    const Chromium shot = RunChromium(url, {"--screenshot=" + png});
    EXPECT_EQ(shot.exit_code, 0) << shot.stderr_text;
    EXPECT_TRUE(std::filesystem::exists(png)) << shot.stderr_text;
    EXPECT_GT(std::filesystem::file_size(png), 10'000u);
    std::cout << "screenshot: " << png << std::endl;
    return dom.stdout_text;
  }

  DashboardTestServer server_;
};

// With authentication and no token in the tab, the API answers 401 and the
// page shows its login box, saying why, instead of a view.
TEST(DashboardLoginTest, APageWithoutATokenAsksForOne) {
  ASSERT_TRUE(std::filesystem::exists(ChromiumPath()));
  DashboardTestServer server(/*with_authentication=*/true);
  ASSERT_TRUE(server.ok());
  const Chromium dom =
      RunChromium(absl::StrCat("http://127.0.0.1:", server.port(), "/#live"), {"--dump-dom"});
  ASSERT_EQ(dom.exit_code, 0) << dom.stderr_text;
  const std::regex login_box("<form id=\"login-box\"([^>]*)>");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(dom.stdout_text, match, login_box)) << dom.stdout_text;
  EXPECT_THAT(match[1].str(), Not(HasSubstr("hidden"))) << "the login box stayed hidden";
  EXPECT_NE(ElementText(dom.stdout_text, "login-reason"), "");
  EXPECT_THAT(dom.stdout_text, Not(HasSubstr("data-ready=\"live\"")))
      << "the live view was drawn without a token";
  EXPECT_EQ(ElementText(dom.stdout_text, "page-errors"), "");
}

TEST_F(DashboardPageTest, AssignmentViewShowsEachLearnersBestAndTheFailures) {
  const std::string dom = LoadView("assignment/lab1-attention", "assignment", "assignment");
  for (const char* learner : {"ada", "bob", "127.0.0.2"}) {
    EXPECT_THAT(dom, HasSubstr(absl::StrCat(">", learner, "</a>"))) << learner;
  }
  // ada's best fused median, bob's best naive, the speedups, the failure.
  // Times in the unit that reads best.
  EXPECT_THAT(dom, HasSubstr("<td class=\"num\">900 µs</td>"));
  EXPECT_THAT(dom, HasSubstr("<td class=\"num\">4.2 ms</td>"));
  EXPECT_THAT(dom, HasSubstr("<td class=\"num\">4.5x</td>"));
  EXPECT_THAT(dom, HasSubstr("Interval (confidence)"));
  EXPECT_THAT(dom, HasSubstr("(95%)</td>"));
  EXPECT_THAT(dom, HasSubstr("<td class=\"num\">0.25</td>"));
  EXPECT_THAT(dom, HasSubstr("6 runs by 4 learners"));
  EXPECT_THAT(dom, HasSubstr("href=\"/api/assignment/best?label=lab1-attention&amp;format=csv\""));
  EXPECT_THAT(dom,
              HasSubstr("href=\"/api/assignment/failures?label=lab1-attention&amp;format=csv\""));
}

TEST_F(DashboardPageTest, LearnerViewShowsTheLearnersHistory) {
  const std::string dom = LoadView("learner/ada", "learner", "learner");
  EXPECT_THAT(dom, HasSubstr("3 runs in 2 assignments"));
  EXPECT_THAT(dom, HasSubstr("<td>lab2-vector-add</td>"));
  EXPECT_THAT(dom, HasSubstr("<td class=\"num\">1.2 ms</td>"));
  EXPECT_THAT(dom, HasSubstr("<td class=\"num\">50 µs</td>"));
  EXPECT_THAT(dom, HasSubstr("href=\"/api/learner?learner=ada&amp;format=csv\""));
}

TEST_F(DashboardPageTest, LiveViewShowsTheQueueAndTheDevices) {
  const std::string dom = LoadView("live", "live", "live");
  EXPECT_THAT(dom, HasSubstr("1 running · 1 queued"));
  EXPECT_THAT(dom, HasSubstr("<td>NVIDIA H200</td>"));
  EXPECT_THAT(dom, HasSubstr(">healthy</span>"));
  EXPECT_THAT(dom, HasSubstr("<td class=\"num\">1980</td>"));
  EXPECT_THAT(dom, HasSubstr("<td>live-1</td>"));
  EXPECT_THAT(dom, HasSubstr("<td>live-2</td>"));
}

// The course view and a submission's page over the seeded assignment
// (assignment_seed.h): the leaderboard, the scores chart, who is stuck and
// why, the roster, and a submission's source with its diff against the
// learner's previous one.
class DashboardCoursePageTest : public DashboardPageTest {
 protected:
  DashboardTestServer course_{/*with_authentication=*/false, /*with_assignments=*/true};
};

TEST_F(DashboardCoursePageTest, TheCourseViewShowsTheLeaderboardRosterAndWhoIsStuck) {
  const std::string dom = LoadView("course/lab3", "course", "course", &course_);
  EXPECT_THAT(dom, HasSubstr("Vector add, your own kernel"));
  // eve's best, with its interval and speedup over naive; a link to it.
  EXPECT_THAT(dom, HasSubstr("<td class=\"num\">400 µs [0.396–0.404]</td>"));
  EXPECT_THAT(dom, HasSubstr("<td class=\"num\">5x</td>"));
  EXPECT_THAT(dom, HasSubstr("href=\"#submission/sub-00000000000b\""));
  // finn is stuck, and why.
  EXPECT_THAT(dom, HasSubstr("finn (1 attempt): problem 1 (n=1024): failed verification"));
  EXPECT_THAT(dom, HasSubstr("<td>failing (1)</td>"));
  EXPECT_THAT(dom, HasSubstr("<td>#1 400 µs</td>"));
  EXPECT_THAT(dom, HasSubstr("href=\"/api/assignments/roster?format=csv\""));
}

TEST_F(DashboardCoursePageTest, ASubmissionPageShowsItsProblemsAndTheDiffOfItsSource) {
  const std::string dom =
      LoadView("submission/sub-00000000000b", "submission", "submission", &course_);
  EXPECT_THAT(dom, HasSubstr("Counts: score 400 µs"));
  EXPECT_THAT(dom, HasSubstr("<td>n=4096</td>"));
  EXPECT_THAT(dom, HasSubstr("Compiled for sm_90a: 16 registers per thread"));
  EXPECT_THAT(dom, HasSubstr("my_add.cu(4): warning: a note from the compiler"));
  EXPECT_THAT(dom, HasSubstr("changes since sub-00000000000a"));
  EXPECT_THAT(dom, HasSubstr("<span class=\"removed\">-   // takes 0.5 ms</span>"));
  EXPECT_THAT(dom, HasSubstr("<span class=\"added\">+   // takes 0.4 ms</span>"));
}

}  // namespace
}  // namespace kbench::testing
