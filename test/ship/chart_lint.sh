#!/usr/bin/env bash
# `helm lint --strict` of the chart with its defaults and with every values variant in values/.
source "$(dirname "$0")/lib.sh"
need_tool helm helm "scripts/setup.sh --tools"

variants=("" "$here"/values/*.yaml)
for file in "${variants[@]}"; do
  args=(lint --strict "$chart")
  [[ -n "$file" ]] && args+=(--values "$file")
  if output=$("$helm" "${args[@]}" 2>&1); then
    pass "helm lint --strict ${file:+with $(basename "$file")}"
  else
    fail "helm lint --strict ${file:+with $(basename "$file")}: $output"
  fi
done
finish
