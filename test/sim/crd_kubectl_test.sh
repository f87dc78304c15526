#!/usr/bin/env bash
# Stock kubectl against the kube-sim binary with a CustomResourceDefinition: apply the
# definition, wait for Established, create a custom resource, get it through both served
# versions (one storage, the None conversion), scale it through its scale subresource, patch
# its status subresource, and see a strategic merge patch refused as the API server does.
# Usage: crd_kubectl_test.sh PATH/TO/kube-sim
set -euo pipefail
sim=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/kube_sim_lib.sh"
find_kubectl
start_sim sim
echo "using $("$kubectl" version --client 2>/dev/null | head -1)"

cat >"$work/crd.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1alpha1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
YAML
out=$(k apply -f "$work/crd.yaml" 2>&1) || fail "apply crd: $out"
expect "the definition is created" "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created" "$out"
out=$(k wait --for condition=established --timeout=30s crd/widgets.example.com 2>&1) || fail "wait: $out"
out=$(k get crd widgets.example.com -o jsonpath='{.status.acceptedNames.kind} {.status.storedVersions} {.spec.names.listKind}')
expect "acceptedNames, storedVersions, defaulted listKind" 'Widget ["v1"] WidgetList' "$out"

cat >"$work/widget.yaml" <<'YAML'
apiVersion: example.com/v1alpha1
kind: Widget
metadata:
  name: w1
spec:
  replicas: 2
  color: blue
YAML
out=$(k apply -f "$work/widget.yaml" 2>&1) || fail "apply widget: $out"
expect "a custom resource is created through v1alpha1" "widget.example.com/w1 created" "$out"
out=$(k get wd w1 -o jsonpath='{.apiVersion} {.spec.color} {.metadata.generation}')
expect "read through the preferred version v1" "example.com/v1 blue 1" "$out"
out=$(k get widgets.v1alpha1.example.com w1 -o jsonpath='{.apiVersion}')
expect "and through v1alpha1" "example.com/v1alpha1" "$out"
out=$(k get widgets)
expect "kubectl get lists it" "w1" "$out"

out=$(k scale widget w1 --replicas=5 2>&1) || fail "scale: $out"
expect "kubectl scale through the scale subresource" "widget.example.com/w1 scaled" "$out"
out=$(k get widget w1 -o jsonpath='{.spec.replicas}')
expect "the replicas path moved" "5" "$out"

out=$(k patch widget w1 --subresource=status --type=merge -p '{"status":{"replicas":5,"selector":"app=w"}}' 2>&1) || fail "status patch: $out"
expect "status patched" "widget.example.com/w1 patched" "$out"
out=$(k get --raw /apis/example.com/v1/namespaces/default/widgets/w1/scale)
expect "the Scale shows status replicas and selector" '"status":{"replicas":5,"selector":"app=w"}' "$out"
out=$(k patch widget w1 --type=merge -p '{"status":{"replicas":0}}' -o jsonpath='{.status.replicas}' 2>&1)
expect "the main resource ignores status" "5" "$out"

if out=$(k patch widget w1 -p '{"spec":{"color":"red"}}' 2>&1); then
  fail "a strategic merge patch of a custom resource succeeded: $out"
fi
expect "strategic merge patch refused" "application/strategic-merge-patch+json is not supported" "$out"

out=$(k delete crd widgets.example.com 2>&1) || fail "delete crd: $out"
if out=$(k get widgets 2>&1); then fail "widgets still served: $out"; fi
# kubectl's discovery cache may still name the kind: the list itself is then a 404.
[[ $out == *"doesn't have a resource type"* || $out == *"could not find the requested resource"* ]] ||
  fail "widgets after the definition was deleted: $out"
echo "PASS"
