// The kernels' element types: DTypeOf<T>, and the device conversions
// between them and fp32, the one place .cu files take them from:
// ToFloat<T>(T) widens exactly, and FromFloat<T>(float) rounds to nearest
// even, as kernels/dtype.h rounds on the host. T is float, __half,
// __nv_bfloat16 or __nv_fp8_e4m3 (kernels/dtype.h's fp32, fp16, bf16 and
// fp8); another T has no definition and fails to build. An fp8 element's
// value is its E4M3 value times kFp8InputScale (kernels/dtype.h): ToFloat
// multiplies by it, FromFloat divides by it and saturates to +-448 as
// cvt.rn.satfinite does. Device only, no state: safe from any thread.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <type_traits>

#include "kernels/dtype.h"

namespace kbench::kernels::cuda {

// The DType of element type T (host and device).
template <typename T>
constexpr DType DTypeOf() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, __half> ||
                    std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __nv_fp8_e4m3>,
                "an element type of kernels/dtype.h");
  return std::is_same_v<T, float>           ? DType::kFp32
         : std::is_same_v<T, __half>        ? DType::kFp16
         : std::is_same_v<T, __nv_bfloat16> ? DType::kBf16
                                            : DType::kFp8;
}

template <typename T>
__device__ __forceinline__ float ToFloat(T x);
template <>
__device__ __forceinline__ float ToFloat<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ float ToFloat<__half>(__half x) {
  return __half2float(x);
}
template <>
__device__ __forceinline__ float ToFloat<__nv_bfloat16>(__nv_bfloat16 x) {
  return __bfloat162float(x);
}

template <>
__device__ __forceinline__ float ToFloat<__nv_fp8_e4m3>(__nv_fp8_e4m3 x) {
  return float(x) * kFp8InputScale;
}

template <typename T>
__device__ __forceinline__ T FromFloat(float x);
template <>
__device__ __forceinline__ float FromFloat<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __half FromFloat<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <>
__device__ __forceinline__ __nv_fp8_e4m3 FromFloat<__nv_fp8_e4m3>(float x) {
  __nv_fp8_e4m3 out;
  out.__x = __nv_cvt_float_to_fp8(x / kFp8InputScale, __NV_SATFINITE, __NV_E4M3);
  return out;
}

}  // namespace kbench::kernels::cuda
