// Element types: the one table of their names, sizes and rounding facts
// (server, client and tools all read it), and their rounding on the host.
// What an op's result is held to follows from these facts
// (kernels/tolerances.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#if __cplusplus >= 202002L
#include <span>
#endif

namespace kbench::kernels {

// The values are those of the API's kbench.v1.DType (proto/ops/dtypes.h
// checks that they agree).
enum class DType { kFp32 = 1, kFp16 = 2, kBf16 = 3, kFp8 = 4 };

// fp8 is OCP FP8 E4M3 (1 sign, 4 exponent bits of bias 7, 3 mantissa bits;
// no infinities, largest finite 448) with a per-tensor scale: a tensor's
// real values are its E4M3 values times its scale. The seeded inputs, in
// [-1, 1), take this scale, a power of two, so the products of E4M3 values
// and scales are exact in fp32 and the E4M3 range is not exceeded (|x| /
// scale < 256 <= 448).
inline constexpr float kFp8InputScale = 0x1p-8f;
inline constexpr float kE4M3Max = 448.0f;

struct DTypeInfo {
  DType dtype;
  const char* name;  // as the API, the CLI and the reports spell it
  int bytes;
  // Unit roundoff u = 2^-p for p significand bits (with the implicit bit):
  // round to nearest makes |fl(x) - x| <= u |x| for x in the normal range.
  double unit_roundoff;
  // The smallest normal magnitude: below it rounding is absolute (subnormal
  // spacing), or a kernel may flush to zero. fp8: of the real values (the
  // E4M3 value's times kFp8InputScale).
  double min_normal;
};

#if __cplusplus >= 202002L
// Every dtype, in the order they are listed to users. (Host C++20 only:
// device code is compiled as C++17, which has no std::span.)
std::span<const DTypeInfo> AllDTypes();
#endif

const char* DTypeName(DType dtype);
int DTypeBytes(DType dtype);
// The dtype named `name` ("fp32", "fp16", "bf16", "fp8"), or nullopt.
std::optional<DType> DTypeNamed(std::string_view name);

// The table entry of `dtype`.
const DTypeInfo& InfoOf(DType dtype);

// Rounds x to the nearest value representable in dtype (round to nearest
// even), returned as float: what a kernel of that dtype reads (fp8: the
// E4M3 value of x / kFp8InputScale, times that scale).
float RoundTo(DType dtype, float x);

// IEEE binary16 and bfloat16 bit patterns, round to nearest even.
uint16_t FloatToHalfBits(float x);
float HalfBitsToFloat(uint16_t h);
uint16_t FloatToBf16Bits(float x);
float Bf16BitsToFloat(uint16_t b);
// OCP E4M3 bit patterns, round to nearest even, saturating to +-kE4M3Max as
// the device's cvt.rn.satfinite does (infinities too); NaN stays NaN (0x7F
// with the sign).
uint8_t FloatToE4M3Bits(float x);
float E4M3BitsToFloat(uint8_t bits);

}  // namespace kbench::kernels
