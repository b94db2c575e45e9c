#include "client/run_details_format.h"

#include <string_view>

#include <algorithm>
#include <vector>

#include "client/flag_values.h"
#include "client/history_format.h"
#include "client/result_text.h"
#include "client/table_format.h"
#include "client/terminal_text.h"
#include "client/time_values.h"

namespace kbench::client {
namespace {

std::string Timing(const v1::TimingOptions& t) {
  // Zero fields took the server's default, which the record does not hold
  // (a refused run's timing was never resolved): "budget default", not
  // "budget default ms".
  auto value = [](double v, const char* unit = "") {
    return v == 0 ? std::string("default") : FormatSignificant(v) + unit;
  };
  return "warmup " + value(t.warmup_runs()) + ", min samples " + value(t.min_samples()) +
         ", min time " + value(t.min_time_ms(), " ms") + ", target rse " + value(t.target_rse()) +
         ", budget " + value(t.time_budget_ms(), " ms") + ", max samples " +
         value(t.max_samples()) + ", mode " + std::string(TimingModeName(t.mode())) +
         ", min effect " + value(t.min_effect());
}

std::string Device(const v1::DeviceInfo& d) {
  std::string text = d.backend() + " #" + std::to_string(d.index()) + " (" + d.name() + ")";
  if (d.memory_bytes() > 0) text += ", " + FormatBytes(d.memory_bytes());
  if (!d.compute_capability().empty()) {
    text += ", compute capability " + d.compute_capability();
  }
  if (d.copy_bandwidth_gbps() > 0) {
    text += ", copy " + FormatSignificant(d.copy_bandwidth_gbps()) + " GB/s";
  }
  if (d.matmul_tflops() > 0) {
    text += ", matmul " + FormatSignificant(d.matmul_tflops()) + " TFLOP/s";
  }
  return text;
}

std::string SampleSummary(const v1::SampleSeries& series) {
  std::vector<double> ms(series.ms().begin(), series.ms().end());
  if (ms.empty()) return series.variant() + " 0 samples";
  std::sort(ms.begin(), ms.end());
  const double median =
      ms.size() % 2 == 1 ? ms[ms.size() / 2] : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  return series.variant() + " " + std::to_string(ms.size()) + " (min " +
         FormatSignificant(ms.front()) + ", median " + FormatSignificant(median) + ", max " +
         FormatSignificant(ms.back()) + " ms)";
}

}  // namespace

std::string FormatRunDetails(const v1::RunRecord& run) {
  const v1::RunRequest& request = run.request();
  // What other users wrote (the label, the user name, an error quoting
  // them) is shown Printable.
  std::string text = "run " + Printable(run.run_id()) + ": " + RunStatusName(run.status());
  if (!run.error().empty()) text += ": " + Printable(run.error());
  text += "\n";
  text += "user: " + (run.user().empty() ? "-" : Printable(run.user())) + ", peer " +
          (run.peer().empty() ? "-" : Printable(run.peer())) + "\n";
  text += "label: " + (run.label().empty() ? "-" : Printable(run.label())) + "\n";
  text += "accepted " + FormatLocalTime(run.accepted_unix_ms()) + ", started " +
          FormatLocalTime(run.started_unix_ms()) + ", ended " +
          FormatLocalTime(run.ended_unix_ms()) + "\n";
  std::string variants;
  for (const std::string& v : request.variants()) {
    variants += (variants.empty() ? "" : ",") + v;
  }
  text += "request: " + DescribeShape(request) + ", " + DTypeName(request.dtype()) + ", variants " +
          (variants.empty() ? "all" : variants) + ", seed " +
          (request.seed() == 0 ? "server's pick" : std::to_string(request.seed())) + "\n";
  text += "timing: " + Timing(request.timing()) + "\n";
  text += "device: " + (run.has_device() ? Device(run.device()) : std::string("-")) + "\n";
  if (!run.results().empty()) {
    text += "\n" + FormatTable(ReportOf(run));
    text += "verification:\n";
    for (const v1::VariantResult& result : run.results()) {
      const v1::Verification& v = result.verification();
      text += "  " + result.variant() + ": " + (v.passed() ? "passed" : "FAILED") + ", rel err " +
              FormatScientific(v.rel_l2_error()) + " (tolerance " +
              FormatScientific(v.tolerance()) + "), max abs err " +
              FormatScientific(v.max_abs_error()) + ", " + std::to_string(v.elements_checked()) +
              " elements checked" +
              (v.non_finite() > 0 ? ", " + std::to_string(v.non_finite()) + " not finite" : "") +
              (v.method().empty() ? "" : ", " + v.method()) + "\n";
    }
  }
  if (!run.samples().empty()) {
    text += "samples: ";
    for (int i = 0; i < run.samples_size(); ++i) {
      text += (i > 0 ? "; " : "") + SampleSummary(run.samples(i));
    }
    text += " (kbench --json show lists them)\n";
  }
  return text;
}

std::string FormatRunSources(const v1::RunRecord& run) {
  const auto& kernels = run.request().kernels();
  if (kernels.empty()) return "// run " + Printable(run.run_id()) + " has no kernels of its own\n";
  std::string text;
  for (int i = 0; i < kernels.size(); ++i) {
    const v1::KernelSource& k = kernels[i];
    constexpr std::string_view kPrefix = "KERNEL_LANGUAGE_";
    const std::string name = v1::KernelLanguage_Name(k.language());  // "" if unknown
    const std::string language = name.rfind(kPrefix, 0) == 0
                                     ? name.substr(kPrefix.size())
                                     : "language #" + std::to_string(k.language());
    text += "// kernels[" + std::to_string(i) + "] " + Printable(k.name()) + " (" + language +
            ", entry " + Printable(k.entry()) + ")\n" + k.source();
    if (!k.source().empty() && k.source().back() != '\n') text += "\n";
  }
  return text;
}

}  // namespace kbench::client
