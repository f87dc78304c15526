#!/usr/bin/env bash
# Sets everything up, builds, and runs every test suite:
#   scripts/test.sh              the normal build (build/)
#   scripts/test.sh --sanitize   the address+undefined sanitizer build (build-asan/)
#   scripts/test.sh --tsan       the ThreadSanitizer build (build-tsan/): only the suites that run
#                                threads against each other (workqueue, informer), and only the
#                                targets they need
#   scripts/test.sh --fuzz       the libFuzzer build (build-fuzz/, clang): the harnesses of
#                                test/fuzz/ only, each run for a few seconds on its corpus
#                                (scripts/fuzz.sh runs them long)
# Ends with one line "N passed, N failed" (doctest cases; other tests count one each).
set -euo pipefail
cd "$(dirname "$0")/.."

# Tests build without full debug info: -g triples g++'s time on the coroutine-heavy sources.
# The normal build is -O1, which g++ compiles 15-27% faster than -O2; the sanitizer builds are
# -O0, which it compiles twice as fast as -O1 under ASan or TSan, and keep line tables, -g1, for
# readable reports. Every build is a unity build, 8 sources to a file: a target's sources share
# most of their Boost.Asio and coroutine instantiations, which g++ then compiles once per unity
# file instead of once per source (the README's "Building by hand" gives the saving).
builddir=build
opts=(-Ddebug=false -Dunity=on -Dunity_size=8)
targets=()  # none: build everything
suites=()   # none: run every suite
setup=(--tools)
mode=
for arg in "$@"; do
  case "$arg" in
    --sanitize | --tsan | --fuzz)
      if [[ -n "$mode" ]]; then echo "test.sh: give one of --sanitize, --tsan and --fuzz" >&2; exit 2; fi
      mode=$arg ;;
    *) echo "test.sh: unknown argument '$arg' (expected --sanitize, --tsan or --fuzz)" >&2; exit 2 ;;
  esac
done
case "$mode" in
  '') opts+=(-Doptimization=1) ;;
  --sanitize) builddir=build-asan
    # shellcheck disable=SC2054 # address,undefined is one meson value
    opts+=(-Db_sanitize=address,undefined -Db_lundef=false -Dbenchmarks=false -Doptimization=0 -Dcpp_args=-g1) ;;
  --tsan) builddir=build-tsan
    opts+=(-Db_sanitize=thread -Db_lundef=false -Dbenchmarks=false -Doptimization=0 -Dcpp_args=-g1)
    targets=(test/async/async_test test/workqueue/workqueue_test test/informer/informer_test)
    suites=(async workqueue informer)
    setup=() ;;  # no kubectl, helm or promtool needed
  --fuzz) builddir=build-fuzz
    # clang: the project's libraries get libFuzzer's coverage and address+undefined sanitizers
    # (-Dfuzz=true, see meson.build); -O1 with line tables, as libFuzzer's documentation advises.
    export CXX=clang++
    opts+=(-Dfuzz=true -Db_lundef=false -Doptimization=1 -Dcpp_args=-gline-tables-only)
    targets=(fuzz-harnesses)  # suites: none given, the fuzz build defines only the harnesses' runs
    setup=(--fuzz) ;;
esac
if [[ "${CI:-}" == "true" ]]; then opts+=(-Dwerror=true); fi

scripts/setup.sh "${setup[@]}"
export PATH="$PWD/.tools/bin:$PATH"

if [[ -f "$builddir/build.ninja" ]]; then
  meson configure "$builddir" "${opts[@]}" >/dev/null
else
  meson setup "$builddir" "${opts[@]}" >/dev/null
fi
# A failed build must not leave the previous run's results to be counted.
rm -f "$builddir"/meson-logs/testlog*.json
ninja -C "$builddir" -j "$(nproc)" "${targets[@]}"

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1
# Every race is reported (not only the first); a reported race fails its test executable.
export TSAN_OPTIONS=halt_on_error=0:second_deadlock_stack=1
meson_test=(meson test -C "$builddir" --no-rebuild --print-errorlogs)
status=0
if ((${#suites[@]})); then
  "${meson_test[@]}" --num-processes "$(nproc)" "${suites[@]}" || status=$?
else
  # The wall-clock suites (test/meson.build) spend minutes waiting on kube-sim's scaled-down
  # Kubernetes clock, about a tenth of a core each: they all run at once (16: more than there
  # are), beside the rest, which runs as many at a time as there are cores and niced, so that the
  # rest does not starve the processes whose timing the wall-clock suites check. Their console
  # output follows the rest's.
  wall_console=$builddir/meson-logs/wall-clock-console.txt
  "${meson_test[@]}" --suite wall-clock --num-processes 16 --logbase testlog-wall-clock \
    >"$wall_console" 2>&1 &
  wall=$!
  nice -n 10 "${meson_test[@]}" --no-suite wall-clock --num-processes "$(nproc)" || status=$?
  wait "$wall" || status=$?
  cat "$wall_console"
fi
python3 scripts/count_tests.py "$builddir"
exit "$status"
