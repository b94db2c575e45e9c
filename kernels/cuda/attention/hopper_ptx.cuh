// Hopper (sm_90a) device helpers of the wgmma attention kernel
// (attention_fused_wgmma.cu): the tensor copy engine (TMA) into shared
// memory, mbarriers, warpgroup matrix multiply-accumulate (wgmma) with its
// shared-memory descriptors, register reallocation (setmaxnreg) and named
// barriers. Each PTX instruction is wrapped once here.
//
// Shared-memory tiles are written by TMA with 128-byte swizzle: a box of
// [rows][64] 16-bit elements is rows of 128 bytes, whose 16-byte chunk c
// of row r lands at chunk c ^ (r % 8); the tile base is 1024-byte aligned.
// A head dim of 64 * k columns is k such boxes one after the other. An fp8
// box is [rows][128] 8-bit elements: the same 128-byte rows, so the same
// descriptors with offsets in bytes. wgmma
// reads the same swizzle through its descriptor (layout type 1):
//   K-major operand (Q and K for S = Q K^T: rows of the contracted dim):
//     start = box + (k / 64) * box_bytes + (k % 64) * 2, SBO = 1024 (the
//     next 8 rows), LBO unused.
//   MN-major operand (V for O = P V: rows are the contracted dim, the
//     columns the output's): start = box + k_row * 128, SBO = 1024 (the
//     next 8 contracted rows), LBO = box_bytes (the next 64 columns), with
//     the transpose flag.
// Fragment layout of the fp32 accumulator of m64nNk16, thread t of the
// warpgroup (w = t / 32, g = t % 32 / 4, q = t % 4): element 4 n + 2 h + e
// is row 16 w + g + 8 h, column 8 n + 2 q + e. The A operand from registers
// (16-bit, m64k16) is 4 registers of 2 elements laid out as mma.sync's A
// (attention_ptx.cuh) for rows 16 w..16 w + 15, so the accumulators of S
// columns 16 k..16 k + 15 packed pairwise are P's A operand for k-step k.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace kbench::kernels::cuda::hopper {

// ---- mbarriers --------------------------------------------------------------

__device__ __forceinline__ void BarrierInit(uint32_t bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}
// Makes barrier initialisation visible to the copy engine (then a block
// barrier makes it visible to the other threads).
__device__ __forceinline__ void BarrierInitFence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void BarrierArrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Arrives and tells the barrier to expect `bytes` more from the copy engine.
__device__ __forceinline__ void BarrierArriveExpect(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
// Waits until the phase of parity `parity` has completed. A fresh barrier
// counts as having completed the phase before its first (parity 1), so a
// producer's first wait on an empty slot passes.
__device__ __forceinline__ void BarrierWait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{\n.reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  }
}

// A place in a pipeline of kStages slots, 0 to 2 kStages - 1: its slot,
// and the parity of the slot's barriers' current phase. Both sides step it
// once a tile from the start of the kernel.
template <int kStages>
struct PipeSlot {
  int place = 0;
  __device__ int Slot() const { return place < kStages ? place : place - kStages; }
  __device__ uint32_t Phase() const { return place < kStages ? 0 : 1; }
  __device__ PipeSlot Next() const { return {place + 1 == 2 * kStages ? 0 : place + 1}; }
  __device__ PipeSlot Prev() const { return {place == 0 ? 2 * kStages - 1 : place - 1}; }
};

// ---- the tensor copy engine -------------------------------------------------

