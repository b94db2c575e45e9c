# kbench-server for GPU hosts: built on NVIDIA's CUDA devel image with the
# CUDA backend on (sm_90 unless CUDA_ARCHITECTURES says otherwise), run on
# the matching base image (the CUDA runtime alone; the libraries the
# binaries load, cuBLAS among them, are added by runtime-packages.sh, not
# every math library of the runtime image); the GPUs and the driver (580 or
# newer, for CUDA 13.0) come from the host
# through the NVIDIA container toolkit (podman run --device
# nvidia.com/gpu=all, docker run --gpus all, or nvidia.com/gpu in
# Kubernetes). Kept minimal and conventional; it has not been built where
# kbench is developed (no registry is reachable there): the CPU image
# (docker/server-cpu.Dockerfile) is the one checked, and this file differs
# from it only in the base images, the CUDA options and the backend.
# NVIDIA publishes CUDA images on Ubuntu, not Debian: Ubuntu 24.04 has the
# same gRPC 1.51, Protobuf 3.21 and Abseil 20220623 under the same -dev names.
#
# It serves TLS with users from its first start: mount the certificate and
# the first admin's token (created once, when the store has no user:
# --bootstrap-admin), and keep the store in a volume:
#
#   podman build -f docker/server-cuda.Dockerfile -t kbench-server-cuda .
#   openssl rand -hex 32 > admin-token && chmod 600 admin-token
#   podman run --device nvidia.com/gpu=all -p 50051:50051 -p 127.0.0.1:8080:8080 \
#     -v ./tls:/etc/kbench/tls:ro -v ./admin-token:/etc/kbench/admin/token:ro \
#     -v kbench-state:/var/lib/kbench kbench-server-cuda
#   kbench --tls --ca tls/ca.crt --token "$(cat admin-token)" whoami
ARG CUDA_VERSION=13.0.0
ARG UBUNTU=ubuntu24.04

FROM docker.io/nvidia/cuda:${CUDA_VERSION}-devel-${UBUNTU} AS build
ARG CUDA_ARCHITECTURES=90
COPY scripts/install-deps.sh /src/scripts/install-deps.sh
RUN /src/scripts/install-deps.sh build && rm -rf /var/lib/apt/lists/*
# Only what the build reads, so that other edits keep the cache.
COPY CMakeLists.txt /src/
COPY cmake /src/cmake
COPY proto /src/proto
COPY kernels /src/kernels
COPY server /src/server
COPY client /src/client
COPY tools /src/tools
COPY docker/runtime-packages.sh /src/docker/
RUN cmake -S /src -B /build -DCMAKE_BUILD_TYPE=Release -DKBENCH_CUDA=ON -DBUILD_TESTING=OFF \
      -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES} \
 && cmake --build /build -j"$(nproc)" --target kbench-server kbench-worker \
 && install -D -m 755 -t /out/bin /build/server/kbench-server /build/server/kbench-worker \
 && /src/docker/runtime-packages.sh /out/bin/* > /out/runtime-packages

FROM docker.io/nvidia/cuda:${CUDA_VERSION}-base-${UBUNTU}
COPY --from=build /out/runtime-packages /tmp/runtime-packages
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      $(cat /tmp/runtime-packages) \
 && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages \
 && groupadd --system --gid 10001 kbench \
 && useradd --system --uid 10001 --gid 10001 --create-home --home-dir /var/lib/kbench \
      --shell /usr/sbin/nologin kbench
COPY --from=build /out/bin/ /usr/local/bin/
USER 10001:10001
ENV KBENCH_STATE_DIR=/var/lib/kbench
VOLUME /var/lib/kbench
EXPOSE 50051 50052 8080
ENTRYPOINT ["/usr/local/bin/kbench-server"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=300s \
  CMD ["/usr/local/bin/kbench-server", "probe", "127.0.0.1:50052"]
CMD ["--listen", "0.0.0.0:50051", "--health-listen", "0.0.0.0:50052", "--http", "0.0.0.0:8080", "--backend", "cuda", "--devices", "all", "--auth", "on", "--bootstrap-admin", "admin", "--bootstrap-admin-token-file", "/etc/kbench/admin/token", "--tls-cert", "/etc/kbench/tls/tls.crt", "--tls-key", "/etc/kbench/tls/tls.key", "--shutdown-grace", "30"]
