# The replica-guard image, for people with a container engine: `docker build -t replica-guard .`
# scripts/image.sh builds the same image without one (buildah); both stage the runtime file tree
# with `scripts/image.sh rootfs`: the stripped binary, only the shared libraries ldd says it
# needs (from Debian 12's packages, with their copyright and dpkg status entries), CA
# certificates and a non-root user. No shell, no package manager.

# The image's version label. It must be meson.build's project version: the build stage checks
# the binary's --version against it and fails, naming both, when they differ.
ARG VERSION=0.1.0

# Build stage: Debian 12 with the build dependencies (the list scripts/setup.sh installs).
FROM debian:12 AS build
ARG VERSION
ENV DEBIAN_FRONTEND=noninteractive
WORKDIR /src
COPY scripts/setup.sh scripts/
RUN scripts/setup.sh && rm -rf /var/lib/apt/lists/*
# The sources the build reads (an explicit list keeps local build folders out of the context).
COPY meson.build meson_options.txt ./
COPY deps deps
COPY rate rate
COPY async async
COPY client client
COPY informer informer
COPY workqueue workqueue
COPY install install
COPY sim sim
COPY operator operator
COPY examples examples
COPY test test
COPY bench bench
COPY scripts scripts
RUN meson setup /build --buildtype=release \
    && ninja -C /build operator/replica-guard \
    && built=$(/build/operator/replica-guard --version) \
    && { [ "$built" = "$VERSION" ] \
         || { echo "Dockerfile: ARG VERSION=$VERSION, but the sources build $built" >&2; exit 1; }; } \
    && scripts/image.sh rootfs /build/operator/replica-guard /rootfs

# Runtime stage: nothing but the staged tree.
FROM scratch
ARG VERSION
COPY --from=build /rootfs/ /
ENV PATH=/usr/local/bin:/usr/bin
# malloc asks for transparent huge pages for its heap (when the node's THP mode is "madvise" or
# "always"): an informer's initial LIST fills ~1 KB of fresh heap per object, and 4 KiB page
# faults were a third of its CPU (README, "Benchmarks"). Override GLIBC_TUNABLES in the pod's
# env to turn it off.
ENV GLIBC_TUNABLES=glibc.malloc.hugetlb=1
USER 65532:65532
# /metrics over HTTPS (--metrics-secure, the default) and the plain-HTTP probes.
EXPOSE 8443/tcp 8081/tcp
LABEL org.opencontainers.image.title="replica-guard" \
      org.opencontainers.image.description="Keeps opted-in Deployments at their serving replicas when nodes fail" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0"
ENTRYPOINT ["/usr/local/bin/replica-guard"]
