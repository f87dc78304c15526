#!/usr/bin/env bash
# values.schema.json (and the chart's own guards) reject bad values with an error naming the
# value: each file in values/bad/ must fail `helm template` with the text of its "# expect:" line;
# each good variant in values/ must render.
# shellcheck source=SCRIPTDIR/lib.sh disable=SC2154 # need_tool assigns $helm and $promtool by name
source "$(dirname "$0")/lib.sh"
need_tool helm helm "scripts/setup.sh --tools"

for file in "$here"/values/bad/*.yaml; do
  expect=$(sed -n 's/^# expect: //p' "$file")
  [[ -n "$expect" ]] || fail "$file has no '# expect:' line"
  if output=$("$helm" template rg "$chart" --values "$file" 2>&1); then
    fail "$(basename "$file"): accepted, expected an error naming '$expect'"
  elif [[ "$output" != *"$expect"* ]]; then
    fail "$(basename "$file"): the error does not name '$expect': $output"
  else
    pass "$(basename "$file") rejected: $(grep -m1 -F -- "$expect" <<<"$output" | sed 's/^ *//')"
  fi
done
for file in "$here"/values/*.yaml; do
  if output=$("$helm" template rg "$chart" --values "$file" 2>&1); then
    pass "$(basename "$file") accepted"
  else
    fail "$(basename "$file"): rejected: $output"
  fi
done
finish
