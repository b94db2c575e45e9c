#!/usr/bin/env bash
# Configures and builds kbench into BUILD_DIR (default: build), Release.
# KBENCH_CUDA=AUTO|ON|OFF (default AUTO: the CUDA backend is built wherever
# nvcc is found). Extra arguments go to the build (e.g. --target kbench).
# Where ccache is installed it launches the C++ and CUDA compilers, so a
# rebuild after a small change (or a fresh clone on the same machine) reuses
# what was compiled before.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DKBENCH_CUDA="${KBENCH_CUDA:-AUTO}" \
  "${launcher[@]}" >/dev/null
cmake --build "$build_dir" -j"$(nproc)" "$@"
