#!/usr/bin/env bash
# kubectl 1.35's `describe` and `events` tell a cluster's story from kube-sim's simulated
# components: a Deployment created and scaled, a node dying (its kubelet stopped through
# /sim/kubelets/NODE/stop) and its pods evicted and replaced, the kubelet back. The Events
# sections must hold the expected reasons in order. Usage: events_kubectl_test.sh PATH/TO/kube-sim
set -euo pipefail
sim=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/kube_sim_lib.sh"
find_kubectl
# Ten times faster: grace period 5 s, the default 300 s toleration 3 s.
start_sim sim --time-scale 0.1 --pod-eviction-timeout 30
echo "using $("$kubectl" version --client 2>/dev/null | head -1)"

# wait_for <description> <command...>: retries the command (generous deadline) until it succeeds.
wait_for() {
  local what=$1; shift
  for _ in $(seq 600); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  fail "timed out waiting for $what"
}
# in_order <description> <text> <needle...>: each needle appears in text, after the previous one.
in_order() {
  local what=$1 text=$2 rest=$2; shift 2
  for needle in "$@"; do
    [[ $rest == *"$needle"* ]] || { echo "FAIL: $what: '$needle' missing or out of order in:"; echo "$text"; exit 1; }
    rest=${rest#*"$needle"}
  done
}
events_section() { sed -n '/^Events:/,$p'; }
ready_pods() { [[ $(k get deploy web -o jsonpath='{.status.readyReplicas}') == "$1" ]]; }

k create deployment web --image=nginx:1.27 --replicas=3 >/dev/null
wait_for "3 ready pods" ready_pods 3
k scale deployment web --replicas=4 >/dev/null
wait_for "4 ready pods" ready_pods 4

deploy=$(k describe deployment web | events_section)
in_order "describe deployment" "$deploy" \
  "ScalingReplicaSet" "deployment-controller" "Scaled up replica set web-" "from 0 to 3" \
  "ScalingReplicaSet" "from 3 to 4"

rs=$(k get rs -o name | head -1)
rs_events=$(k describe "$rs" | events_section)
in_order "describe replicaset" "$rs_events" "SuccessfulCreate" "replicaset-controller" "Created pod: web-"

pod=$(k get pods -o jsonpath='{.items[0].metadata.name}')
pod_events=$(k describe pod "$pod" | events_section)
in_order "describe pod" "$pod_events" \
  "Scheduled" "default-scheduler" "Successfully assigned default/$pod to node-" \
  "Pulled" "kubelet" \
  "Created" "Container created" \
  "Started" "Container started"
# kubectl 1.35 prefixes the involved object's fieldPath (kubernetes/kubernetes#133627).
if "$kubectl" version --client 2>/dev/null | grep -q "v1\.3[5-9]"; then
  expect "describe pod shows the container's fieldPath" "spec.containers{nginx}: Container started" "$pod_events"
fi

node_events=$(k describe node node-1 | events_section)
for reason in Starting NodeHasSufficientMemory NodeHasNoDiskPressure NodeHasSufficientPID \
              NodeAllocatableEnforced RegisteredNode; do
  expect "describe node node-1 shows $reason" "$reason" "$node_events"
done
expect "RegisteredNode's message" "Node node-1 event: Registered Node node-1 in Controller" "$node_events"

# The scheduler's Events are events.k8s.io/v1 ones, readable through both groups.
new=$(k get events.v1.events.k8s.io -o jsonpath='{range .items[?(@.reason=="Scheduled")]}{.reportingController}/{.action}{"\n"}{end}')
expect "events.k8s.io view of Scheduled" "default-scheduler/Binding" "$new"

# node-1 dies: its pods are marked not ready, tainted away and replaced.
stranded=$(k get pods --field-selector spec.nodeName=node-1 -o jsonpath='{.items[0].metadata.name}')
[[ -n $stranded ]] || fail "no pod on node-1"
k create --raw /sim/kubelets/node-1/stop -f /dev/null >/dev/null
stranded_gone() { ! k get pod "$stranded" -o name 2>/dev/null | grep -q . || \
  [[ -n $(k get pod "$stranded" -o jsonpath='{.metadata.deletionTimestamp}') ]]; }
wait_for "the eviction of $stranded" stranded_gone
wait_for "4 ready pods again" ready_pods 4

node_events=$(k describe node node-1 | events_section)
expect "describe node after the death" "Node node-1 status is now: NodeNotReady" "$node_events"
pod_events=$(k describe pod "$stranded" 2>/dev/null | events_section || true)
if [[ -n $pod_events ]]; then  # the pod may already be gone; then kubectl events has it
  in_order "describe the stranded pod" "$pod_events" "Scheduled" "Started" "NodeNotReady" "Node is not ready"
fi

all=$(k events)
in_order "kubectl events" "$all" \
  "ScalingReplicaSet" \
  "NodeNotReady" \
  "TaintManagerEviction" "Marking for deletion Pod default/$stranded"
# kubectl events sorts the scheduler's Events by their eventTime (microseconds) and the others by
# lastTimestamp (seconds), so Scheduled may follow the kubelet's first ones of the same second.
stranded_events=$(k events --for "pod/$stranded")
expect "kubectl events --for the stranded pod" "Scheduled" "$stranded_events"
in_order "kubectl events --for the stranded pod" "$stranded_events" \
  "Started" "NodeNotReady" "TaintManagerEviction"

# The kubelet comes back: NodeReady from the kubelet.
k create --raw /sim/kubelets/node-1/start -f /dev/null >/dev/null
node_ready() { k describe node node-1 | events_section | grep -q "status is now: NodeReady"; }
wait_for "NodeReady on node-1" node_ready
echo "PASS"
