# Shared by the test/ship shell tests: paths, tools (skip with 77 when missing), pass/fail.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${RG_SOURCE_ROOT:-$(cd "$here/../.." && pwd)}
chart="$root/charts/replica-guard"
tools_bin=${RG_TOOLS_BIN:-$root/.tools/bin}
passed=0
failed=0

# Prints the path of a tool (RG_TOOLS_BIN first, then PATH); exits 77 (skipped) without it.
need_tool() {
  if [[ -x "$tools_bin/$1" ]]; then
    echo "$tools_bin/$1"
  elif command -v "$1" >/dev/null; then
    command -v "$1"
  else
    echo "SKIP: $1 not found${2:+ ($2)}" >&2
    exit 77
  fi
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
