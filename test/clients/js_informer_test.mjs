// The official JavaScript client (@kubernetes/client-node, its makeInformer) against a running
// kube-sim: informers on pods and deployments sync, see adds, updates and deletes, resume after
// kube-sim drops every watch (without a relist), and relist after a 410 (history compacted).
// Driven by js_client_test.py, which starts kube-sim:
//   node js_informer_test.mjs KUBECONFIG CLIENT_NODE_DIR KUBECTL
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [kubeconfig, moduleDir, kubectl] = process.argv.slice(2);
const k8s = await import(pathToFileURL(join(moduleDir, 'node_modules/@kubernetes/client-node/dist/index.js')));

const TIMEOUT_MS = 60000;  // generous: every wait ends as soon as its condition holds
const NS = 'js';
let passed = 0;
let failed = 0;

function check(what, ok, detail = '') {
  console.log(`${ok ? 'ok' : 'FAIL'}: ${what}${ok ? '' : ': ' + detail}`);
  if (ok) passed++; else failed++;
  return ok;
}

async function eventually(what, condition) {
  const deadline = Date.now() + TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await condition()) return check(what, true);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check(what, false, `not within ${TIMEOUT_MS / 1000} s`);
}

function run(...args) {
  return execFileSync(kubectl, ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' });
}

const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const core = kc.makeApiClient(k8s.CoreV1Api);
const apps = kc.makeApiClient(k8s.AppsV1Api);

// An informer that records what its handlers saw and how often it listed.
function informer(path, list) {
  const seen = { add: [], update: [], delete: [], errors: [], lists: 0 };
  const counted = () => { seen.lists++; return list(); };
  const inf = k8s.makeInformer(kc, path, counted);
  inf.on('add', (o) => seen.add.push(o.metadata.name));
  inf.on('update', (o) => seen.update.push(o.metadata.name));
  inf.on('delete', (o) => seen.delete.push(o.metadata.name));
  inf.on('error', (e) => seen.errors.push(String(e)));
  return { inf, seen };
}

function apiPodNames() {
  return JSON.parse(run('get', 'pods', '-n', NS, '-o', 'json')).items
    .map((p) => p.metadata.name).sort();
}

function cachedNames(inf) {
  return inf.list(NS).map((o) => o.metadata.name).sort();
}

function sameNames(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

await core.createNamespace({ body: { metadata: { name: NS } } });
const pods = informer(`/api/v1/namespaces/${NS}/pods`, () => core.listNamespacedPod({ namespace: NS }));
const deployments = informer(`/apis/apps/v1/namespaces/${NS}/deployments`,
  () => apps.listNamespacedDeployment({ namespace: NS }));
await pods.inf.start();
await deployments.inf.start();
check('both informers listed once at start', pods.seen.lists === 1 && deployments.seen.lists === 1,
  `pods ${pods.seen.lists}, deployments ${deployments.seen.lists}`);

await apps.createNamespacedDeployment({
  namespace: NS,
  body: {
    metadata: { name: 'web' },
    spec: {
      replicas: 2, selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'registry.example/web:1.0' }] },
      },
    },
  },
});
await eventually('the deployment informer sees the Deployment added',
  () => deployments.seen.add.includes('web'));
await eventually('the pod informer sees its 2 pods added, and they become Ready', () => {
  const cached = pods.inf.list(NS);
  return cached.length === 2 && cached.every((p) =>
    (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'));
});
await eventually('the deployment informer sees the status updates (readyReplicas 2)',
  () => deployments.inf.get('web', NS)?.status?.readyReplicas === 2);
check('status updates reached the update handler', deployments.seen.update.includes('web'));

const first = cachedNames(pods.inf)[0];
run('label', 'pod', first, '-n', NS, 'checked=yes');
await eventually('a label change reaches the pod informer as an update',
  () => pods.inf.get(first, NS)?.metadata?.labels?.checked === 'yes');

// kube-sim ends every watch; the informers resume from their resourceVersion, without a list.
run('create', '--raw', '/sim/faults/drop-watches', '-f', '/dev/null');
run('scale', 'deployment', 'web', '-n', NS, '--replicas=3');
await eventually('after the dropped watches, the third pod reaches the cache',
  () => pods.inf.list(NS).length === 3);
check('the dropped watches were resumed, not relisted', pods.seen.lists === 1,
  `lists: ${pods.seen.lists}`);

// Cut off from the API while the cluster moves on and history is compacted (its requests
// held for 3 s: a network partition), the informer's resume gets 410; it relists and catches up.
run('create', '--raw', '/sim/faults/partition?userAgent=node-fetch&seconds=3&mode=stall', '-f', '/dev/null');
run('create', '--raw', '/sim/faults/drop-watches', '-f', '/dev/null');
run('scale', 'deployment', 'web', '-n', NS, '--replicas=1');
run('create', '--raw', '/sim/faults/compact', '-f', '/dev/null');
await eventually('after a 410 the pod informer relisted', () => pods.seen.lists >= 2);
await eventually('and its cache matches the API again (1 pod)',
  () => pods.inf.list(NS).length === 1 && sameNames(cachedNames(pods.inf), apiPodNames()));
check('scaled-down pods reached the delete handler', pods.seen.delete.length >= 2,
  `deleted: ${pods.seen.delete}`);

await apps.deleteNamespacedDeployment({ name: 'web', namespace: NS });
await eventually('the Deployment delete reaches its informer', () => deployments.seen.delete.includes('web'));
await eventually('its pods are deleted from the pod informer too', () => pods.inf.list(NS).length === 0);
check('no informer reported an error', pods.seen.errors.length === 0 && deployments.seen.errors.length === 0,
  `${pods.seen.errors} ${deployments.seen.errors}`);

await pods.inf.stop();
await deployments.inf.stop();
console.log(`js-client: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
