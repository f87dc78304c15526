#!/usr/bin/env bash
# The chart's PrometheusRule: its groups, extracted to a plain rules file, pass
# `promtool check rules`, and `promtool test rules alerts_test.yaml` pins when each alert fires.
# shellcheck source=SCRIPTDIR/lib.sh disable=SC2154 # need_tool assigns $helm and $promtool by name
source "$(dirname "$0")/lib.sh"
need_tool helm helm "scripts/setup.sh --tools"
need_tool promtool promtool "apt-get install --no-install-recommends prometheus"
python3 -c 'import yaml' 2>/dev/null || { echo "SKIP: python3-yaml not installed"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$helm" template replica-guard "$chart" --namespace replica-guard-system \
  --show-only templates/prometheusrule.yaml --set monitoring.force=true >"$work/rendered.yaml" ||
  { fail "helm template of the PrometheusRule"; finish; exit; }
python3 - "$work/rendered.yaml" "$work/rules.yaml" <<'PY' || fail "extracting spec.groups"
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
rules = [d for d in docs if d["kind"] == "PrometheusRule"]
assert len(rules) == 1, f"expected one PrometheusRule, found {len(rules)}"
yaml.safe_dump({"groups": rules[0]["spec"]["groups"]}, open(sys.argv[2], "w"), sort_keys=False)
PY
cp "$here/alerts_test.yaml" "$work/"

if output=$("$promtool" check rules "$work/rules.yaml" 2>&1); then
  pass "promtool check rules: $(grep -m1 -o 'SUCCESS.*' <<<"$output")"
else
  fail "promtool check rules: $output"
fi
if output=$("$promtool" test rules "$work/alerts_test.yaml" 2>&1); then
  pass "promtool test rules alerts_test.yaml"
else
  fail "promtool test rules alerts_test.yaml: $output"
fi
finish
