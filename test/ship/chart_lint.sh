#!/usr/bin/env bash
# `helm lint --strict` of the chart with its defaults and with every values variant in values/;
# the packaged chart (what `helm package` ships, after .helmignore) lints and renders too.
# shellcheck source=SCRIPTDIR/lib.sh disable=SC2154 # need_tool assigns $helm and $promtool by name
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

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if output=$("$helm" package "$chart" --destination "$work" 2>&1); then
  package=$(ls "$work"/replica-guard-*.tgz)
  pass "helm package: $(basename "$package")"
  if output=$("$helm" lint --strict "$package" 2>&1); then
    pass "helm lint --strict of the package"
  else
    fail "helm lint --strict of the package: $output"
  fi
  contents=$(tar -tzf "$package")
  for file in Chart.yaml values.yaml values.schema.json README.md templates/NOTES.txt files/dashboard.json; do
    if grep -qx "replica-guard/$file" <<<"$contents"; then pass "packaged $file"; else fail "not packaged: $file"; fi
  done
  rendered=$("$helm" template rg "$package" --set dashboard.enabled=true 2>&1)
  if grep -q '"uid": "replica-guard"' <<<"$rendered"; then
    pass "the package renders the dashboard"
  else
    fail "the package does not render the dashboard"
  fi
else
  fail "helm package: $output"
fi
finish
