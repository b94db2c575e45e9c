#include "client/flag_values.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

#include "absl/status/status.h"
#include "kernels/dtype.h"
#include "proto/ops/dtypes.h"

namespace kbench::client {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// The decimal digits of `text` as a number, or nullopt if `text` is not a
// plain unsigned integer that fits 64 bits.
std::optional<uint64_t> ParseDigits(std::string_view text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// 2^10, 2^20 or 2^30 for a K, M or G suffix (with or without "i"), 1 for no
// suffix, nullopt for anything else.
std::optional<uint64_t> SuffixMultiplier(std::string_view suffix) {
  if (suffix.empty()) return 1;
  if (suffix.size() == 2 && suffix[1] != 'i') return std::nullopt;
  if (suffix.size() > 2) return std::nullopt;
  switch (suffix[0]) {
    case 'K':
    case 'k':
      return uint64_t{1} << 10;
    case 'M':
      return uint64_t{1} << 20;
    case 'G':
      return uint64_t{1} << 30;
    default:
      return std::nullopt;
  }
}

std::optional<uint64_t> ParsePower(std::string_view base_text, std::string_view exponent_text) {
  std::optional<uint64_t> base = ParseDigits(base_text);
  std::optional<uint64_t> exponent = ParseDigits(exponent_text);
  if (!base || !exponent) return std::nullopt;
  uint64_t value = 1;
  for (uint64_t i = 0; i < *exponent && value != 0; ++i) {
    if (*base != 0 && value > kMax / *base) return std::nullopt;
    value *= *base;
  }
  return value;
}

std::optional<uint64_t> ParseWithSuffix(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    ++digits;
  }
  std::optional<uint64_t> number = ParseDigits(text.substr(0, digits));
  std::optional<uint64_t> multiplier = SuffixMultiplier(text.substr(digits));
  if (!number || !multiplier) return std::nullopt;
  if (*number > kMax / *multiplier) return std::nullopt;
  return *number * *multiplier;
}

// For text in exponent notation ("1e9", "5E6": digits either side) whose
// value fits 64 bits, the way to write it as a count ("1000000000 or 10^9",
// "5000000"); nullopt otherwise.
std::optional<std::string> ExponentAsCount(std::string_view text) {
  const size_t e = text.find_first_of("eE");
  if (e == std::string_view::npos) return std::nullopt;
  const std::string_view mantissa = text.substr(0, e), exponent = text.substr(e + 1);
  std::optional<uint64_t> base = ParseDigits(mantissa);
  std::optional<uint64_t> power = ParsePower("10", exponent);
  if (!base || !power || *base == 0 || *base > kMax / *power) return std::nullopt;
  std::string count = std::to_string(*base * *power);
  if (*base == 1) count.append(" or 10^").append(exponent);
  return count;
}

}  // namespace

absl::Status BadValue(std::string_view text, std::string_view advice) {
  std::string message = "'";
  message.append(text).append("' ").append(advice);
  return absl::InvalidArgumentError(message);
}

absl::StatusOr<uint64_t> ParseCount(std::string_view text) {
  const size_t caret = text.find('^');
  std::optional<uint64_t> value = caret == std::string_view::npos
                                      ? ParseWithSuffix(text)
                                      : ParsePower(text.substr(0, caret), text.substr(caret + 1));
  if (!value || *value == 0) {
    if (std::optional<std::string> count = ExponentAsCount(text)) {
      return BadValue(text, "is exponent notation, which a count does not take; write " + *count);
    }
    return BadValue(text,
                    "is not a positive count; use e.g. 1000, 2^28, 1M (= 1Mi "
                    "= 2^20) or 16Mi");
  }
  return *value;
}

absl::StatusOr<std::vector<std::string>> SplitVariantList(std::string_view text) {
  std::vector<std::string> names;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    std::string_view name =
        text.substr(begin, comma == std::string_view::npos ? comma : comma - begin);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.empty()) {
      return BadValue(text,
                      "has an empty variant name; give names separated by "
                      "commas, e.g. naive,fused");
    }
    names.emplace_back(name);
    if (comma == std::string_view::npos) return names;
    begin = comma + 1;
  }
}

