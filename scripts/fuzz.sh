#!/usr/bin/env bash
# Runs the libFuzzer harnesses of test/fuzz/ long (CI runs each for 10 s):
#   scripts/fuzz.sh [--seconds N] [--merge] [--reseed] [HARNESS...]
# Builds build-fuzz/ (through scripts/test.sh --fuzz, which also runs the short CI runs), then
# runs each harness (all by default: the names in test/fuzz/meson.build) for N seconds (default
# 3600: the one CPU-hour target), one after another, niced, and prints its executions. A crash,
# hang, leak or sanitizer report is saved in build-fuzz/test/fuzz/runs/<harness>/ and fails the
# script (reproduce: build-fuzz/test/fuzz/<harness>_fuzz <saved file>).
#   --merge    then minimise test/fuzz/corpus/<harness>/ with what the run found
#              (libFuzzer -merge=1): the corpora to commit
#   --reseed   first merge the seeds of test/fuzz/seed_corpus.py into the corpora
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=3600
merge=0
reseed=0
harnesses=()
while (($#)); do
  case "$1" in
    --seconds) seconds=$2; shift ;;
    --merge) merge=1 ;;
    --reseed) reseed=1 ;;
    -*) echo "fuzz.sh: unknown option '$1' (expected --seconds N, --merge, --reseed)" >&2; exit 2 ;;
    *) harnesses+=("$1") ;;
  esac
  shift
done
if ((${#harnesses[@]} == 0)); then
  mapfile -t harnesses < <(sed -n "s/^  '\([a-z_]*\)' : .*/\1/p" test/fuzz/meson.build)
fi

scripts/test.sh --fuzz
runs=build-fuzz/test/fuzz/runs

# Replaces test/fuzz/corpus/NAME with the smallest set of DIRS' inputs covering as much.
minimise() {
  local name=$1
  shift
  local merged
  merged=$(mktemp -d)
  "build-fuzz/test/fuzz/${name}_fuzz" -merge=1 -rss_limit_mb=2560 "$merged" "$@" \
    >"$runs/$name/merge.log" 2>&1
  rm -rf "test/fuzz/corpus/$name"
  mv "$merged" "test/fuzz/corpus/$name"
  chmod 755 "test/fuzz/corpus/$name"
}

if ((reseed)); then
  seeds=$(mktemp -d)
  python3 test/fuzz/seed_corpus.py "$seeds"
  for name in "${harnesses[@]}"; do
    mkdir -p "$runs/$name" "test/fuzz/corpus/$name"
    minimise "$name" "test/fuzz/corpus/$name" "$seeds/$name"
  done
  rm -rf "$seeds"
fi

status=0
for name in "${harnesses[@]}"; do
  log="$runs/$name/long.log"
  mkdir -p "$runs/$name"
  if nice test/fuzz/run_fuzzer.sh "build-fuzz/test/fuzz/${name}_fuzz" "test/fuzz/corpus/$name" \
    "$runs/$name" "$seconds" >"$log" 2>&1; then
    result=ok
  else
    result="FAILED (see $log)"
    status=1
  fi
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  echo "fuzz $name: ${executions:-?} executions in ${seconds} s: $result"
  if ((merge)); then minimise "$name" "test/fuzz/corpus/$name" "$runs/$name/corpus"; fi
done
exit "$status"
