// Element types: the one table of their names and sizes (server, client
// and tools all read it), their rounding on the host, and the tolerance a
// result of each type is held to (relative L2 error against a double
// reference).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace kbench::kernels {

// The values are those of the API's kbench.v1.DType (server/ops/dtypes.h
// checks that they agree).
enum class DType { kFp32 = 1, kFp16 = 2, kBf16 = 3 };

struct DTypeInfo {
  DType dtype;
  const char* name;  // as the API, the CLI and the reports spell it
  int bytes;
};

// Every dtype, in the order they are listed to users.
std::span<const DTypeInfo> AllDTypes();

const char* DTypeName(DType dtype);
int DTypeBytes(DType dtype);
// The dtype named `name` ("fp32", "fp16", "bf16"), or nullopt.
std::optional<DType> DTypeNamed(std::string_view name);

// Relative L2 tolerance: fp32 1e-5 (2e-5 for attention, whose softmax sums
// N terms), fp16 and bf16 1e-2.
double Tolerance(DType dtype, bool attention);

// Rounds x to the nearest value representable in dtype (round to nearest
// even), returned as float: what a kernel of that dtype reads.
float RoundTo(DType dtype, float x);

// IEEE binary16 and bfloat16 bit patterns, round to nearest even.
uint16_t FloatToHalfBits(float x);
float HalfBitsToFloat(uint16_t h);
uint16_t FloatToBf16Bits(float x);
float Bf16BitsToFloat(uint16_t b);

}  // namespace kbench::kernels
