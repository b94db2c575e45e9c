#include "kernels/dtype.h"

#include <bit>
#include <cmath>

namespace kbench::kernels {

namespace {

constexpr DTypeInfo kDTypes[] = {
    // 24, 11 and 8 significand bits; smallest normals 2^-126, 2^-14, 2^-126.
    {DType::kFp32, "fp32", 4, 0x1p-24, 0x1p-126},
    {DType::kFp16, "fp16", 2, 0x1p-11, 0x1p-14},
    {DType::kBf16, "bf16", 2, 0x1p-8, 0x1p-126},
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
  }
  return x;
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
