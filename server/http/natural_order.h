// The order a person reads problems in: runs of digits compare by their
// value, so "n=2000" comes before "n=10000" (a string order puts it after).
#pragma once

#include <string_view>

namespace kbench::server::http {

// True when `a` comes before `b`: text compares byte by byte, a run of
// digits by its numeric value (then by length, so "07" after "7"), and a
// string that is a prefix of the other comes first.
bool NaturalLess(std::string_view a, std::string_view b);

}  // namespace kbench::server::http
