#!/usr/bin/env bash
# Installs the Debian 12 packages kbench builds and tests with, only those
# missing (PostgreSQL 15 and Chromium are for the store and dashboard tests,
# the openssl CLI makes the TLS test's certificates).
# Needs root or sudo when something is missing. CUDA (nvcc) is optional:
# without it the build leaves the CUDA backend out.
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev
  libsqlite3-dev libpqxx-dev postgresql-15 libcpp-httplib-dev prometheus-cpp-dev
  libjs-chart.js libyaml-cpp-dev libssl-dev
  chromium procps python3 openssl
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all build dependencies present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
