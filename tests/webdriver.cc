#include "tests/webdriver.h"

#include <cstdlib>
#include <regex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "httplib.h"

namespace kbench::testing {
namespace {

using nlohmann::json;

// The W3C key of an element reference in a WebDriver reply.
constexpr char kElementKey[] = "element-6066-11e4-a52e-4f735466cecf";

std::string ChromiumBinary() {
  const char* path = std::getenv("KBENCH_CHROMIUM");
  return path != nullptr ? path : "/usr/bin/chromium";
}

}  // namespace

std::string ChromeDriverPath() {
  const char* path = std::getenv("KBENCH_CHROMEDRIVER");
  return path != nullptr ? path : "/usr/bin/chromedriver";
}

absl::StatusOr<std::unique_ptr<Browser>> Browser::Start() {
  auto driver = std::make_unique<ChildProcess>(
      std::vector<std::string>{ChromeDriverPath(), "--port=0", "--allowed-ips=127.0.0.1"});
  if (!driver->WaitForOutput("started successfully on port ", std::chrono::seconds(20))) {
    return absl::UnavailableError(
        absl::StrCat("chromedriver did not start: ", driver->out(), driver->err()));
  }
  std::smatch port;
  const std::string out = driver->out();
  if (!std::regex_search(out, port, std::regex("started successfully on port ([0-9]+)"))) {
    return absl::InternalError(absl::StrCat("chromedriver named no port: ", out));
  }
  auto http = std::make_unique<httplib::Client>("127.0.0.1", std::stoi(port[1].str()));
  http->set_read_timeout(60, 0);
  std::unique_ptr<Browser> browser(new Browser(std::move(driver), std::move(http)));
  const json options = {{"binary", ChromiumBinary()},
                        {"args",
                         {"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                          "--disable-background-networking", "--disable-component-update",
                          "--disable-sync", "--no-first-run", "--window-size=1280,1600"}}};
  absl::StatusOr<json> session = browser->Call(
      "POST", "/session",
      {{"capabilities",
        {{"alwaysMatch", {{"browserName", "chrome"}, {"goog:chromeOptions", options}}}}}});
  if (!session.ok()) return session.status();
  browser->session_ = session->value("sessionId", "");
  if (browser->session_.empty()) {
    return absl::InternalError(absl::StrCat("new session: no sessionId in ", session->dump()));
  }
  return browser;
}

Browser::Browser(std::unique_ptr<ChildProcess> driver, std::unique_ptr<httplib::Client> http)
    : driver_(std::move(driver)), http_(std::move(http)) {}

Browser::~Browser() {
  if (!session_.empty()) (void)Call("DELETE", absl::StrCat("/session/", session_), nullptr);
}

absl::StatusOr<json> Browser::Call(const std::string& method, const std::string& path,
                                   const json& body) {
  httplib::Result reply = method == "DELETE"
                              ? http_->Delete(path.c_str())
                              : http_->Post(path.c_str(), body.dump(), "application/json");
  const std::string command = absl::StrCat(method, " ", path);
  if (!reply) {
    return absl::UnavailableError(absl::StrCat(command, ": chromedriver did not answer (",
                                               httplib::to_string(reply.error()), ")"));
  }
  json answer = json::parse(reply->body, nullptr, /*allow_exceptions=*/false);
  if (answer.is_discarded()) {
    return absl::InternalError(absl::StrCat(command, ": not JSON: ", reply->body));
  }
  json value = answer.contains("value") ? answer["value"] : json();
  if (reply->status != 200) {
    const std::string message = value.is_object()
                                    ? value.value("error", "") + ": " + value.value("message", "")
                                    : reply->body;
    return absl::InternalError(absl::StrCat(command, ": ", message));
  }
  return value;
}

absl::Status Browser::Navigate(const std::string& url) {
  return Call("POST", absl::StrCat("/session/", session_, "/url"), {{"url", url}}).status();
}

absl::StatusOr<json> Browser::Execute(const std::string& script, const json& arguments) {
  return Call("POST", absl::StrCat("/session/", session_, "/execute/sync"),
              {{"script", script}, {"args", arguments}});
}

absl::StatusOr<std::string> Browser::FindElement(const std::string& css) {
  absl::StatusOr<json> element = Call("POST", absl::StrCat("/session/", session_, "/element"),
                                      {{"using", "css selector"}, {"value", css}});
  if (!element.ok()) return element.status();
  if (!element->contains(kElementKey)) {
    return absl::NotFoundError(absl::StrCat("no element ", css, ": ", element->dump()));
  }
  return (*element)[kElementKey].get<std::string>();
}

absl::Status Browser::Type(const std::string& css, const std::string& text) {
  absl::StatusOr<std::string> element = FindElement(css);
  if (!element.ok()) return element.status();
  return Call("POST", absl::StrCat("/session/", session_, "/element/", *element, "/value"),
              {{"text", text}})
      .status();
}

absl::Status Browser::Click(const std::string& css) {
  absl::StatusOr<std::string> element = FindElement(css);
  if (!element.ok()) return element.status();
  return Call("POST", absl::StrCat("/session/", session_, "/element/", *element, "/click"),
              json::object())
      .status();
}

absl::Status Browser::WaitFor(const std::string& condition, std::chrono::milliseconds timeout) {
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  std::string last;
  while (std::chrono::steady_clock::now() < give_up) {
    absl::StatusOr<json> value = Execute(absl::StrCat("return Boolean(", condition, ");"));
    if (value.ok() && value->is_boolean() && value->get<bool>()) return absl::OkStatus();
    last = value.ok() ? value->dump() : value.status().ToString();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("waited ", timeout.count(), " ms for ", condition, " (last: ", last, ")"));
}

}  // namespace kbench::testing
