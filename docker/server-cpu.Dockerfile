# kbench-server for hosts without a GPU: the CPU backend on Debian 12, for
# trying kbench without a GPU and for tests (scripts/container_check.sh).
# The build stage builds with the project's CMake (-DKBENCH_CUDA=OFF); the
# runtime stage installs only the packages owning the libraries the
# binaries load (docker/runtime-packages.sh) and runs as user kbench.
#
#   podman build -f docker/server-cpu.Dockerfile -t kbench-server-cpu .
#
# DEBIAN_IMAGE: any Debian 12 image; scripts/container_check.sh passes one
# it made with debootstrap where no registry is reachable.
ARG DEBIAN_IMAGE=docker.io/library/debian:bookworm-slim

FROM ${DEBIAN_IMAGE} AS build
COPY scripts/install-deps.sh /src/scripts/install-deps.sh
RUN /src/scripts/install-deps.sh build && rm -rf /var/lib/apt/lists/*
# Only what the build reads, so that other edits keep the cache.
COPY CMakeLists.txt /src/
COPY cmake /src/cmake
COPY proto /src/proto
COPY kernels /src/kernels
COPY server /src/server
COPY client /src/client
COPY docker/runtime-packages.sh /src/docker/
RUN cmake -S /src -B /build -DCMAKE_BUILD_TYPE=Release -DKBENCH_CUDA=OFF -DBUILD_TESTING=OFF \
 && cmake --build /build -j"$(nproc)" --target kbench-server kbench-worker \
 && install -D -m 755 -t /out/bin /build/server/kbench-server /build/server/kbench-worker \
 && /src/docker/runtime-packages.sh /out/bin/* > /out/runtime-packages

FROM ${DEBIAN_IMAGE}
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
# The SQLite store lives here unless --store names PostgreSQL.
ENV KBENCH_STATE_DIR=/var/lib/kbench
VOLUME /var/lib/kbench
# 50051: gRPC (the API, history, health); 50052: the health service alone,
# plain text (the HEALTHCHECK's); 8080: dashboard, /api/, /metrics.
EXPOSE 50051 50052 8080
ENTRYPOINT ["/usr/local/bin/kbench-server"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
  CMD ["/usr/local/bin/kbench-server", "probe", "127.0.0.1:50052"]
# For trying kbench: no users and plain text, which a server listening beyond
# loopback accepts only with --insecure; publish its ports on loopback only
# (docker/compose.yaml does). Give --auth, --tls-cert and --tls-key
# (docs/INSTALL.md) for anything shared.
CMD ["--listen", "0.0.0.0:50051", "--health-listen", "0.0.0.0:50052", "--http", "0.0.0.0:8080", "--backend", "cpu", "--devices", "all", "--insecure", "--shutdown-grace", "30"]
