#!/usr/bin/env bash
# The project's own manifests and chart against the kube-sim binary with stock tools:
# `kubectl apply -f` / `-k` (client-side apply), `kubectl apply --server-side` (with a field
# conflict and --force-conflicts), and helm 4 install / upgrade / list / uninstall (server-side
# apply, protobuf release Secrets and DeleteOptions). Usage: helm_test.sh PATH/TO/kube-sim
# Exits 77 (skipped) without kubectl or helm.
set -euo pipefail
sim=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kubectl=$repo/.tools/bin/kubectl
[[ -x $kubectl ]] || kubectl=$(command -v kubectl || true)
helm=$repo/.tools/bin/helm
[[ -x $helm ]] || helm=$(command -v helm || true)
if [[ -z $kubectl ]]; then echo "SKIP: no kubectl found"; exit 77; fi
if [[ -z $helm ]]; then echo "SKIP: no helm found"; exit 77; fi

source "$here/kube_sim_lib.sh"
start_sim sim

export HELM_CACHE_HOME=$work/helm/cache HELM_CONFIG_HOME=$work/helm/config HELM_DATA_HOME=$work/helm/data
k() { "$kubectl" --kubeconfig "$work/sim.kubeconfig" --cache-dir "$work/cache" "$@"; }
h() { "$helm" --kubeconfig "$work/sim.kubeconfig" "$@"; }
echo "using $("$kubectl" version --client 2>/dev/null | head -1), helm $("$helm" version --short)"

# --- kubectl apply of manifests/ (client-side, then -k, then server-side) ---
out=$(k apply -f "$repo/manifests/" 2>&1) || fail "apply -f: $out"
expect "apply -f creates the namespace" "namespace/replica-guard-system created" "$out"
expect "apply -f creates the deployment" "deployment.apps/replica-guard created" "$out"
for object in serviceaccount/replica-guard deployment/replica-guard service/replica-guard-metrics \
    poddisruptionbudget/replica-guard; do
  k -n replica-guard-system get "$object" -o name >/dev/null || fail "$object missing after apply -f"
done
out=$(k get clusterrole,clusterrolebinding -o name)
expect "apply -f creates the ClusterRole" "clusterrole.rbac.authorization.k8s.io/replica-guard" "$out"
out=$(k -n replica-guard-system get deploy replica-guard \
  -o jsonpath='{.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}')
[[ -n $out ]] || fail "client-side apply left no last-applied-configuration"

# kubectl diff and --dry-run=server send dryRun=All: they must change nothing.
k diff -f "$repo/manifests/" >/dev/null || fail "kubectl diff shows changes right after apply"
sed 's/replicas: 2/replicas: 7/' "$repo/manifests/30-deployment.yaml" >"$work/seven.yaml"
out=$(k diff -f "$work/seven.yaml" 2>&1 || true)
expect "kubectl diff shows the change" "+  replicas: 7" "$out"
out=$(k diff --server-side --force-conflicts -f "$work/seven.yaml" 2>&1 || true)
expect "kubectl diff --server-side shows the change" "+  replicas: 7" "$out"
k apply --dry-run=server -f "$work/seven.yaml" >/dev/null || fail "apply --dry-run=server"
[[ $(k -n replica-guard-system get deploy replica-guard -o jsonpath='{.spec.replicas}') == 2 ]] ||
  fail "a dry run changed the deployment"

out=$(k apply -k "$repo/manifests/" 2>&1) || fail "apply -k: $out"
expect "apply -k leaves the deployment as it is" "deployment.apps/replica-guard unchanged" "$out"

out=$(k apply --server-side -f "$repo/manifests/" 2>&1) || fail "apply --server-side: $out"
expect "server-side apply" "deployment.apps/replica-guard serverside-applied" "$out"
out=$(k -n replica-guard-system get deploy replica-guard -o jsonpath='{.metadata.managedFields[*].manager}')
expect "server-side apply recorded kubectl's Apply entry" "kubectl" "$out"

# A field another manager owns: a conflict, then taken over with --force-conflicts.
k -n replica-guard-system scale deploy replica-guard --replicas=3 >/dev/null
sed 's/replicas: 2/replicas: 4/' "$repo/manifests/30-deployment.yaml" >"$work/deployment.yaml"
grep -q "replicas: 4" "$work/deployment.yaml" || fail "manifests/30-deployment.yaml has no 'replicas: 2'"
out=$(k apply --server-side -f "$work/deployment.yaml" 2>&1 || true)
expect "conflict with the scaler" 'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas' "$out"
out=$(k apply --server-side --force-conflicts -f "$work/deployment.yaml" 2>&1) || fail "force: $out"
[[ $(k -n replica-guard-system get deploy replica-guard -o jsonpath='{.spec.replicas}') == 4 ]] ||
  fail "--force-conflicts did not set replicas"

# kube-sim deletes a namespace's content with it at once (a real cluster's namespace controller
# takes a while), so the content kubectl deletes next is already gone.
out=$(k delete -k "$repo/manifests/" --ignore-not-found 2>&1) || fail "delete -k: $out"
expect "delete -k" "namespace \"replica-guard-system\" deleted" "$out"
out=$(k get clusterroles,deployments -A -o name)
[[ $out != *replica-guard* ]] || fail "left after delete -k: $out"