absl::StatusOr<v1::DType> ParseDType(std::string_view text) {
  if (std::optional<kernels::DType> dtype = kernels::DTypeNamed(text)) {
    return proto::ops::ToProto(*dtype);
  }
  return BadValue(text, "is not a dtype; use " + DTypeChoices());
}

std::string DTypeName(v1::DType dtype) { return proto::ops::DTypeText(dtype); }

std::string DTypeChoices() {
  const std::span<const kernels::DTypeInfo> all = kernels::AllDTypes();
  std::string text;
  for (size_t i = 0; i < all.size(); ++i) {
    if (i > 0) text += i + 1 == all.size() ? " or " : ", ";
    text += all[i].name;
  }
  return text;
}

absl::Status CheckServerAddress(std::string_view address) {
  constexpr char kForm[] = "; give HOST:PORT, e.g. localhost:50051";
  if (address.empty()) return BadValue(address, std::string("is empty") + kForm);
  for (std::string_view scheme : {"dns:", "ipv4:", "ipv6:", "unix:", "unix-abstract:", "vsock:"}) {
    if (address.substr(0, scheme.size()) == scheme) return absl::OkStatus();
  }
  if (address.find("://") != std::string_view::npos) {
    return BadValue(address, std::string("is a URL; kbench speaks gRPC, so leave out "
                                         "the scheme") +
                                 kForm);
  }
  const size_t colon = address.rfind(':');
  const size_t bracket = address.rfind(']');
  if (colon == std::string_view::npos || (bracket != std::string_view::npos && colon < bracket)) {
    return BadValue(address, std::string("has no port") + kForm);
  }
  std::string_view host = address.substr(0, colon);
  const std::string_view port = address.substr(colon + 1);
  const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (bracketed) host = host.substr(1, host.size() - 2);
  if (host.empty()) {
    return BadValue(address, std::string("has no host") + kForm);
  }
  if (!bracketed && host.find(':') != std::string_view::npos) {
    return BadValue(address,
                    "has more than one ':'; write an IPv6 address in "
                    "brackets, e.g. [::1]:50051");
  }
  for (char c : host) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
                         (bracketed && c == ':');
    if (!allowed) {
      return BadValue(address,
                      "has a host, '" + std::string(host) + "', with a character no host name has");
    }
  }
  const std::optional<uint64_t> port_number = ParseDigits(port);
  if (!port_number || *port_number == 0 || *port_number > 65535) {
    return BadValue(address,
                    "has port '" + std::string(port) + "'; a port is a number from 1 to 65535");
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::TimingMode> ParseTimingMode(std::string_view text) {
  if (text == "cold") return v1::TIMING_MODE_COLD;
  if (text == "hot") return v1::TIMING_MODE_HOT;
  return BadValue(text, "is not a timing mode; use cold or hot");
}

absl::StatusOr<double> CheckAmount(double value, bool positive) {
  if (!std::isfinite(value)) {
    return absl::InvalidArgumentError("must be a finite number, got " + std::to_string(value));
  }
  if (value < 0 || (positive && value == 0)) {
    return absl::InvalidArgumentError(positive ? "must be more than 0" : "must be 0 or more");
  }
  return value;
}

absl::StatusOr<double> ParseAmount(std::string_view text, bool positive) {
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size()) {
    return BadValue(text, "is not a number");
  }
  return CheckAmount(value, positive);
}

absl::StatusOr<uint32_t> ParseUint32(std::string_view text) {
  const std::optional<uint64_t> value = ParseDigits(text);
  if (!value || *value > std::numeric_limits<uint32_t>::max()) {
    return BadValue(text, "is not a whole number from 0 to 4294967295");
  }
  return static_cast<uint32_t>(*value);
}

std::string_view TimingModeName(v1::TimingMode mode) {
  switch (mode) {
    case v1::TIMING_MODE_COLD:
      return "cold";
    case v1::TIMING_MODE_HOT:
      return "hot";
    default:
      return "default";
  }
}

}  // namespace kbench::client
