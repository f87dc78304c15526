#!/usr/bin/env bash
# Sets everything up, builds, and runs the replica-guard demo: kube-sim with a few nodes and
# opted-in Deployments, the operator against it, one node's kubelet stopped, and a narrated
# timeline ending with how long each Deployment was short of serving replicas.
#   scripts/demo.sh [--time-scale 0.1]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --tools
export PATH="$PWD/.tools/bin:$PATH"
[[ -f build/build.ninja ]] || meson setup build >/dev/null
ninja -C build -j "$(nproc)" sim/kube-sim operator/replica-guard
exec python3 scripts/demo.py build "$@"
