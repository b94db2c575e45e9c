// A browser a test can click through: Debian's chromedriver (package
// chromium-driver) driving headless Chromium over the W3C WebDriver protocol
// (plain HTTP and JSON, spoken here with cpp-httplib and nlohmann-json). For
// the dashboard's page tests that need more than a dumped DOM: typing a
// token, clicking, waiting for a refresh, reading a chart's data.
//
// Every call returns an absl::Status (or StatusOr) naming the WebDriver
// command and the driver's message on failure; a test ASSERTs on it.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tests/process_helper.h"

namespace httplib {
class Client;
}

namespace kbench::testing {

// chromedriver from the README's install step, unless KBENCH_CHROMEDRIVER
// names another; Chromium as in the page tests (KBENCH_CHROMIUM).
std::string ChromeDriverPath();

class Browser {
 public:
  // Starts chromedriver on a free loopback port and opens a headless
  // Chromium session (1280x1600, no sandbox, no network beyond loopback).
  static absl::StatusOr<std::unique_ptr<Browser>> Start();
  ~Browser();  // ends the session and the driver

  Browser(const Browser&) = delete;
  Browser& operator=(const Browser&) = delete;

  absl::Status Navigate(const std::string& url);
  // Runs `script` (a function body: `return ...;`) in the page with
  // `arguments` and returns its result as JSON.
  absl::StatusOr<nlohmann::json> Execute(const std::string& script,
                                         const nlohmann::json& arguments = nlohmann::json::array());
  // Types `text` into the element that `css` selects.
  absl::Status Type(const std::string& css, const std::string& text);
  absl::Status Click(const std::string& css);
  // Polls `condition` (a script returning a boolean) every 100 ms until it
  // is true; DEADLINE_EXCEEDED after `timeout`, naming the condition.
  absl::Status WaitFor(const std::string& condition,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10));

 private:
  Browser(std::unique_ptr<ChildProcess> driver, std::unique_ptr<httplib::Client> http);
  absl::StatusOr<nlohmann::json> Call(const std::string& method, const std::string& path,
                                      const nlohmann::json& body);
  absl::StatusOr<std::string> FindElement(const std::string& css);

  std::unique_ptr<ChildProcess> driver_;
  std::unique_ptr<httplib::Client> http_;
  std::string session_;
};

}  // namespace kbench::testing
