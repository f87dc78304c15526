#!/usr/bin/env bash
# Stock kubectl reading kube-sim's /openapi/v2 (the protobuf form, gnostic openapi.v2.Document):
# `kubectl explain --output=plaintext-openapiv2` walks a kind's fields through the definitions,
# and plain `kubectl explain` through the same schemas in the /openapi/v3 documents.
# Usage: openapi_v2_kubectl_test.sh PATH/TO/kube-sim
set -euo pipefail
sim=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/kube_sim_lib.sh"
find_kubectl
start_sim sim
echo "using $("$kubectl" version --client 2>/dev/null | head -1)"

out=$(k explain deployment.spec.replicas --output=plaintext-openapiv2 2>&1) || fail "explain: $out"
expect "kind" "Deployment" "$out"
expect "version" "apps/v1" "$out"
expect "the field and its type" "FIELD:    replicas <integer>" "$out"

out=$(k explain deployment.spec.template.spec.containers --output=plaintext-openapiv2 2>&1) ||
  fail "explain containers: $out"
expect "a list of nested definitions" "RESOURCE: containers <[]Object>" "$out"
expect "the nested definition's fields" "image	<string>" "$out"

out=$(k explain hpa.spec --api-version=autoscaling/v1 --output=plaintext-openapiv2 2>&1) ||
  fail "explain autoscaling/v1: $out"
expect "the v1 HPA's own field" "targetCPUUtilizationPercentage	<integer>" "$out"

out=$(k explain hpa.spec --output=plaintext-openapiv2 2>&1) || fail "explain autoscaling/v2: $out"
expect "the v2 HPA's own field" "metrics	<[]Object>" "$out"

out=$(k explain deployment.spec.nosuchfield --output=plaintext-openapiv2 2>&1) &&
  fail "an unknown field was explained: $out"
expect "an unknown field" 'field "nosuchfield" does not exist' "$out"

# The reviews the secure metrics endpoint sends (kubebuilder's authn/authz filter).
out=$(k explain tokenreview.spec 2>&1) || fail "explain tokenreview.spec: $out"
expect "TokenReview's spec" "audiences	<[]string>" "$out"
out=$(k explain subjectaccessreview.spec.nonResourceAttributes 2>&1) ||
  fail "explain subjectaccessreview: $out"
expect "SubjectAccessReview's non-resource attributes" "path	<string>" "$out"

# A kind without a protobuf table still has its definition (type and object metadata).
out=$(k explain statefulset --output=plaintext-openapiv2 2>&1) || fail "explain statefulset: $out"
expect "a kind without a table" "metadata	<Object>" "$out"

# kubectl's default explain reads the same schemas from the /openapi/v3 documents.
out=$(k explain deployment.spec.replicas 2>&1) || fail "explain (v3): $out"
expect "v3: the field and its type" "FIELD: replicas <integer>" "$out"
out=$(k explain pods.spec.containers.ports 2>&1) || fail "explain (v3) ports: $out"
expect "v3: a nested list" "containerPort	<integer>" "$out"

# Client-side apply with /openapi/v2 served: a kind without a protobuf table (StatefulSet) updates
# without kubectl warning about the schema, and env still merges by name (B removed, A kept).
cat >"$work/sts.yaml" <<'YAML'
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: c
        image: pg:1
        env:
        - {name: A, value: "1"}
        - {name: B, value: "2"}
YAML
out=$(k apply -f "$work/sts.yaml" 2>&1) || fail "apply sts: $out"
sed -i 's/pg:1/pg:2/; /name: B/d' "$work/sts.yaml"
out=$(k apply -f "$work/sts.yaml" 2>&1) || fail "re-apply sts: $out"
[[ $out == "statefulset.apps/db configured" ]] || fail "re-apply sts printed: $out"
out=$(k get sts db -o jsonpath='{.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].env[*].name}')
[[ $out == "pg:2 A" ]] || fail "sts after apply: $out"

# The JSON form to an ordinary Accept.
out=$(k get --raw /openapi/v2)
expect "JSON Swagger 2.0" '"swagger":"2.0"' "$out"
echo "PASS"
