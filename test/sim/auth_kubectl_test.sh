#!/usr/bin/env bash
# Stock kubectl against the kube-sim binary's serving security: HTTPS with the CA in the written
# kubeconfig (and a wrong CA refused), the kubeconfig's kubeadm-style admin client certificate,
# client certificates of --client-ca-file (CN = user, O = groups), 401 without credentials,
# `kubectl create token`, a
# ServiceAccount kubeconfig forbidden with the API server's message until a RoleBinding grants,
# `kubectl auth can-i` / `auth whoami`, and --insecure-http. Runs with every kubectl found
# (.tools/bin 1.35 and the system's). Usage: auth_kubectl_test.sh PATH/TO/kube-sim
set -euo pipefail
sim=$1
here=$(cd "$(dirname "$0")" && pwd)
kubectls=()
[[ -x $here/../../.tools/bin/kubectl ]] && kubectls+=("$here/../../.tools/bin/kubectl")
system_kubectl=$(command -v kubectl || true)
[[ -n $system_kubectl ]] && kubectls+=("$system_kubectl")
if [[ ${#kubectls[@]} == 0 ]]; then echo "SKIP: no kubectl found"; exit 77; fi

source "$here/kube_sim_lib.sh"

start_sim secure --nodes 1
expect "HTTPS by default" "serving on https://127.0.0.1:" "$(cat "$work/secure.log")"
expect "the kubeconfig carries the CA" "certificate-authority-data:" "$(cat "$work/secure.kubeconfig")"
expect "the admin authenticates with a client certificate" "client-certificate-data:" "$(cat "$work/secure.kubeconfig")"
grep -q "token:" "$work/secure.kubeconfig" && fail "the admin kubeconfig still carries a token"
server=$(sed -n 's/.*server: "\(.*\)"/\1/p' "$work/secure.kubeconfig")

# A CA that did not sign the serving certificate, and a kubeconfig with a token kube-sim never
# issued.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=other-ca -days 1 \
  -keyout "$work/other.key" -out "$work/other.crt" 2>/dev/null
cat >"$work/stranger.kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: kube-sim
  cluster:
    server: $server
    certificate-authority-data: $(sed -n 's/.*certificate-authority-data: //p' "$work/secure.kubeconfig")
users:
- name: nobody
  user: {token: not-a-kube-sim-token}
contexts:
- name: kube-sim
  context: {cluster: kube-sim, user: nobody}
current-context: kube-sim
YAML

cat >"$work/rbac.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata:
  name: team
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: builder
  namespace: team
YAML
cat >"$work/grant.yaml" <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: pod-reader
  namespace: team
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: builder-reads-pods
  namespace: team
subjects:
- kind: ServiceAccount
  name: builder
  namespace: team
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: pod-reader
YAML

# Without credentials: 401 with the API server's Status.
sed -n 's/.*certificate-authority-data: //p' "$work/secure.kubeconfig" | base64 -d >"$work/ca.crt"
out=$(curl -sS --cacert "$work/ca.crt" "$server/api/v1/pods")
[[ $out == '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}' ]] ||
  fail "no credentials: $out"

sa_user='User "system:serviceaccount:team:builder"'
round=0
for kubectl in "${kubectls[@]}"; do
  round=$((round + 1))
  echo "using $("$kubectl" version --client 2>/dev/null | head -1) ($kubectl)"
  k() { "$kubectl" --kubeconfig "$work/secure.kubeconfig" --cache-dir "$work/cache$round" "$@"; }
  ks() { "$kubectl" --kubeconfig "$work/sa.kubeconfig" --cache-dir "$work/sa-cache$round" "$@"; }

  out=$(k get ns); expect "admin over verified HTTPS" "kube-system" "$out"
  out=$(k auth whoami 2>&1); expect "admin identity" "kubernetes-admin" "$out"; expect "admin group" "system:masters" "$out"
  out=$("$kubectl" --kubeconfig "$work/secure.kubeconfig" --cache-dir "$work/cache$round" \
        --certificate-authority "$work/other.crt" get ns 2>&1 || true)
  expect "a wrong CA is refused" "certificate signed by unknown authority" "$out"
  out=$("$kubectl" --kubeconfig "$work/stranger.kubeconfig" --cache-dir "$work/stranger$round" get pods 2>&1 </dev/null || true)
  expect "a token kube-sim never issued: 401" "You must be logged in to the server" "$out"

  k delete ns team --ignore-not-found --wait=false >/dev/null
  for _ in $(seq 100); do k get ns team >/dev/null 2>&1 || break; sleep 0.1; done
  k apply -f "$work/rbac.yaml" >/dev/null
  token=$(k create token builder -n team --duration=20m)
  [[ $token == *.*.* ]] || fail "kubectl create token printed '$token'"
  out=$(k create token nobody -n team 2>&1 || true)
  expect "token for a missing ServiceAccount" 'serviceaccounts "nobody" not found' "$out"

  # A user of its own: kubectl would send the admin's client certificate along with the token,
  # and the certificate authenticates first.
  cp "$work/secure.kubeconfig" "$work/sa.kubeconfig"
  "$kubectl" --kubeconfig "$work/sa.kubeconfig" config set-credentials builder --token="$token" >/dev/null
  "$kubectl" --kubeconfig "$work/sa.kubeconfig" config set-context --current --user builder --namespace team >/dev/null

  out=$(ks auth whoami 2>&1); expect "ServiceAccount identity" "system:serviceaccount:team:builder" "$out"
  expect "ServiceAccount groups" "system:serviceaccounts:team" "$out"
  out=$(ks get pods 2>&1 || true)
  expect "forbidden with the API server's message" \
    "pods is forbidden: $sa_user cannot list resource \"pods\" in API group \"\" in the namespace \"team\"" "$out"
  out=$(ks get pods -A 2>&1 || true)
  expect "cluster scope message" "cannot list resource \"pods\" in API group \"\" at the cluster scope" "$out"
  out=$(ks get deploy web 2>&1 || true)
  expect "named message" "deployments.apps \"web\" is forbidden: $sa_user cannot get resource \"deployments\" in API group \"apps\" in the namespace \"team\"" "$out"
  out=$(ks auth can-i list pods || true); [[ $out == no ]] || fail "can-i before the binding: $out"

  k apply -f "$work/grant.yaml" >/dev/null
  out=$(ks auth can-i list pods); [[ $out == yes ]] || fail "can-i after the binding: $out"
  out=$(ks auth can-i watch pods -n team); [[ $out == yes ]] || fail "can-i watch: $out"
  out=$(ks auth can-i delete pods || true); [[ $out == no ]] || fail "can-i delete: $out"
  out=$(ks auth can-i list pods -A || true); [[ $out == no ]] || fail "can-i cluster-wide: $out"
  out=$(ks auth can-i list pods -n default || true); [[ $out == no ]] || fail "can-i other namespace: $out"
  out=$(k auth can-i '*' '*' -A); [[ $out == yes ]] || fail "admin can-i: $out"
  as_builder=(--as system:serviceaccount:team:builder)
  out=$(k auth can-i list pods -n team "${as_builder[@]}"); [[ $out == yes ]] || fail "can-i --as: $out"
  out=$(k auth can-i list secrets -n team "${as_builder[@]}" || true); [[ $out == no ]] || fail "can-i --as secrets: $out"
  out=$(k get secrets -n team "${as_builder[@]}" 2>&1 || true)
  expect "impersonated request" "secrets is forbidden: $sa_user cannot list resource" "$out"
  out=$(ks get pods 2>&1); expect "allowed after the RoleBinding" "No resources found in team namespace" "$out"
  out=$(ks auth can-i --list); expect "can-i --list shows the Role" "pods" "$out"; expect "its verbs" "[get list watch]" "$out"
  out=$(ks get configmaps 2>&1 || true); expect "still forbidden elsewhere" "configmaps is forbidden" "$out"
  k delete rolebinding builder-reads-pods -n team >/dev/null
  out=$(ks get pods 2>&1 || true); expect "forbidden again once unbound" "pods is forbidden" "$out"

  # The admin endpoint is the administrator's.
  out=$(k get --raw /sim/faults); expect "admin reads the faults" '"errorRate"' "$out"
  k create --raw /sim/faults/drop-watches -f /dev/null >/dev/null
  out=$(ks get --raw /sim/faults 2>&1 || true)
  expect "a ServiceAccount may not" "forbidden: $sa_user cannot get path \"/sim/faults\"" "$out"
done

# --client-ca-file: certificates of another CA authenticate their CN and O; one without a CN
# names no one (401 without other credentials).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=team-ca -days 1 \
  -keyout "$work/team-ca.key" -out "$work/team-ca.crt" 2>/dev/null
client_cert() {  # client_cert <name> <subject>: $work/<name>.crt and .key signed by team-ca
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "$2" \
    -keyout "$work/$1.key" -out "$work/$1.csr" 2>/dev/null
  openssl x509 -req -in "$work/$1.csr" -CA "$work/team-ca.crt" -CAkey "$work/team-ca.key" \
    -CAcreateserial -days 1 -extfile <(echo "extendedKeyUsage=clientAuth") -out "$work/$1.crt" 2>/dev/null
}
client_cert alice "/O=team/O=reviewers/CN=alice"
client_cert nameless "/O=team"
start_sim clientca --nodes 1 --client-ca-file "$work/team-ca.crt"
expect "no admin certificate without the CA's key" "token:" "$(cat "$work/clientca.kubeconfig")"
for who in alice nameless; do
  cp "$work/clientca.kubeconfig" "$work/$who.kubeconfig"
  "${kubectls[0]}" --kubeconfig "$work/$who.kubeconfig" config set-credentials "$who" --embed-certs \
    --client-certificate "$work/$who.crt" --client-key "$work/$who.key" >/dev/null
  "${kubectls[0]}" --kubeconfig "$work/$who.kubeconfig" config set-context --current --user "$who" >/dev/null
done
out=$("${kubectls[0]}" --kubeconfig "$work/alice.kubeconfig" --cache-dir "$work/alice-cache" auth whoami)
expect "CN is the user" "alice" "$out"; expect "O is a group" "reviewers" "$out"
expect "the API server's credential id" "X509SHA256=" "$out"
out=$("${kubectls[0]}" --kubeconfig "$work/alice.kubeconfig" --cache-dir "$work/alice-cache" get pods 2>&1 || true)
expect "the certificate's user meets RBAC" 'pods is forbidden: User "alice" cannot list resource "pods"' "$out"
out=$("${kubectls[0]}" --kubeconfig "$work/nameless.kubeconfig" --cache-dir "$work/nameless-cache" get pods 2>&1 </dev/null || true)
expect "a certificate without CN: 401" "You must be logged in to the server" "$out"
# The secure kube-sim does not trust team-ca: its certificate authenticates no one there.
cp "$work/alice.kubeconfig" "$work/alice-elsewhere.kubeconfig"
"${kubectls[0]}" --kubeconfig "$work/alice-elsewhere.kubeconfig" config set-cluster kube-sim --server "$server" \
  --embed-certs --certificate-authority "$work/ca.crt" >/dev/null
out=$("${kubectls[0]}" --kubeconfig "$work/alice-elsewhere.kubeconfig" --cache-dir "$work/elsewhere-cache" get pods 2>&1 </dev/null || true)
expect "a certificate of an untrusted CA: 401" "You must be logged in to the server" "$out"

# HTTPS with a given self-signed certificate: the kubeconfig trusts it.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=kube-sim -days 1 \
  -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
  -keyout "$work/given.key" -out "$work/given.crt" 2>/dev/null
start_sim given --nodes 1 --tls-cert-file "$work/given.crt" --tls-private-key-file "$work/given.key"
out=$("${kubectls[0]}" --kubeconfig "$work/given.kubeconfig" --cache-dir "$work/given-cache" get ns)
expect "kubectl trusts the given certificate" "kube-system" "$out"
out=$(timeout 20 "$sim" --port 0 --tls-cert-file "$work/given.crt" --tls-private-key-file "$work/other.key" 2>&1 || true)
expect "a key of another certificate is refused" "does not match the TLS certificate" "$out"

# Plain HTTP on request.
start_sim plain --nodes 1 --insecure-http
expect "plain HTTP" "serving on http://127.0.0.1:" "$(cat "$work/plain.log")"
out=$("${kubectls[0]}" --kubeconfig "$work/plain.kubeconfig" --cache-dir "$work/plain-cache" get ns)
expect "kubectl over plain HTTP" "kube-system" "$out"
grep -q certificate-authority "$work/plain.kubeconfig" && fail "plain HTTP kubeconfig has a CA"
echo "PASS"
