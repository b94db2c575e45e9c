#!/usr/bin/env bash
# The test job: installs what is missing, builds everything (the CUDA code
# too, wherever nvcc is found, so that it must compile), and runs every test
# with ctest. Tests labelled gpu skip, visibly, without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build} scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure --timeout 600
