#!/usr/bin/env bash
# Configures and builds kbench into BUILD_DIR (default: build), Release.
# KBENCH_CUDA=AUTO|ON|OFF (default AUTO: the CUDA backend is built wherever
# nvcc is found). Extra arguments go to the build (e.g. --target kbench).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DKBENCH_CUDA="${KBENCH_CUDA:-AUTO}" >/dev/null
cmake --build "$build_dir" -j"$(nproc)" "$@"
