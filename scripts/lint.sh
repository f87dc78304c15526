#!/usr/bin/env bash
# Lint: the .clang-format check (fast: CI runs it) and clang-tidy with .clang-tidy (slow: on
# demand, or over the files you changed).
#   scripts/lint.sh                         clang-format --dry-run --Werror over every tracked
#                                           C++ file (~5 s of CPU for the whole tree)
#   scripts/lint.sh --tidy [FILE...]        also clang-tidy over FILEs, or over every tracked
#                                           .cpp outside test/ and bench/ (plus test/workqueue/,
#                                           whose tests instantiate the header-only queue) when
#                                           none are given
#                                           (~13 s of CPU per file: ~20 min for the whole tree's
#                                           155 files on 2 idle cores; headers are checked through
#                                           the .cpp files that include them)
#   scripts/lint.sh --tidy -p DIR [FILE...] the build folder whose compile_commands.json
#                                           clang-tidy reads (default: build); not a unity
#                                           build like scripts/test.sh's
# Needs Debian 12's clang-format and clang-tidy (version 14): apt-get install clang-format
# clang-tidy. Exits non-zero when a file is not formatted or clang-tidy finds anything.
set -euo pipefail
cd "$(dirname "$0")/.."

tidy=false
builddir=build
files=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tidy) tidy=true ;;
    -p) builddir="${2:?lint.sh: -p needs a build folder}"; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "lint.sh: unknown option '$1' (expected --tidy, -p DIR or files)" >&2; exit 2 ;;
    *) files+=("$1") ;;
  esac
  shift
done
if [[ ${#files[@]} -gt 0 && "$tidy" != true ]]; then
  echo "lint.sh: files are only taken with --tidy; the format check always covers the whole tree" >&2
  exit 2
fi

need() {
  if ! command -v "$1" >/dev/null; then
    echo "lint.sh: $1 is not installed; run: apt-get install $1" >&2
    exit 2
  fi
}

# Tracked files that exist in the worktree (a file being deleted is not checked).
tracked() {
  git ls-files "$@" | while IFS= read -r file; do [[ -f "$file" ]] && printf '%s\0' "$file"; done
}

status=0

need clang-format
mapfile -t unformatted < <(tracked '*.cpp' '*.hpp' '*.h' |
  xargs -0 -r -n 50 -P "$(nproc)" clang-format --dry-run 2>&1 |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: warning: code should be clang-formatted.*/\1/p' | sort -u)
if [[ ${#unformatted[@]} -gt 0 ]]; then
  echo "lint.sh: not formatted as .clang-format says (fix with clang-format -i FILE):"
  printf '  %s\n' "${unformatted[@]}"
  status=1
else
  echo "lint.sh: clang-format: every tracked C++ file is formatted"
fi

if [[ "$tidy" == true ]]; then
  need clang-tidy
  if [[ ! -f "$builddir/compile_commands.json" ]]; then
    echo "lint.sh: $builddir/compile_commands.json is missing; run meson setup $builddir" \
      "(or pass -p with your build folder)" >&2
    exit 2
  fi
  if grep -q -- '-unity[0-9]*\.cpp' "$builddir/compile_commands.json"; then
    echo "lint.sh: $builddir is a unity build (scripts/test.sh makes one) and clang-tidy needs each" \
      "source's own command: meson setup build-tidy (no build needed) and pass -p build-tidy" >&2
    exit 2
  fi
  if [[ ${#files[@]} -eq 0 ]]; then
    # workqueue/ is header-only: its tests are the translation units that instantiate it.
    mapfile -d '' -t files < <(tracked '*.cpp' ':!test/' ':!bench/'; tracked 'test/workqueue/*.cpp')
  fi
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  # --quiet drops the per-file "N warnings generated" counts of suppressed system-header noise.
  if ! printf '%s\0' "${files[@]}" |
    xargs -0 -r -n 1 -P "$(nproc)" clang-tidy -p "$builddir" --quiet --warnings-as-errors='*' \
      >"$log" 2>&1; then
    grep -v -e '^[0-9]* warnings\? generated\.$' -e '^Suppressed ' -e 'to display errors from' \
      "$log" || true
    echo "lint.sh: clang-tidy found problems (see above)"
    status=1
  else
    echo "lint.sh: clang-tidy: ${#files[@]} files clean"
  fi
fi
exit "$status"
