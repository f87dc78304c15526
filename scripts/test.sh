#!/usr/bin/env bash
# Sets everything up, builds, and runs every test suite:
#   scripts/test.sh              the normal build (build/)
#   scripts/test.sh --sanitize   the address+undefined sanitizer build (build-asan/)
# Ends with one line "N passed, N failed" (doctest cases; other tests count one each).
set -euo pipefail
cd "$(dirname "$0")/.."

# Tests build without full debug info: -g triples g++'s time on the coroutine-heavy sources
# (the sanitizer build is -O0, which g++ compiles twice as fast as -O1 under ASan, and keeps line
# tables, -g1, for readable reports).
builddir=build
opts=(-Ddebug=false)
for arg in "$@"; do
  case "$arg" in
    --sanitize) builddir=build-asan
      opts+=(-Db_sanitize=address,undefined -Db_lundef=false -Dbenchmarks=false -Doptimization=0 -Dcpp_args=-g1) ;;
    *) echo "test.sh: unknown argument '$arg' (expected --sanitize)" >&2; exit 2 ;;
  esac
done
if [[ "${CI:-}" == "true" ]]; then opts+=(-Dwerror=true); fi

scripts/setup.sh --tools
export PATH="$PWD/.tools/bin:$PATH"

if [[ -f "$builddir/build.ninja" ]]; then
  meson configure "$builddir" "${opts[@]}" >/dev/null
else
  meson setup "$builddir" "${opts[@]}" >/dev/null
fi
ninja -C "$builddir" -j "$(nproc)"

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1
status=0
meson test -C "$builddir" --print-errorlogs --num-processes 2 || status=$?
python3 scripts/count_tests.py "$builddir/meson-logs/testlog.json"
exit "$status"
