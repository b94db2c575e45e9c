#!/usr/bin/env bash
# Installs the Debian 12 packages kbench builds and tests with, only those
# missing. Needs root or sudo when something is missing. CUDA (nvcc) is
# optional: without it the build leaves the CUDA backend out.
#
#   scripts/install-deps.sh          everything: build, tests (PostgreSQL 15,
#                                    Chromium and ChromeDriver for the
#                                    dashboard's page tests, clang-format for
#                                    the style check, GoogleTest, python3-yaml, the
#                                    openssl CLI for the TLS test's certificates,
#                                    python3-grpcio and python3-protobuf for the
#                                    Python client's test)
#   scripts/install-deps.sh build    what the server and client build needs
#                                    (the container images use this)
#   scripts/install-deps.sh client   what the client-only build needs
set -euo pipefail
scope=${1:-all}
client=(
  build-essential cmake pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev
)
server=(
  libsqlite3-dev libpqxx-dev libcpp-httplib-dev prometheus-cpp-dev
  libjs-chart.js libssl-dev
)
tests=(
  ccache libgtest-dev libgmock-dev postgresql-15 chromium chromium-driver clang-format procps
  python3 python3-yaml openssl
  python3-grpcio python3-protobuf
)
case "$scope" in
  client) packages=("${client[@]}") ;;
  build) packages=("${client[@]}" "${server[@]}") ;;
  all) packages=("${client[@]}" "${server[@]}" "${tests[@]}") ;;
  *) echo "install-deps: unknown scope '$scope' (all, build or client)" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all dependencies ($scope) present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