// Copies the box at coordinates (c0 innermost, c1, c2) of the tensor map at
// generic address `map` (a __grid_constant__ kernel parameter) into shared
// `dst`, completing `bytes` (the whole box, zero fill included) on `bar`.
// Elements outside the tensor arrive as zeros.
__device__ __forceinline__ void TmaLoad3d(uint32_t dst, const void* map, uint32_t bar, int c0,
                                          int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
__device__ __forceinline__ void TmaPrefetchMap(const void* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// ---- registers and named barriers -------------------------------------------

template <int kRegs>
__device__ __forceinline__ void RegAlloc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void RegDealloc() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
// Barrier `id` (1..15; 0 is __syncthreads) among `threads` threads.
__device__ __forceinline__ void NamedBarrierSync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void NamedBarrierArrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// ---- wgmma ------------------------------------------------------------------

// Descriptor of a 128-byte-swizzled shared-memory operand (see the top).
__device__ __forceinline__ uint64_t Descriptor(uint32_t start, uint32_t lbo, uint32_t sbo) {
  return uint64_t((start & 0x3FFFF) >> 4) | uint64_t((lbo & 0x3FFFF) >> 4) << 16 |
         uint64_t((sbo & 0x3FFFF) >> 4) << 32 | uint64_t(1) << 62;
}

// Makes this thread's ordinary stores to shared memory visible to the
// async proxy (wgmma, the copy engine) that reads it next; a block barrier
// after it covers the other threads' stores.
__device__ __forceinline__ void FenceProxyAsync() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
// Orders this thread's register writes before the warpgroup's next wgmma.
__device__ __forceinline__ void WgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void WgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
// Waits until at most kPending committed groups are in flight.
template <int kPending>
__device__ __forceinline__ void WgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
// Keeps the compiler from moving reads or writes of `r` across a wgmma
// wait or issue (it cannot see that wgmma writes asynchronously).
template <int kN>
__device__ __forceinline__ void FenceRegisters(float (&r)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(r[i])::"memory");
}

// D (64 x kN, fp32) = A B + (scale_d ? D : 0), both operands K-major in
// shared memory (descriptors a, b). T: __half or __nv_bfloat16.
template <typename T, int kN>
__device__ __forceinline__ void WgmmaSS(float (&d)[kN / 2], uint64_t a, uint64_t b, int scale_d);
// D (64 x kN, fp32) = A B + (scale_d ? D : 0), A from registers, B
// MN-major in shared memory.
template <typename T, int kN>
__device__ __forceinline__ void WgmmaRS(float (&d)[kN / 2], const uint32_t (&a)[4], uint64_t b,
                                        int scale_d);

// The D registers of a wgmma with 8 r of them, "{%0,...,%(8 r - 1)}":
// KB_R<g> names operands 8 g to 8 g + 7, KB_RS<r> the first r groups.
#define KB_R0 "%0,%1,%2,%3,%4,%5,%6,%7"
#define KB_R1 "%8,%9,%10,%11,%12,%13,%14,%15"
#define KB_R2 "%16,%17,%18,%19,%20,%21,%22,%23"
#define KB_R3 "%24,%25,%26,%27,%28,%29,%30,%31"
#define KB_R4 "%32,%33,%34,%35,%36,%37,%38,%39"
#define KB_R5 "%40,%41,%42,%43,%44,%45,%46,%47"
#define KB_R6 "%48,%49,%50,%51,%52,%53,%54,%55"
#define KB_R7 "%56,%57,%58,%59,%60,%61,%62,%63"
#define KB_R8 "%64,%65,%66,%67,%68,%69,%70,%71"
#define KB_R9 "%72,%73,%74,%75,%76,%77,%78,%79"
#define KB_R10 "%80,%81,%82,%83,%84,%85,%86,%87"
#define KB_R11 "%88,%89,%90,%91,%92,%93,%94,%95"
#define KB_R12 "%96,%97,%98,%99,%100,%101,%102,%103"
#define KB_R13 "%104,%105,%106,%107,%108,%109,%110,%111"
#define KB_R14 "%112,%113,%114,%115,%116,%117,%118,%119"
#define KB_R15 "%120,%121,%122,%123,%124,%125,%126,%127"
#define KB_RS1 KB_R0
#define KB_RS2 KB_RS1 "," KB_R1
#define KB_RS3 KB_RS2 "," KB_R2
#define KB_RS4 KB_RS3 "," KB_R3
#define KB_RS5 KB_RS4 "," KB_R4
#define KB_RS6 KB_RS5 "," KB_R5
#define KB_RS7 KB_RS6 "," KB_R6
#define KB_RS8 KB_RS7 "," KB_R7
#define KB_RS9 KB_RS8 "," KB_R8
#define KB_RS10 KB_RS9 "," KB_R9
#define KB_RS11 KB_RS10 "," KB_R10
#define KB_RS12 KB_RS11 "," KB_R11
#define KB_RS13 KB_RS12 "," KB_R12
#define KB_RS14 KB_RS13 "," KB_R13
#define KB_RS15 KB_RS14 "," KB_R14
#define KB_RS16 KB_RS15 "," KB_R15
#define KB_WGMMA_D8 "{" KB_RS1 "}"
#define KB_WGMMA_D16 "{" KB_RS2 "}"
#define KB_WGMMA_D24 "{" KB_RS3 "}"
#define KB_WGMMA_D32 "{" KB_RS4 "}"
#define KB_WGMMA_D40 "{" KB_RS5 "}"
#define KB_WGMMA_D48 "{" KB_RS6 "}"
#define KB_WGMMA_D56 "{" KB_RS7 "}"
#define KB_WGMMA_D64 "{" KB_RS8 "}"
#define KB_WGMMA_D72 "{" KB_RS9 "}"
#define KB_WGMMA_D80 "{" KB_RS10 "}"
#define KB_WGMMA_D88 "{" KB_RS11 "}"
#define KB_WGMMA_D112 "{" KB_RS14 "}"
#define KB_WGMMA_D128 "{" KB_RS16 "}"
#define KB_F8(i)                                                                              \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define KB_F16 KB_F8(0), KB_F8(8)
#define KB_F24 KB_F16, KB_F8(16)
#define KB_F32 KB_F24, KB_F8(24)
#define KB_F40 KB_F32, KB_F8(32)
#define KB_F48 KB_F40, KB_F8(40)
#define KB_F56 KB_F48, KB_F8(48)
#define KB_F64 KB_F56, KB_F8(56)
#define KB_F72 KB_F64, KB_F8(64)
#define KB_F80 KB_F72, KB_F8(72)
#define KB_F88 KB_F80, KB_F8(80)
#define KB_F96 KB_F88, KB_F8(88)
#define KB_F104 KB_F96, KB_F8(96)
#define KB_F112 KB_F104, KB_F8(104)
#define KB_F120 KB_F112, KB_F8(112)
#define KB_F128 KB_F120, KB_F8(120)

// One specialisation each of (dtype, N): D registers, then the operands.
// %P is scale_d (a predicate), numbered after D's registers.
#define KB_WGMMA_SS(T, TY, N, DREGS, DOUT, A, B, P)                                             \
  template <>                                                                                   \
  __device__ __forceinline__ void WgmmaSS<T, N>(float(&d)[N / 2], uint64_t a, uint64_t b,       \
                                                int scale_d) {                                  \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #P                                        \
                 ", 0;\n"                                                                       \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TY "." TY " " DREGS ", %" #A \
                 ", %" #B ", p, 1, 1, 0, 0;\n}\n"                                               \
                 : DOUT                                                                         \
                 : "l"(a), "l"(b), "r"(scale_d));                                               \
  }
