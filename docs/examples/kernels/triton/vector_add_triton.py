#!/usr/bin/env python3
"""A Triton vector add, compiled ahead of time to PTX for kbench.

    python3 vector_add_triton.py [--out vector_add_triton.ptx] [--block 1024] [--num-warps 4]
    kbench vector-add --n 16777216 --variant naive,vectorized --kernel vector_add_triton.ptx

Triton's AOT compile needs no GPU: this runs on a laptop with `pip install
triton` (Linux, x86-64) and writes the kernel's PTX for sm_90a (the H100 and
H200), with the `// kbench:` line that tells the server how to launch it:
the grid (one program per BLOCK elements), the block (num_warps * 32
threads: a Triton kernel is compiled for exactly that many) and the dynamic
shared memory Triton's compile asked for.

The kernel follows the vector add ABI (docs/KERNELS.md): (a, b, c, n) with
n a 64-bit integer. Triton adds two hidden pointers after them (its global
and profile scratch), which the server passes null; a kernel that needs
global scratch memory (e.g. TMA descriptors made on the device) is refused
here, since the server gives it none.
"""
import argparse
import sys

import triton
import triton.language as tl


@triton.jit
def vector_add_triton(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(axis=0).to(tl.int64) * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    mask = offsets < n  # the tail: the last program may run past n
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, a + b, mask=mask)


def compile_to_ptx(block, num_warps):
    """The compiled kernel (PTX and metadata) for sm_90a, without a GPU."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    source = ASTSource(
        fn=vector_add_triton,
        signature={"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "n": "i64",
                   "BLOCK": "constexpr"},
        constexprs={"BLOCK": block})
    return triton.compile(source, target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": num_warps})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="vector_add_triton.ptx")
    parser.add_argument("--block", type=int, default=1024, help="elements per program")
    parser.add_argument("--num-warps", type=int, default=4)
    args = parser.parse_args()
    kernel = compile_to_ptx(args.block, args.num_warps)
    metadata = kernel.metadata
    if getattr(metadata, "global_scratch_size", 0):
        sys.exit(f"the kernel needs {metadata.global_scratch_size} bytes of global scratch "
                 "memory, which kbench does not give")
    threads = metadata.num_warps * 32
    launch = (f"// kbench: grid=cdiv(n,{args.block}) block={threads} smem={metadata.shared} "
              f"entry={metadata.name}\n")
    with open(args.out, "w") as f:
        f.write(f"// Triton {triton.__version__}, {metadata.name}: BLOCK={args.block}, "
                f"num_warps={metadata.num_warps}\n")
        f.write(launch)
        f.write(kernel.asm["ptx"])
    print(f"wrote {args.out}: {launch.strip()}")


if __name__ == "__main__":
    main()
