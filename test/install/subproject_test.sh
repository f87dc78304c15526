#!/usr/bin/env bash
# Uses the source tree as a meson subproject, as docs/library.md shows: a parent project with
# subprojects/replica-guard pointing at SOURCE_DIR calls subproject(..., library_only=true),
# takes `dependency('replica-guard-informer')` and `dependency('replica-guard-workqueue')` from
# the subproject's overrides (no pkg-config, no install), builds consumer.cpp (the same program
# as install_test.sh's) and runs it. Unoptimised: the subproject's libraries are compiled again
# here, and -O0 in unity files (as scripts/test.sh builds) is the quickest. Skips (exit 77) when
# meson or ninja is missing.
#   subproject_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
for tool in meson ninja; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

parent=$tmp/parent
mkdir -p "$parent/subprojects"
ln -s "$source_dir" "$parent/subprojects/replica-guard"
cp "$here/consumer.cpp" "$parent/"
cat >"$parent/meson.build" <<'EOF'
project('parent', 'cpp', default_options : ['cpp_std=c++20'])
subproject('replica-guard', default_options : ['library_only=true'])
executable('consumer', 'consumer.cpp',
  dependencies : [dependency('replica-guard-informer'), dependency('replica-guard-workqueue')])
EOF

meson setup "$parent/build" "$parent" --wrap-mode=nodownload -Doptimization=0 -Ddebug=false \
  -Dunity=subprojects -Dunity_size=8 \
  >"$tmp/setup.log" 2>&1 || { cat "$tmp/setup.log"; echo "FAIL: meson setup of the parent"; exit 1; }
ninja -C "$parent/build" consumer >"$tmp/build.log" 2>&1 ||
  { tail -n 50 "$tmp/build.log"; echo "FAIL: building the parent's consumer"; exit 1; }
"$parent/build/consumer" | tee "$tmp/output"
grep -q "widgets.example.com, pods, 0 pods cached, 1 key queued" "$tmp/output"
echo "consumer built with replica-guard as a meson subproject and runs"
