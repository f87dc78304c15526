#!/usr/bin/env bash
# Runs the libFuzzer harnesses of test/fuzz/ long (CI runs each for 10 s):
#   scripts/fuzz.sh [--runs N] [--cpu-seconds N] [--no-build] [--out DIR] [--merge] [--reseed]
#                   [HARNESS...]
# Builds build-fuzz/ (through scripts/test.sh --fuzz, which also runs the short CI runs), then
# runs each harness (all by default: the names in test/fuzz/meson.build), one after another at
# nice 5, until it has executed N inputs (--runs, default 10 M) or used N seconds of CPU time
# (--cpu-seconds, default 3600), whichever comes first: the target of each harness. CPU time, not
# wall time: on a shared machine the wall clock over-counts what the harness got. It prints the
# executions and the CPU seconds of each (the figures for the README). A crash, hang (an input
# over 10 s), leak or sanitizer report is saved in DIR/<harness>/ (default
# build-fuzz/test/fuzz/runs) and fails the script (reproduce: build-fuzz/test/fuzz/<harness>_fuzz
# <saved file>); a saved timeout is run again alone, to tell a hang from a starved harness (the
# timeout is wall time: do not run this at a low priority on a busy machine).
#   --no-build use build-fuzz/ as it is (no build, no short runs)
#   --merge    then minimise test/fuzz/corpus/<harness>/ with what the run found
#              (libFuzzer -merge=1): the corpora to commit
#   --reseed   first merge the seeds of test/fuzz/seed_corpus.py into the corpora
set -euo pipefail
cd "$(dirname "$0")/.."

max_runs=10000000
cpu_seconds=3600
build=1
runs="build-fuzz/test/fuzz/runs"
merge=0
reseed=0
harnesses=()
while (($#)); do
  case "$1" in
    --runs) max_runs=$2; shift ;;
    --cpu-seconds) cpu_seconds=$2; shift ;;
    --no-build) build=0 ;;
    --out) runs=$2; shift ;;
    --merge) merge=1 ;;
    --reseed) reseed=1 ;;
    -*) echo "fuzz.sh: unknown option '$1' (expected --runs N, --cpu-seconds N, --no-build, --out DIR, --merge, --reseed)" >&2; exit 2 ;;
    *) harnesses+=("$1") ;;
  esac
  shift
done
if ((${#harnesses[@]} == 0)); then
  mapfile -t harnesses < <(sed -n "s/^  '\([a-z_]*\)' : .*/\1/p" test/fuzz/meson.build)
fi

if ((build)); then scripts/test.sh --fuzz; fi

# Replaces test/fuzz/corpus/NAME with the smallest set of DIRS' inputs covering as much.
minimise() {
  local name=$1
  shift
  local merged
  merged=$(mktemp -d)
  "build-fuzz/test/fuzz/${name}_fuzz" -merge=1 -rss_limit_mb=2560 "$merged" "$@" \
    >"$runs/$name/merge.log" 2>&1
  # libFuzzer names what it keeps by its SHA-1: a named input (one that found a bug) stays, under
  # its name.
  local input
  for input in "test/fuzz/corpus/$name"/*; do
    if [[ "${input##*/}" =~ ^[0-9a-f]{40}$ ]]; then continue; fi
    rm -f "$merged/$(sha1sum <"$input" | cut -d' ' -f1)"
    cp "$input" "$merged/"
  done
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

# The CPU seconds (user + system) process PID has used: fields 14 and 15 of /proc/PID/stat, in
# clock ticks (the command name before them, in parentheses, may hold spaces). Fails once it
# has exited.
cpu_used() {
  local stat
  stat=$(<"/proc/$1/stat") || return 1
  local -a fields
  read -r -a fields <<<"${stat##*) }"
  echo "$(((fields[11] + fields[12]) / ticks))"
}
ticks=$(getconf CLK_TCK)

# libFuzzer's -timeout is wall time: a harness starved of CPU on a busy machine (or run at a
# low priority) can "time out" on an input that takes milliseconds. Each saved timeout is run
# again alone; one that then finishes quickly is named as such, so a hang is told from a busy
# machine. The run still fails: run it again on a quieter machine.
confirm_timeouts() {
  local name=$1 input started took
  for input in "$runs/$name"/timeout-*; do
    [[ -e "$input" ]] || continue
    started=$(date +%s%N)
    if "build-fuzz/test/fuzz/${name}_fuzz" -timeout=10 "$input" >/dev/null 2>&1; then
      took=$((($(date +%s%N) - started) / 1000000))
      echo -n "; ${input##*/} runs alone in ${took} ms: not a hang, the harness was starved of CPU"
    else
      echo -n "; ${input##*/} times out alone too: a hang"
    fi
  done
}

status=0
for name in "${harnesses[@]}"; do
  log="$runs/$name/long.log"
  mkdir -p "$runs/$name"
  started=$(date +%s)
  # run_fuzzer.sh execs the harness: $! is the harness. -max_total_time=0: no wall limit.
  nice -n 5 test/fuzz/run_fuzzer.sh "build-fuzz/test/fuzz/${name}_fuzz" "test/fuzz/corpus/$name" \
    "$runs/$name" 0 -runs="$max_runs" >"$log" 2>&1 &
  pid=$! cpu=0 stopped=0
  # The CPU time printed is the last reading before the harness exits: 5 s short at most.
  while used=$(cpu_used "$pid" 2>/dev/null); do
    cpu=$used
    if ((cpu >= cpu_seconds && !stopped)); then kill -INT "$pid"; stopped=1; fi
    sleep 5
  done
  rc=0
  wait "$pid" || rc=$?
  # libFuzzer exits 72 when interrupted: here, by the CPU limit.
  if ((rc == 0)); then
    result=ok
  elif ((rc == 72 && stopped)); then
    result="ok (stopped at the CPU limit)"
  else
    result="FAILED, exit $rc (see $log)$(confirm_timeouts "$name")"
    status=1
  fi
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  echo "fuzz $name: ${executions:-?} executions in $cpu CPU-seconds ($(($(date +%s) - started)) s wall): $result"
  if ((merge)); then minimise "$name" "test/fuzz/corpus/$name" "$runs/$name/corpus"; fi
done
exit "$status"
