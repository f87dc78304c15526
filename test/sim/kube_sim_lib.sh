# shellcheck shell=bash disable=SC2154  # sim and here are set by the sourcing script
# Sourced by the kube-sim shell tests (with `sim` set to the kube-sim binary): a work directory
# removed on exit with every kube-sim started, start_sim, find_kubectl and k, and the fail/expect
# checks.
work=$(mktemp -d)
sim_pids=()
cleanup() {
  for pid in "${sim_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; exit 1; }
expect() {  # expect <description> <needle> <haystack>
  grep -qF -- "$2" <<<"$3" || { echo "FAIL: $1: expected '$2' in:"; echo "$3"; exit 1; }
}
start_sim() {  # start_sim <name> [flags...]: writes $work/<name>.kubeconfig and $work/<name>.log
  local name=$1; shift
  "$sim" --port 0 --write-kubeconfig "$work/$name.kubeconfig" "$@" >"$work/$name.log" 2>&1 &
  sim_pids+=($!)
  for _ in $(seq 100); do grep -q "serving on" "$work/$name.log" 2>/dev/null && break; sleep 0.1; done
  grep -q "serving on" "$work/$name.log" || { echo "kube-sim did not start:"; cat "$work/$name.log"; exit 1; }
}
find_kubectl() {  # sets $kubectl: the project's (.tools/bin, 1.35), else the system's; else skip
  kubectl=$here/../../.tools/bin/kubectl
  [[ -x $kubectl ]] || kubectl=$(command -v kubectl || true)
  if [[ -z $kubectl ]]; then echo "SKIP: no kubectl found"; exit 77; fi
}
k() {  # kubectl against the kube-sim that `start_sim sim` started
  "$kubectl" --kubeconfig "$work/sim.kubeconfig" --cache-dir "$work/cache" "$@"
}
