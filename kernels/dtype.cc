#include "kernels/dtype.h"

#include <bit>
#include <cmath>

namespace kbench::kernels {

namespace {

constexpr DTypeInfo kDTypes[] = {
    // 24, 11, 8 and 4 significand bits; smallest normals 2^-126, 2^-14,
    // 2^-126 and, for fp8, E4M3's 2^-6 times kFp8InputScale.
    {DType::kFp32, "fp32", 4, 0x1p-24, 0x1p-126},
    {DType::kFp16, "fp16", 2, 0x1p-11, 0x1p-14},
    {DType::kBf16, "bf16", 2, 0x1p-8, 0x1p-126},
    {DType::kFp8, "fp8", 1, 0x1p-4, 0x1p-6 * kFp8InputScale},
};

}  // namespace

const DTypeInfo& InfoOf(DType dtype) {
  for (const DTypeInfo& info : kDTypes)
    if (info.dtype == dtype) return info;
  return kDTypes[0];
}

std::span<const DTypeInfo> AllDTypes() { return kDTypes; }

const char* DTypeName(DType dtype) { return InfoOf(dtype).name; }

int DTypeBytes(DType dtype) { return InfoOf(dtype).bytes; }

std::optional<DType> DTypeNamed(std::string_view name) {
  for (const DTypeInfo& info : kDTypes)
    if (name == info.name) return info.dtype;
  return std::nullopt;
}

float RoundTo(DType dtype, float x) {
  switch (dtype) {
    case DType::kFp32:
      return x;
    case DType::kFp16:
      return HalfBitsToFloat(FloatToHalfBits(x));
    case DType::kBf16:
      return Bf16BitsToFloat(FloatToBf16Bits(x));
    case DType::kFp8:
      return E4M3BitsToFloat(FloatToE4M3Bits(x / kFp8InputScale)) * kFp8InputScale;
  }
  return x;
}

uint8_t FloatToE4M3Bits(float x) {
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  if (std::isnan(x)) return sign | 0x7F;
  const float a = std::fabs(x);
  if (a >= kE4M3Max) return sign | 0x7E;  // 448: saturated (satfinite)
  if (a < 0x1p-6f) {
    // Subnormal: multiples of 2^-9, rounded to nearest even; 8 (2^-6) is
    // the smallest normal's pattern, which follows on.
    return sign | uint8_t(std::nearbyint(a * 0x1p9f));
  }
  int exponent = 0;
  const float mantissa = std::frexp(a, &exponent);  // a = mantissa 2^exponent, [0.5, 1)
  // a = (1 + m / 8) 2^(exponent - 1): m rounded to nearest even; 8 carries.
  const auto m = int(std::nearbyint((mantissa * 2 - 1) * 8));
  const int biased = exponent - 1 + 7 + (m == 8 ? 1 : 0);
  if (biased > 15 || (biased == 15 && m % 8 == 7)) return sign | 0x7E;  // above 448
  return sign | uint8_t(biased << 3) | uint8_t(m % 8);
}

float E4M3BitsToFloat(uint8_t bits) {
  const float sign = (bits & 0x80) ? -1.0f : 1.0f;
  const int exponent = (bits >> 3) & 0xF;
  const int mantissa = bits & 0x7;
  if (exponent == 15 && mantissa == 7) return std::copysign(std::nanf(""), sign);
  if (exponent == 0) return sign * float(mantissa) * 0x1p-9f;
  return sign * std::ldexp(1.0f + float(mantissa) / 8, exponent - 7);
}

uint16_t FloatToBf16Bits(float x) {
  uint32_t u = std::bit_cast<uint32_t>(x);
  if (std::isnan(x)) return uint16_t((u >> 16) | 0x40);
  u += 0x7FFF + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

float Bf16BitsToFloat(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

uint16_t FloatToHalfBits(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  const uint32_t sign = (u >> 16) & 0x8000;
  const uint32_t abs = u & 0x7FFFFFFF;
  if (abs >= 0x7F800000) return uint16_t(sign | 0x7C00 | (abs > 0x7F800000 ? 0x200 : 0));
  if (abs >= 0x477FF000) return uint16_t(sign | 0x7C00);  // rounds to infinity
  if (abs < 0x38800000) {                                 // subnormal or zero in half
    const float f = std::bit_cast<float>(abs);
    // Scale so that one half subnormal unit (2^-24) is 1, round to nearest even.
    const float scaled = f * 16777216.0f;
    const auto r = uint32_t(std::nearbyint(scaled));
    return uint16_t(sign | r);
  }
  uint32_t mant = abs + 0xC8000FFF + ((abs >> 13) & 1);  // rebias 127->15, round
  return uint16_t(sign | (mant >> 13));
}

float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1F;
  const uint32_t mant = h & 0x3FF;
  if (exp == 0) {
    const float f = float(mant) * (1.0f / 16777216.0f);
    return sign ? -f : f;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7F800000 | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

}  // namespace kbench::kernels
