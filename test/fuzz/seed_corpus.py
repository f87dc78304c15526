#!/usr/bin/env python3
"""Writes the fuzz harnesses' seed inputs: from the Kubernetes round-trip fixtures
(../shared/fixtures/roundtrip) and the inputs the unit tests use.

    test/fuzz/seed_corpus.py OUT_DIR [FIXTURES_DIR]

(FIXTURES_DIR defaults to $RG_SHARED_DIR/fixtures/roundtrip, else ../shared next to the tree.)

writes OUT_DIR/<harness>/<sha1>. The corpora kept in test/fuzz/corpus/ are these seeds merged
(libFuzzer -merge=1) with what fuzzing found; scripts/fuzz.sh --reseed redoes that.
"""
import hashlib
import json
import os
import pathlib
import sys

# with_object_type()'s index of each kind (test/fuzz/object_types.hpp); 8 = Unstructured.
TYPED = {"Pod": 0, "Node": 1, "Deployment": 2, "ReplicaSet": 3, "Event": 4, "Lease": 5,
         "Scale": 6, "HorizontalPodAutoscaler": 7}
UNSTRUCTURED = 8


def write(out, harness, data):
    if isinstance(data, str):
        data = data.encode()
    folder = out / harness
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, payload):
    """A length-delimited protobuf field."""
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def vfield(number, value):
    return varint(number << 3) + varint(value)


def protobuf_body(api_version, kind, raw):
    unknown = field(1, field(1, api_version) + field(2, kind)) + field(2, raw)
    return b"k8s\0" + unknown


def fixtures(folder):
    for path in sorted(folder.glob("*.json")):
        yield json.loads(path.read_text())


def seed_decoders(out, objects):
    for obj in objects:
        kind = obj.get("kind", "")
        if "metadata" not in obj:
            continue
        compact = json.dumps(obj, separators=(",", ":"))
        for index in {TYPED.get(kind, UNSTRUCTURED), UNSTRUCTURED}:
            event = '{"type":"ADDED","object":%s}\n' % compact
            write(out, "watch_decoder", bytes([index | 0x30]) + event.encode())
            items = '{"kind":"%sList","apiVersion":"v1","metadata":{"resourceVersion":"42",' \
                    '"continue":"abc"},"items":[%s]}' % (kind, compact)
            write(out, "list_decoder", bytes([index | 0x50]) + items.encode())
    status = ('{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},'
              '"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired",'
              '"code":410}}\n')
    bookmark = ('{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":'
                '{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}}\n')
    small = ('{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a",'
             '"namespace":"ns","resourceVersion":"7","labels":{"app":"web"}},"spec":{"nodeName":"n1"},'
             '"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}}\n')
    write(out, "watch_decoder", bytes([0x10]) + (small + bookmark + status).encode())
    write(out, "watch_decoder", bytes([0x18]) + (small + small).encode())
    item = json.dumps(json.loads(small)["object"], separators=(",", ":"))
    write(out, "list_decoder", bytes([0x20]) + b'{"kind":"PodList","apiVersion":"v1","metadata":'
          b'{"resourceVersion":"9"},"items":[' + item.encode() + b']}')
    write(out, "watch_decoder", bytes([0x28]) + b'{"type":"ADDED","object":{"metadata":{}}}\n{"ty')


def seed_protobuf(out):
    meta = field(1, "web") + field(3, "default") + field(11, field(1, "app") + field(2, "web"))
    container = field(1, "app") + field(2, "nginx:1.27")
    pod = field(1, meta) + field(2, field(2, container) + field(10, "node-1"))
    write(out, "protobuf", b"\0" + protobuf_body("v1", "Pod", pod))
    write(out, "protobuf", b"\x80" + pod)
    deployment = field(1, meta) + field(2, vfield(1, 3) + field(2, field(1, field(1, "app") +
                                                                       field(2, "web"))))
    write(out, "protobuf", b"\0" + protobuf_body("apps/v1", "Deployment", deployment))
    write(out, "protobuf", b"\x82" + deployment)
    secret = field(1, meta) + field(2, field(1, "token") + field(2, b"\x00\xff")) + field(3, "Opaque")
    write(out, "protobuf", b"\0" + protobuf_body("v1", "Secret", secret))
    write(out, "protobuf", b"\0" + protobuf_body("v1", "Pod", pod) + field(3, "gzip"))


