// Who a run belongs to, as the dashboard groups runs: the store keeps it in
// the runs table's learner column (written at Accept), so tallies by
// learner are one GROUP BY.
#pragma once

#include <string>

namespace kbench::server::store {

// The run's user; until identities exist (an empty user) its client's host,
// the peer without its port: "ipv4:127.0.0.1:50312" -> "127.0.0.1",
// "ipv6:[::1]:50312" -> "[::1]"; other peers (unix:...) as they are.
std::string LearnerOf(const std::string& user, const std::string& peer);

}  // namespace kbench::server::store
