#!/usr/bin/env bash
# Stock kubectl against the kube-sim binary: get, apply (client- and server-side), patch, label,
# scale, autoscale (HorizontalPodAutoscaler defaults, validation and columns), delete and get -w. Usage: kubectl_test.sh PATH/TO/kube-sim
set -euo pipefail
sim=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/kube_sim_lib.sh"
find_kubectl
start_sim sim
echo "using $("$kubectl" version --client 2>/dev/null | head -1)"

cat >"$work/web.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: c
        image: nginx:1
        env:
        - {name: A, value: "1"}
        - {name: B, value: "2"}
YAML
cat >"$work/cm.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm1
data:
  key: one
YAML

out=$(k apply -f "$work/web.yaml"); expect "apply creates" "deployment.apps/web created" "$out"
out=$(k get deploy); expect "get shows printer columns" "UP-TO-DATE" "$out"; expect "get row" "web" "$out"
out=$(k get deploy web -o jsonpath='{.spec.replicas}'); [[ $out == 2 ]] || fail "replicas $out"

sed -i 's/nginx:1/nginx:2/; /name: B/d' "$work/web.yaml"
out=$(k apply -f "$work/web.yaml"); expect "apply updates" "deployment.apps/web configured" "$out"
out=$(k get deploy web -o jsonpath='{.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].env[*].name}')
[[ $out == "nginx:2 A" ]] || fail "after apply: $out"

out=$(k scale deploy web --replicas=5); expect "scale" "deployment.apps/web scaled" "$out"
out=$(k get deploy web -o jsonpath='{.spec.replicas}'); [[ $out == 5 ]] || fail "scaled replicas $out"

out=$(k label deploy web tier=front); expect "label" "deployment.apps/web labeled" "$out"
out=$(k get deploy -l tier=front -o name); [[ $out == "deployment.apps/web" ]] || fail "label selector: $out"

out=$(k patch deploy web --type merge -p '{"spec":{"paused":true}}'); expect "merge patch" "patched" "$out"
out=$(k patch deploy web --type json -p '[{"op":"replace","path":"/spec/replicas","value":3}]'); expect "json patch" "patched" "$out"
out=$(k patch deploy web -p '{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:3"}]}}}}')
expect "strategic patch" "patched" "$out"
out=$(k get deploy web -o jsonpath='{.spec.replicas} {.spec.template.spec.containers[0].image}')
[[ $out == "3 nginx:3" ]] || fail "after patches: $out"

out=$(k describe deploy web); expect "describe" "nginx:3" "$out"

out=$(k create -f "$work/cm.yaml"); expect "create" "configmap/cm1 created" "$out"
out=$(k get cm); expect "generic columns" "cm1" "$out"
out=$(k get ns); expect "namespaces" "kube-system" "$out"; expect "ns status" "Active" "$out"
out=$(k get sa default -o name); expect "every namespace has a default ServiceAccount" "serviceaccount/default" "$out"

# Typed create commands send protobuf bodies (client-go 1.32+).
out=$(k create pdb web --selector=app=web --min-available=1 2>&1) || fail "create pdb: $out"
expect "create pdb (protobuf)" "poddisruptionbudget.policy/web created" "$out"
out=$(k get pdb web -o jsonpath='{.spec.minAvailable} {.spec.selector.matchLabels.app}')
expect "the PodDisruptionBudget as sent" "1 web" "$out"
out=$(k autoscale deployment web --min 2 --max 5 2>&1) || fail "autoscale: $out"
expect "autoscale (protobuf)" "horizontalpodautoscaler.autoscaling/web autoscaled" "$out"
out=$(k get hpa web)
expect "HPA printer columns" "NAME   REFERENCE        TARGETS" "$out"; expect "HPA columns" "MINPODS   MAXPODS   REPLICAS   AGE" "$out"
expect "HPA row: the defaulted CPU metric" "Deployment/web   cpu: <unknown>/80%   2         5         0" "$out"
out=$(k get hpa web -o jsonpath='{.spec.minReplicas} {.spec.maxReplicas} {.spec.scaleTargetRef.kind}/{.spec.scaleTargetRef.name}')
expect "the HorizontalPodAutoscaler as sent" "2 5 Deployment/web" "$out"
cat >"$work/hpa.yaml" <<'YAML'
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: api
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  maxReplicas: 4
  behavior:
    scaleDown: {stabilizationWindowSeconds: 60}
YAML
k apply -f "$work/hpa.yaml" >/dev/null
out=$(k get hpa api -o jsonpath='{.spec.minReplicas} {.spec.behavior.scaleDown.stabilizationWindowSeconds} {.spec.behavior.scaleDown.selectPolicy} {.spec.behavior.scaleUp.policies[*].type}')
expect "HPA defaults: minReplicas and the behavior rules" "1 60 Max Pods Percent" "$out"
sed -e 's/name: api$/name: bad/' -e 's/maxReplicas: 4/maxReplicas: 0/' "$work/hpa.yaml" >"$work/bad-hpa.yaml"
out=$(k apply -f "$work/bad-hpa.yaml" 2>&1 || true)
expect "HPA validation: Invalid" '"bad" is invalid' "$out"
expect "HPA validation: maxReplicas" 'spec.maxReplicas: Invalid value: 0: must be greater than 0' "$out"
expect "HPA validation: maxReplicas >= minReplicas" 'spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`' "$out"

# get -w: the list, then the change, then the stream ends when the server-side timeout fires.
k get cm -w --request-timeout=0 >"$work/watch.out" 2>&1 &
watch_pid=$!
for _ in $(seq 100); do grep -q cm1 "$work/watch.out" 2>/dev/null && break; sleep 0.1; done
sed s/cm1/cm2/ "$work/cm.yaml" | k create -f - >/dev/null
for _ in $(seq 100); do grep -q cm2 "$work/watch.out" 2>/dev/null && break; sleep 0.1; done
kill "$watch_pid" 2>/dev/null || true
expect "get -w saw the new object" "cm2" "$(cat "$work/watch.out")"

out=$(k delete deploy web); expect "delete" "deployment.apps \"web\" deleted" "$out"
out=$(k get deploy 2>&1); expect "empty after delete" "No resources found" "$out"
out=$(k get deploy web 2>&1 || true); expect "not found" "deployments.apps \"web\" not found" "$out"
echo "PASS"