#define KB_WGMMA_RS(T, TY, N, DREGS, DOUT, A0, A1, A2, A3, B, P)                                  \
  template <>                                                                                     \
  __device__ __forceinline__ void WgmmaRS<T, N>(float(&d)[N / 2], const uint32_t(&a)[4],          \
                                                uint64_t b, int scale_d) {                        \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #P                                          \
                 ", 0;\n"                                                                         \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TY "." TY " " DREGS ", {%" #A0 \
                 ",%" #A1 ",%" #A2 ",%" #A3 "}, %" #B ", p, 1, 1, 1;\n}\n"                        \
                 : DOUT                                                                           \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d));             \
  }

// S = Q K^T over a tile of N keys: every multiple of 16 up to 176 (a short
// first tile of 176-key tiles is computed over its keys alone).
KB_WGMMA_SS(__half, "f16", 16, KB_WGMMA_D8, KB_F8(0), 8, 9, 10)
KB_WGMMA_SS(__nv_bfloat16, "bf16", 16, KB_WGMMA_D8, KB_F8(0), 8, 9, 10)
KB_WGMMA_SS(__half, "f16", 32, KB_WGMMA_D16, KB_F16, 16, 17, 18)
KB_WGMMA_SS(__nv_bfloat16, "bf16", 32, KB_WGMMA_D16, KB_F16, 16, 17, 18)
KB_WGMMA_SS(__half, "f16", 48, KB_WGMMA_D24, KB_F24, 24, 25, 26)
KB_WGMMA_SS(__nv_bfloat16, "bf16", 48, KB_WGMMA_D24, KB_F24, 24, 25, 26)
KB_WGMMA_SS(__half, "f16", 64, KB_WGMMA_D32, KB_F32, 32, 33, 34)
KB_WGMMA_SS(__nv_bfloat16, "bf16", 64, KB_WGMMA_D32, KB_F32, 32, 33, 34)
KB_WGMMA_SS(__half, "f16", 80, KB_WGMMA_D40, KB_F40, 40, 41, 42)
KB_WGMMA_SS(__nv_bfloat16, "bf16", 80, KB_WGMMA_D40, KB_F40, 40, 41, 42)
KB_WGMMA_SS(__half, "f16", 96, KB_WGMMA_D48, KB_F48, 48, 49, 50)
KB_WGMMA_SS(__nv_bfloat16, "bf16", 96, KB_WGMMA_D48, KB_F48, 48, 49, 50)
KB_WGMMA_SS(__half, "f16", 112, KB_WGMMA_D56, KB_F56, 56, 57, 58)
KB_WGMMA_SS(__nv_bfloat16, "bf16", 112, KB_WGMMA_D56, KB_F56, 56, 57, 58)
KB_WGMMA_SS(__half, "f16", 128, KB_WGMMA_D64, KB_F64, 64, 65, 66)
KB_WGMMA_SS(__nv_bfloat16, "bf16", 128, KB_WGMMA_D64, KB_F64, 64, 65, 66)
KB_WGMMA_SS(__half, "f16", 144, KB_WGMMA_D72, KB_F72, 72, 73, 74)
KB_WGMMA_SS(__nv_bfloat16, "bf16", 144, KB_WGMMA_D72, KB_F72, 72, 73, 74)
KB_WGMMA_SS(__half, "f16", 160, KB_WGMMA_D80, KB_F80, 80, 81, 82)
KB_WGMMA_SS(__nv_bfloat16, "bf16", 160, KB_WGMMA_D80, KB_F80, 80, 81, 82)
KB_WGMMA_SS(__half, "f16", 176, KB_WGMMA_D88, KB_F88, 88, 89, 90)
KB_WGMMA_SS(__nv_bfloat16, "bf16", 176, KB_WGMMA_D88, KB_F88, 88, 89, 90)
KB_WGMMA_RS(__half, "f16", 64, KB_WGMMA_D32, KB_F32, 32, 33, 34, 35, 36, 37)
KB_WGMMA_RS(__nv_bfloat16, "bf16", 64, KB_WGMMA_D32, KB_F32, 32, 33, 34, 35, 36, 37)
KB_WGMMA_RS(__half, "f16", 96, KB_WGMMA_D48, KB_F48, 48, 49, 50, 51, 52, 53)
KB_WGMMA_RS(__nv_bfloat16, "bf16", 96, KB_WGMMA_D48, KB_F48, 48, 49, 50, 51, 52, 53)
KB_WGMMA_RS(__half, "f16", 128, KB_WGMMA_D64, KB_F64, 64, 65, 66, 67, 68, 69)
KB_WGMMA_RS(__nv_bfloat16, "bf16", 128, KB_WGMMA_D64, KB_F64, 64, 65, 66, 67, 68, 69)
KB_WGMMA_RS(__half, "f16", 256, KB_WGMMA_D128, KB_F128, 128, 129, 130, 131, 132, 133)
KB_WGMMA_RS(__nv_bfloat16, "bf16", 256, KB_WGMMA_D128, KB_F128, 128, 129, 130, 131, 132, 133)

