#!/usr/bin/env bash
# Stock kubectl against the kube-sim binary with autoscaling/v1 HorizontalPodAutoscalers (served
# from the autoscaling/v2 store): apply --validate=strict of a v1 manifest, get through both
# versions, a v2 edit seen through v1, and helm 4 with a chart written for v1.
# Usage: autoscaling_v1_kubectl_test.sh PATH/TO/kube-sim
set -euo pipefail
sim=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/kube_sim_lib.sh"
find_kubectl
start_sim sim
echo "using $("$kubectl" version --client 2>/dev/null | head -1)"

cat >"$work/hpa-v1.yaml" <<'YAML'
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 6
  targetCPUUtilizationPercentage: 65
YAML
out=$(k apply --validate=strict -f "$work/hpa-v1.yaml" 2>&1) || fail "apply v1: $out"
expect "apply creates through v1" "horizontalpodautoscaler.autoscaling/web created" "$out"

out=$(k get horizontalpodautoscalers.v1.autoscaling web -o yaml)
expect "v1 apiVersion" "apiVersion: autoscaling/v1" "$out"
expect "v1 CPU target" "targetCPUUtilizationPercentage: 65" "$out"
out=$(k get horizontalpodautoscalers.v1.autoscaling web --show-managed-fields -o jsonpath='{.metadata.managedFields[0].manager} {.metadata.managedFields[0].apiVersion}')
expect "the manager's entry in the version it wrote" "kubectl-client-side-apply autoscaling/v1" "$out"

# The preferred version (v2) shows the same object as the CPU Utilization metric.
out=$(k get hpa web -o jsonpath='{.apiVersion} {.spec.metrics[0].resource.name} {.spec.metrics[0].resource.target.type} {.spec.metrics[0].resource.target.averageUtilization} {.spec.minReplicas}')
expect "v2 view" "autoscaling/v2 cpu Utilization 65 2" "$out"
# kubectl expands a short name to group and resource only (shortcut.go drops the version), so
# `hpa.v1.autoscaling` means the preferred version, as against a real API server.
out=$(k get hpa.v1.autoscaling web -o jsonpath='{.apiVersion}')
[[ $out == autoscaling/v2 ]] || fail "hpa.v1.autoscaling: $out"
out=$(k get horizontalpodautoscalers.v1.autoscaling web)
expect "v1 printer row" "Deployment/web   cpu: <unknown>/65%   2         6" "$out"

# A second apply through v1 changes the target; a v2 patch adds a metric, kept in v1's annotation.
sed -i 's/targetCPUUtilizationPercentage: 65/targetCPUUtilizationPercentage: 55/' "$work/hpa-v1.yaml"
out=$(k apply --validate=strict -f "$work/hpa-v1.yaml" 2>&1) || fail "re-apply v1: $out"
expect "apply configures through v1" "horizontalpodautoscaler.autoscaling/web configured" "$out"
out=$(k get hpa web -o jsonpath='{.spec.metrics[0].resource.target.averageUtilization}')
[[ $out == 55 ]] || fail "v2 target after v1 apply: $out"
k patch hpa web --type=json -p '[{"op":"add","path":"/spec/metrics/-","value":{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"1Gi"}}}}]' >/dev/null
out=$(k get horizontalpodautoscalers.v1.autoscaling web -o jsonpath='{.spec.targetCPUUtilizationPercentage} {.metadata.annotations.autoscaling\.alpha\.kubernetes\.io/metrics}')
expect "v1 keeps the memory metric in its annotation" '55 [{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}}]' "$out"

# Server-side apply through v1.
out=$(k apply --server-side --validate=strict -f "$work/hpa-v1.yaml" 2>&1) || fail "server-side apply v1: $out"
expect "server-side apply through v1" "horizontalpodautoscaler.autoscaling/web serverside-applied" "$out"

# An older kubectl's autoscale (1.32 posts an autoscaling/v1 protobuf HorizontalPodAutoscaler).
old_kubectl=$(command -v kubectl || true)
if [[ -n $old_kubectl && $old_kubectl != "$kubectl" ]]; then
  ko() { "$old_kubectl" --kubeconfig "$work/sim.kubeconfig" --cache-dir "$work/old-cache" "$@"; }
  k create deployment api --image=nginx:1 >/dev/null
  out=$(ko autoscale deployment api --min 2 --max 4 --cpu-percent 60 2>&1) || fail "old autoscale: $out"
  expect "old kubectl autoscale" "horizontalpodautoscaler.autoscaling/api autoscaled" "$out"
  out=$(k get hpa api -o jsonpath='{.spec.minReplicas} {.spec.metrics[0].resource.target.averageUtilization}')
  [[ $out == "2 60" ]] || fail "old kubectl autoscale stored: $out"
  echo "$("$old_kubectl" version --client 2>/dev/null | head -1) autoscaled through $(k get hpa api --show-managed-fields -o jsonpath='{.metadata.managedFields[0].apiVersion}')"
fi

# helm 4 (server-side apply by default) installs and upgrades a chart written for autoscaling/v1.
helm=$here/../../.tools/bin/helm
[[ -x $helm ]] || helm=$(command -v helm || true)
if [[ -n $helm ]]; then
  export HELM_CACHE_HOME=$work/helm/cache HELM_CONFIG_HOME=$work/helm/config HELM_DATA_HOME=$work/helm/data
  h() { "$helm" --kubeconfig "$work/sim.kubeconfig" "$@"; }
  mkdir -p "$work/chart/templates"
  printf 'apiVersion: v2\nname: hpa-v1\nversion: 0.1.0\n' >"$work/chart/Chart.yaml"
  printf 'cpu: 70\n' >"$work/chart/values.yaml"
  cat >"$work/chart/templates/hpa.yaml" <<'YAML'
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: {{ .Release.Name }}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: {{ .Release.Name }}}
  maxReplicas: 3
  targetCPUUtilizationPercentage: {{ .Values.cpu }}
YAML
  out=$(h install charted "$work/chart" 2>&1) || fail "helm install: $out"
  expect "helm install of a v1 HPA" "STATUS: deployed" "$out"
  out=$(h upgrade charted "$work/chart" --set cpu=40 2>&1) || fail "helm upgrade: $out"
  out=$(k get hpa charted -o jsonpath='{.spec.metrics[0].resource.target.averageUtilization}')
  [[ $out == 40 ]] || fail "helm upgrade through v1: CPU target $out"
  out=$(h uninstall charted 2>&1) || fail "helm uninstall: $out"
  out=$(k get hpa charted 2>&1 || true); expect "helm uninstalled the v1 HPA" "not found" "$out"
fi

out=$(k delete horizontalpodautoscalers.v1.autoscaling web); expect "delete through v1" 'horizontalpodautoscaler.autoscaling "web" deleted' "$out"
out=$(k get hpa web 2>&1 || true); expect "gone in v2" 'horizontalpodautoscalers.autoscaling "web" not found' "$out"
echo "PASS"
