# shellcheck shell=bash
# Shared by the test/ship shell tests: paths, tools (skip with 77 when missing), pass/fail.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${RG_SOURCE_ROOT:-$(cd "$here/../.." && pwd)}
# shellcheck disable=SC2034 # used by the scripts that source this file
chart="$root/charts/replica-guard"
tools_bin=${RG_TOOLS_BIN:-$root/.tools/bin}
passed=0
failed=0

# need_tool VAR NAME [HINT]: sets VAR to the path of tool NAME (RG_TOOLS_BIN first, then PATH);
# exits 77 (skipped) when it is nowhere.
need_tool() {
  local path
  if [[ -x "$tools_bin/$2" ]]; then
    path="$tools_bin/$2"
  elif path=$(command -v "$2"); then
    :
  else
    echo "SKIP: $2 not found${3:+ ($3)}"
    exit 77
  fi
  printf -v "$1" '%s' "$path"
}

pass() {
  passed=$((passed + 1))
  echo "ok: $*"
}

fail() {
  failed=$((failed + 1))
  echo "FAIL: $*"
}

finish() {
  echo "$(basename "$0"): $passed passed, $failed failed"
  ((failed == 0))
}