// FP8 (OCP E4M3) with k32 (attention_fused_fp8.cu): 8-bit operands must both
// be K-major, so there is no transpose flag. D (64 x kN, fp32) = A B +
// (scale_d ? D : 0): WgmmaSSFp8 reads both from shared memory; WgmmaRSFp8
// takes A from registers, 4 registers of 4 elements laid out as mma.sync's
// m16n8k32 A for rows 16 w..16 w + 15 (thread g, q: register 0 row g,
// k 4 q..4 q + 3, lowest byte first; register 1 row g + 8, the same k;
// registers 2 and 3 the same at k + 16).
template <int kN>
__device__ __forceinline__ void WgmmaSSFp8(float (&d)[kN / 2], uint64_t a, uint64_t b, int scale_d);
template <int kN>
__device__ __forceinline__ void WgmmaRSFp8(float (&d)[kN / 2], const uint32_t (&a)[4], uint64_t b,
                                           int scale_d);
#define KB_WGMMA_SS_FP8(N, DREGS, DOUT, A, B, P)                                            \
  template <>                                                                               \
  __device__ __forceinline__ void WgmmaSSFp8<N>(float(&d)[N / 2], uint64_t a, uint64_t b,   \
                                                int scale_d) {                              \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #P                                    \
                 ", 0;\n"                                                                   \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32.e4m3.e4m3 " DREGS ", %" #A \
                 ", %" #B ", p, 1, 1;\n}\n"                                                 \
                 : DOUT                                                                     \
                 : "l"(a), "l"(b), "r"(scale_d));                                           \
  }
