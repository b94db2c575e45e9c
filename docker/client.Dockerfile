# The kbench client: the client-only build (-DKBENCH_CLIENT_ONLY=ON), made
# self-contained (docker/bundle-client.sh: bin/kbench and its libraries in
# /opt/kbench, rpath $ORIGIN/../lib). The image is that bundle on a bare
# Debian 12; scripts/client_bundle.sh takes the bundle out of it as a
# tarball for learners' Linux machines.
#
#   podman build -f docker/client.Dockerfile -t kbench-client .
#   podman run --rm kbench-client --server gpu-host:50051 info
ARG DEBIAN_IMAGE=docker.io/library/debian:bookworm-slim

FROM ${DEBIAN_IMAGE} AS build
COPY scripts/install-deps.sh /src/scripts/install-deps.sh
RUN /src/scripts/install-deps.sh client \
 && apt-get install -y -qq --no-install-recommends patchelf \
 && rm -rf /var/lib/apt/lists/*
# Only what the client-only build reads, so that other edits keep the cache.
COPY CMakeLists.txt /src/
COPY cmake /src/cmake
COPY proto /src/proto
COPY kernels /src/kernels
COPY client /src/client
COPY docker/bundle-client.sh /src/docker/
RUN cmake -S /src -B /build -DCMAKE_BUILD_TYPE=Release -DKBENCH_CLIENT_ONLY=ON -DBUILD_TESTING=OFF \
 && cmake --build /build -j"$(nproc)" --target kbench \
 && /src/docker/bundle-client.sh /build/client/kbench /opt/kbench

FROM ${DEBIAN_IMAGE}
COPY --from=build /opt/kbench/ /opt/kbench/
RUN groupadd --gid 10001 kbench \
 && useradd --uid 10001 --gid 10001 --create-home --shell /usr/sbin/nologin kbench
USER 10001:10001
ENTRYPOINT ["/opt/kbench/bin/kbench"]
CMD ["--help"]
