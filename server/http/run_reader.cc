#include "server/http/run_reader.h"

#include <algorithm>
#include <utility>

#include "kernels/common/status_macros.h"

namespace kbench::server::http {

absl::StatusOr<RunSet> ReadRuns(store::RunStore& store, v1::ListRunsRequest filter,
                                size_t max_runs) {
  constexpr size_t kPageSize = 500;  // the store's largest page
  RunSet set;
  filter.clear_page_token();
  while (true) {
    filter.set_page_size(
        static_cast<uint32_t>(std::min(kPageSize, max_runs - set.runs.size() + 1)));
    KBENCH_ASSIGN_OR_RETURN(v1::ListRunsResponse page, store.List(filter, store::Samples::kOmit));
    for (v1::RunRecord& run : *page.mutable_runs()) {
      if (set.runs.size() == max_runs) {
        set.truncated = true;
        return set;
      }
      set.runs.push_back(std::move(run));
    }
    if (page.next_page_token().empty()) return set;
    filter.set_page_token(page.next_page_token());
  }
}

}  // namespace kbench::server::http