#define KB_WGMMA_RS_FP8(N, DREGS, DOUT, A0, A1, A2, A3, B, P)                                 \
  template <>                                                                                 \
  __device__ __forceinline__ void WgmmaRSFp8<N>(float(&d)[N / 2], const uint32_t(&a)[4],      \
                                                uint64_t b, int scale_d) {                    \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #P                                      \
                 ", 0;\n"                                                                     \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32.e4m3.e4m3 " DREGS ", {%" #A0 \
                 ",%" #A1 ",%" #A2 ",%" #A3 "}, %" #B ", p, 1, 1;\n}\n"                       \
                 : DOUT                                                                       \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d));         \
  }
KB_WGMMA_SS_FP8(128, KB_WGMMA_D64, KB_F64, 64, 65, 66)
KB_WGMMA_SS_FP8(224, KB_WGMMA_D112, KB_F112, 112, 113, 114)
KB_WGMMA_RS_FP8(128, KB_WGMMA_D64, KB_F64, 64, 65, 66, 67, 68, 69)
#undef KB_WGMMA_SS_FP8
#undef KB_WGMMA_RS_FP8

#undef KB_WGMMA_SS
#undef KB_WGMMA_RS
#undef KB_F128
#undef KB_F120
#undef KB_F112
#undef KB_F104
#undef KB_F96
#undef KB_F88
#undef KB_F80
#undef KB_F72
#undef KB_F64
#undef KB_F56
#undef KB_F48
#undef KB_F40
#undef KB_F32
#undef KB_F24
#undef KB_F16
#undef KB_F8
#undef KB_WGMMA_D128
#undef KB_WGMMA_D112
#undef KB_WGMMA_D88
#undef KB_WGMMA_D80
#undef KB_WGMMA_D72
#undef KB_WGMMA_D64
#undef KB_WGMMA_D56
#undef KB_WGMMA_D48
#undef KB_WGMMA_D40
#undef KB_WGMMA_D32
#undef KB_WGMMA_D24
#undef KB_WGMMA_D16
#undef KB_WGMMA_D8
#undef KB_R0
#undef KB_RS1
#undef KB_RS2
#undef KB_RS3
#undef KB_RS4
#undef KB_RS5
#undef KB_RS6
#undef KB_RS7
#undef KB_RS8
#undef KB_RS9
#undef KB_RS10
#undef KB_RS11
#undef KB_RS12
#undef KB_RS13
#undef KB_RS14
#undef KB_RS15
#undef KB_RS16
#undef KB_R1
#undef KB_R2
#undef KB_R3
#undef KB_R4
#undef KB_R5
#undef KB_R6
#undef KB_R7
#undef KB_R8
#undef KB_R9
#undef KB_R10
#undef KB_R11
#undef KB_R12
#undef KB_R13
#undef KB_R14
#undef KB_R15

}  // namespace kbench::kernels::cuda::hopper