KUBECONFIG = """apiVersion: v1
kind: Config
current-context: {context}
clusters:
- name: sim
  cluster:
    server: https://127.0.0.1:6443
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
{user}
contexts:
- name: sim
  context:
    cluster: sim
    user: admin
    namespace: shop
"""

USERS = [
    "    token: abc123",
    "    username: admin\n    password: secret",
    "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ./plugin\n"
    "      args: [get-token]\n      env:\n      - name: A\n        value: b\n"
    "      interactiveMode: Never\n      provideClusterInfo: true",
    "    client-certificate-data: bm90IGEgY2VydA==\n    client-key-data: bm90IGEga2V5",
    "    auth-provider:\n      name: gcp",
]


def seed_config(out):
    for user in USERS:
        write(out, "kubeconfig", KUBECONFIG.format(context="sim", user=user))
    write(out, "kubeconfig", KUBECONFIG.format(context="missing", user=USERS[0]))
    write(out, "kubeconfig", "clusters: [{name: a, cluster: {server: x}}]\nusers: []\n")
    for version_bit, version in ((0, "v1"), (1, "v1beta1")):
        api_version = "client.authentication.k8s.io/" + version
        for status in ({"token": "abc"},
                       {"token": "abc", "expirationTimestamp": "2026-11-29T15:04:05Z"},
                       {"token": "abc", "expirationTimestamp": "2026-11-29T15:04:05.123456789+02:00"},
                       {"clientCertificateData": "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n",
                        "clientKeyData": "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n"},
                       {}):
            doc = {"apiVersion": api_version, "kind": "ExecCredential", "status": status}
            write(out, "exec_credential", bytes([version_bit]) + json.dumps(doc).encode())
    write(out, "exec_credential", b"\0not json")


LABEL_SELECTORS = [
    "", "!app", "app!=db", "app==web", "app=web,!canary,env notin (prod),team,tier in (a,b)",
    "example.com/app=v1.2_3", "missing in (a)", "replicas<-3", "replicas>2", "tier in (b,a,b)",
    "x in (in,notin)", "z=1, a in (x), m, !b", "app=web,tier in (front),env in (a,b),team==x,zone!=z",
    "tier in (a,,b)", "a,-app=x",
]
FIELD_SELECTORS = [
    "", "metadata.name==web", "spec.nodeName!=n1,metadata.name=web", "spec.nodeName=",
    "spec.nodeName=n1,status.phase!=Failed", r"metadata.name=a\,b\=c\\d", "x", "a=b=c",
]


def seed_selectors(out):
    for s in LABEL_SELECTORS:
        write(out, "label_selector", s)
    for s in FIELD_SELECTORS:
        write(out, "field_selector", s)


def seed_status(out, objects):
    for obj in objects:
        if obj.get("kind") == "Status":
            write(out, "status", bytes([10]) + json.dumps(obj).encode())
    write(out, "status", bytes([29]) + b"Too many requests, please try again later.\n\x005")
    write(out, "status", bytes([4]) + b'{"kind":"Status","apiVersion":"v1","metadata":{},'
          b'"status":"Failure","reason":"NotFound","details":{"name":"web","kind":"pods",'
          b'"causes":[{"reason":"FieldValueRequired","field":"spec"}],"retryAfterSeconds":3},'
          b'"code":404}')


def http(method, target, headers=(), body=b""):
    lines = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1"] + list(headers)
    if body:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def seed_http(out, objects):
    deployment = next(o for o in objects if o.get("kind") == "Deployment")
    body = json.dumps(deployment).encode()
    requests = [
        http("GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb%2Ctier+in+(a%2Cb)"
             "&fieldSelector=spec.nodeName%3Dn1&limit=500"),
        http("GET", "/api/v1/pods?watch=1&resourceVersion=10&allowWatchBookmarks=true"
             "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=300"),
        http("GET", "/apis/apps/v1/deployments?limit=2&continue="
             "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NSwic3RhcnQiOiJkZWZhdWx0L3dlYlx1MDAwMCJ9"),
        http("GET", "/api/v1/watch/namespaces/kube-node-lease/leases"),
        http("POST", "/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl",
             ["Content-Type: application/json"], body),
        http("PUT", "/apis/apps/v1/namespaces/default/deployments/web",
             ["Content-Type: application/yaml"], b"apiVersion: apps/v1\nkind: Deployment\n"
             b"metadata:\n  name: web\nspec:\n  replicas: 3\n"),
        http("PATCH", "/apis/apps/v1/namespaces/default/deployments/web/scale",
             ["Content-Type: application/merge-patch+json"], b'{"spec":{"replicas":5}}'),
        http("PATCH", "/apis/apps/v1/namespaces/default/deployments/web?fieldManager=x&force=true",
             ["Content-Type: application/apply-patch+yaml"], b"apiVersion: apps/v1\n"
             b"kind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"),
        http("POST", "/api/v1/namespaces/default/pods",
             ["Content-Type: application/vnd.kubernetes.protobuf"],
             protobuf_body("v1", "Pod", field(1, field(1, "web")))),
        http("DELETE", "/api/v1/namespaces/default/pods?labelSelector=app", ["Transfer-Encoding: chunked"],
             b"")[:-4] + b"\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n2\r\n1}\r\n0\r\n\r\n",
    ]
    for request in requests:
        write(out, "sim_http_request", request)