# --- typed-client writes: protobuf request bodies ---
k create namespace typed >/dev/null || fail "create namespace (protobuf)"
for args in "service clusterip web --tcp=80:8080" "deployment web --image=nginx:1" \
    "secret generic creds --from-literal=a=b" "configmap settings --from-literal=c=d" \
    "serviceaccount bot" "role reader --verb=get,list --resource=pods" \
    "rolebinding reader --role=reader --serviceaccount=typed:bot" \
    "clusterrole typed-reader --verb=get --resource=nodes" \
    "clusterrolebinding typed-reader --clusterrole=typed-reader --serviceaccount=typed:bot"; do
  out=$(k -n typed create $args 2>&1) || fail "kubectl create $args: $out"
done
out=$(k -n typed get svc web -o jsonpath='{.spec.ports[0].port} {.spec.ports[0].targetPort}')
[[ $out == "80 8080" ]] || fail "protobuf Service decoded as: $out"
out=$(k -n typed get rolebinding reader -o jsonpath='{.roleRef.name} {.subjects[0].name}')
[[ $out == "reader bot" ]] || fail "protobuf RoleBinding decoded as: $out"
out=$(k -n typed delete secret creds 2>&1) || fail "delete: $out"
k delete namespace typed >/dev/null

# --- helm 4: install, upgrade, list, uninstall ---
chart=$repo/charts/replica-guard
out=$(h install rg "$chart" --namespace guard --create-namespace 2>&1) || fail "helm install: $out"
expect "helm install" "STATUS: deployed" "$out"
out=$(k -n guard get deploy -o jsonpath='{.items[*].metadata.name} {.items[*].spec.replicas}')
expect "helm created the deployment" "rg-replica-guard 2" "$out"
out=$(k -n guard get deploy rg-replica-guard -o jsonpath='{.metadata.annotations.meta\.helm\.sh/release-name} {.metadata.managedFields[*].manager}')
expect "helm owns the deployment" "rg helm" "$out"
for object in serviceaccount/rg-replica-guard service/rg-replica-guard-metrics; do
  k -n guard get "$object" -o name >/dev/null || fail "$object missing after helm install"
done
out=$(k -n guard get secrets -l owner=helm -o jsonpath='{.items[*].metadata.labels.status}')
[[ $out == deployed ]] || fail "release secret status: $out"

out=$(h upgrade rg "$chart" --namespace guard --set replicaCount=3 2>&1) || fail "helm upgrade: $out"
expect "helm upgrade" "REVISION: 2" "$out"
[[ $(k -n guard get deploy rg-replica-guard -o jsonpath='{.spec.replicas}') == 3 ]] ||
  fail "helm upgrade did not change replicas"

out=$(h list --namespace guard 2>&1) || fail "helm list: $out"
expect "helm list" "deployed" "$out"
expect "helm list revision" "rg" "$out"

out=$(h uninstall rg --namespace guard 2>&1) || fail "helm uninstall: $out"
expect "helm uninstall" "release \"rg\" uninstalled" "$out"
out=$(k -n guard get deploy,svc,sa,secrets -o name 2>&1)
[[ $out != *rg-replica-guard* && $out != *sh.helm.release* ]] || fail "left after uninstall: $out"
# --- CustomResourceDefinitions: with the Prometheus Operator's kinds served, the chart's
# Capabilities check renders its ServiceMonitor and PrometheusRule ---
for kind in ServiceMonitor PrometheusRule; do
  plural=$(tr '[:upper:]' '[:lower:]' <<<"$kind")s
  cat >"$work/crd-$plural.yaml" <<YAML
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: $plural.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: {plural: $plural, kind: $kind}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
YAML
  out=$(k apply -f "$work/crd-$plural.yaml" 2>&1) || fail "apply CRD $plural: $out"
done
out=$(k get crd servicemonitors.monitoring.coreos.com -o jsonpath='{.status.conditions[?(@.type=="Established")].status}')
[[ $out == True ]] || fail "CRD not Established: $out"
out=$(h install mon "$chart" --namespace mon --create-namespace 2>&1) || fail "helm install with CRDs: $out"
out=$(k -n mon get servicemonitors,prometheusrules -o name 2>&1)
expect "helm rendered the ServiceMonitor" "servicemonitor.monitoring.coreos.com/mon-replica-guard" "$out"
expect "helm rendered the PrometheusRule" "prometheusrule.monitoring.coreos.com/mon-replica-guard" "$out"
out=$(h uninstall mon --namespace mon 2>&1) || fail "helm uninstall with CRDs: $out"
k delete crd servicemonitors.monitoring.coreos.com >/dev/null
# (kubectl's discovery cache may still map the kind: then the server answers 404.)
out=$(k get servicemonitors -A 2>&1) && fail "servicemonitors still served after the CRD is gone: $out"
echo "PASS"
