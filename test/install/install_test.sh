#!/usr/bin/env bash
# Installs the libraries of BUILD_DIR (`meson install --tags devel`: headers, static libraries,
# pkg-config files) into a temporary prefix and builds consumer.cpp against them out of tree with
# pkg-config alone, then runs it; then builds examples/widget_controller from a copy of its folder
# with the Makefile shipped there, as a user would. Skips (exit 77) when meson, pkg-config, make
# or a C++ compiler is missing.
#   install_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
for tool in meson pkg-config make c++; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage
DESTDIR=$stage meson install -C "$build" --no-rebuild --tags devel --quiet

pc=$(find "$stage" -name replica-guard-informer.pc)
[[ -n "$pc" ]] || { echo "FAIL: no replica-guard-informer.pc installed"; exit 1; }
pcdir=$(dirname "$pc")
for name in asio rate client workqueue informer; do
  [[ -f "$pcdir/replica-guard-$name.pc" ]] || { echo "FAIL: replica-guard-$name.pc missing"; exit 1; }
done
# Relocate the staged files' prefix (they name the configured one, not the DESTDIR copy).
sed -i "s|^prefix=\(.*\)|prefix=$stage\1|" "$pcdir"/replica-guard-*.pc
export PKG_CONFIG_PATH=$pcdir

# Internals stay internal: no test, sim or operator header is installed.
include=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=includedir replica-guard-client)/replica-guard
for forbidden in sim operator test; do
  [[ ! -e "$include/$forbidden" ]] || { echo "FAIL: $include/$forbidden installed"; exit 1; }
done
[[ -f "$include/client/version.hpp" ]] || { echo "FAIL: the generated client/version.hpp is missing"; exit 1; }

cd "$tmp"
# shellcheck disable=SC2046  # pkg-config's flags are words
c++ -std=c++20 -o consumer "$here/consumer.cpp" \
  $(pkg-config --cflags --libs replica-guard-informer replica-guard-workqueue)
./consumer | tee output
grep -q "widgets.example.com, pods, 0 pods cached, 1 key queued" output

# A real example out of tree: its folder copied away from the source tree, built by its Makefile
# with the installed headers and libraries only, then run far enough to parse its flags.
cp -r "$here/../../examples/widget_controller" "$tmp/widget_controller"
make -C "$tmp/widget_controller" --no-print-directory CXXFLAGS=-O0  # -O0: the quickest compile
if "$tmp/widget_controller/widget_controller" --no-such-flag x 2>"$tmp/flag-error"; then
  echo "FAIL: widget_controller accepted an unknown flag"; exit 1
fi
grep -q "unknown flag --no-such-flag" "$tmp/flag-error"
echo "widget_controller built out of tree and runs"