PATCHES = [
    (0, '{"metadata":{"labels":{"a":null,"b":"c"}},"spec":{"replicas":4}}'),
    (1, '[{"op":"replace","path":"/spec/replicas","value":2},{"op":"add","path":"/metadata/labels/x",'
        '"value":"y"},{"op":"test","path":"/kind","value":"Deployment"},{"op":"remove",'
        '"path":"/spec/template/spec/containers/0"},{"op":"copy","from":"/metadata/name",'
        '"path":"/metadata/labels/n"},{"op":"move","from":"/metadata/labels/n","path":"/metadata/labels/~1m"}]'),
    (2, '{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"x"},{"name":"old","$patch":'
        '"delete"}],"$setElementOrder/containers":[{"name":"c"}]}}},"metadata":{"finalizers":["f"],'
        '"$deleteFromPrimitiveList/finalizers":["g"]}}'),
    (2, '{"spec":{"$retainKeys":["replicas"],"replicas":1,"strategy":{"$patch":"replace","type":"Recreate"}}}'),
    (2, "spec:\n  replicas: 7\n"),
]


def seed_patches(out, objects):
    for obj in objects:
        if obj.get("kind") not in ("Deployment", "Pod", "Node"):
            continue
        kind_index = {"Deployment": 0, "Pod": 1, "Node": 2}[obj["kind"]]
        stored = json.dumps(obj, separators=(",", ":")).encode()
        for mode, patch in PATCHES:
            mode_byte = mode if mode < 2 else 2 + 3 * kind_index
            write(out, "sim_patch", bytes([mode_byte]) + stored + b"\0" + patch.encode())
        live = {"metadata": {"name": "fuzz", "labels": {"app": "web"}}, "spec": obj.get("spec", {})}
        config = {"metadata": {"labels": {"team": "a"}}, "spec": {"replicas": 3} if kind_index == 0 else {}}
        update = {"metadata": {"labels": {"app": "db"}}, "spec": obj.get("spec", {})}
        for force in (0, 1):
            flags = kind_index << 2 | force
            write(out, "sim_apply", bytes([flags]) + json.dumps(live).encode() + b"\0" +
                  json.dumps(config).encode() + b"\0" + json.dumps(update).encode())
    managed = {"metadata": {"name": "fuzz", "managedFields": [
        {"manager": "kubectl", "operation": "Apply", "apiVersion": "apps/v1",
         "time": "2026-11-29T14:00:00Z", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:spec": {"f:replicas": {}}}}]}, "spec": {"replicas": 2}}
    write(out, "sim_apply", bytes([0]) + json.dumps(managed).encode() + b"\0" +
          b'{"spec":{"replicas":5,"template":{"spec":{"containers":[{"name":"a","image":"b"}]}}}}')


def main():
    out = pathlib.Path(sys.argv[1])
    here = pathlib.Path(__file__).resolve().parent
    shared = pathlib.Path(os.environ.get("RG_SHARED_DIR", here.parents[2] / "shared"))
    folder = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else shared / "fixtures" / "roundtrip"
    objects = list(fixtures(folder))
    if not objects:
        sys.exit(f"seed_corpus: no fixtures in {folder}")
    seed_decoders(out, objects)
    seed_protobuf(out)
    seed_config(out)
    seed_selectors(out)
    seed_status(out, objects)
    seed_http(out, objects)
    seed_patches(out, objects)


if __name__ == "__main__":
    main()
