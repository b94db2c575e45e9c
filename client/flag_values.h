// Parsers for command-line values that CLI11 cannot check by itself. Each
// returns INVALID_ARGUMENT with a message that quotes the bad text; the
// caller prefixes the flag's name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

// INVALID_ARGUMENT "'<text>' <advice>": how every parser here refuses text.
absl::Status BadValue(std::string_view text, std::string_view advice);

// A positive element count: a plain integer ("1000"), a power ("2^28"), or an
// integer with a binary suffix: K or Ki = 2^10, M or Mi = 2^20, G or Gi =
// 2^30 ("1M" and "1Mi" are both 1048576). Zero, negatives, overflow of 64
// bits and anything else are refused; exponent notation ("1e9") is refused
// with the count written out.
absl::StatusOr<uint64_t> ParseCount(std::string_view text);

// A comma-separated list of variant names, e.g. "naive, fused" gives
// {"naive", "fused"}. Spaces around names are dropped; an empty name
// ("naive,,fused", "") is refused.
absl::StatusOr<std::vector<std::string>> SplitVariantList(std::string_view text);

// A dtype by its name in the one dtype table (kernels/dtype.h): "fp32",
// "fp16", "bf16".
absl::StatusOr<v1::DType> ParseDType(std::string_view text);

// The name ParseDType accepts; DTYPE_UNSPECIFIED, the request default, is
// "fp32".
std::string DTypeName(v1::DType dtype);

// Every dtype name, for help and errors: "fp32, fp16 or bf16".
std::string DTypeChoices();

// OK when `address` can name a server: HOST:PORT (a host name, an IPv4
// address, or an IPv6 address in brackets, and a port from 1 to 65535), or
// a gRPC target with a scheme (dns:, ipv4:, ipv6:, unix:, unix-abstract:,
// vsock:), which gRPC itself checks. Else INVALID_ARGUMENT saying what is
// wrong: empty, no port, a bad port, a URL scheme, characters no host has.
absl::Status CheckServerAddress(std::string_view address);

// "cold" or "hot".
absl::StatusOr<v1::TimingMode> ParseTimingMode(std::string_view text);

// `value` if it is a finite number of at least 0 (above 0 if `positive`);
// else INVALID_ARGUMENT: "must be a finite number, got nan", "must be 0 or
// more", "must be more than 0".
absl::StatusOr<double> CheckAmount(double value, bool positive);

// A decimal number ("0.005", "200", "1e3") checked as CheckAmount does.
absl::StatusOr<double> ParseAmount(std::string_view text, bool positive);

// A plain unsigned integer that fits 32 bits, 0 included ("0", "7").
absl::StatusOr<uint32_t> ParseUint32(std::string_view text);

// "cold", "hot", or "default" for TIMING_MODE_UNSPECIFIED.
std::string_view TimingModeName(v1::TimingMode mode);

}  // namespace kbench::client
