#!/usr/bin/env bash
# Runs one libFuzzer harness on its corpus for a while:
#   run_fuzzer.sh HARNESS CORPUS WORKDIR SECONDS [libFuzzer flags...]
# (SECONDS of wall time; 0: no limit, the flags say when to stop, as scripts/fuzz.sh's -runs)
# New inputs go to WORKDIR/corpus (CORPUS, in the source tree, is only read); a crash, hang
# (an input over 10 s), leak or sanitizer report is saved in WORKDIR/ and fails the run.
set -euo pipefail
harness=$1 corpus=$2 workdir=$3 seconds=$4
shift 4
if [[ ! -d "$corpus" ]]; then echo "run_fuzzer: no corpus at $corpus" >&2; exit 1; fi
mkdir -p "$workdir/corpus"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# -error_exitcode: libFuzzer's default, 77, is what meson counts as a skipped test.
exec "$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
  -error_exitcode=1 -artifact_prefix="$workdir/" "$@" "$workdir/corpus" "$corpus"
