// client_node_probe: the official JavaScript client's informer (@kubernetes/client-node's
// makeInformer, as its README shows it) measured as informer_probe measures replica-guard's: one
// JSON line when synced (start() resolved: listed and watching), one after K update events. The
// fields are informer_probe's (see informer_probe.cpp).
//
// Usage: node client_node_probe.mjs CLIENT_NODE_DIR KUBECONFIG RESOURCE NAMESPACE UPDATES
//        RESOURCE: pods, nodes or deployments; NAMESPACE "" for all
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [moduleDir, kubeconfig, resource, namespace, updatesWanted] = process.argv.slice(2);
const packageDir = join(moduleDir, 'node_modules/@kubernetes/client-node');
const k8s = await import(pathToFileURL(join(packageDir, 'dist/index.js')));
const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));

// VmRSS or VmHWM of this process, in MiB.
function statusMib(field) {
  const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith(field + ':'));
  return line ? Number(line.split(/\s+/)[1]) / 1024 : 0;
}

function cpuSeconds() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const core = kc.makeApiClient(k8s.CoreV1Api);
const apps = kc.makeApiClient(k8s.AppsV1Api);
const ns = namespace ? `/namespaces/${namespace}` : '';
const informers = {
  pods: [`/api/v1${ns}/pods`,
    () => (namespace ? core.listNamespacedPod({ namespace }) : core.listPodForAllNamespaces())],
  nodes: ['/api/v1/nodes', () => core.listNode()],
  deployments: [`/apis/apps/v1${ns}/deployments`,
    () => (namespace ? apps.listNamespacedDeployment({ namespace }) : apps.listDeploymentForAllNamespaces())],
};
if (!informers[resource]) {
  console.error(`client_node_probe: unknown resource "${resource}" (pods, nodes or deployments)`);
  process.exit(2);
}

const wanted = Number(updatesWanted);
let updates = 0;
let firstUpdate = 0;
let firstUpdateCpu = 0;
let allUpdates;
const allSeen = new Promise((resolve) => { allUpdates = resolve; });
const line = { client: '@kubernetes/client-node', version, rss_start_mib: statusMib('VmRSS') };

const start = performance.now();
const startCpu = cpuSeconds();
const informer = k8s.makeInformer(kc, ...informers[resource]);
informer.on('update', () => {
  if (updates++ === 0) {
    firstUpdate = performance.now();
    firstUpdateCpu = cpuSeconds();
  }
  if (updates === wanted) allUpdates();
});
let stopping = false;
informer.on('error', (error) => {
  if (stopping) return;  // stop() aborts the watch
  console.error(`client_node_probe: the informer failed: ${error}`);
  process.exit(1);
});
await informer.start();
line.synced_seconds = (performance.now() - start) / 1000;
line.synced_cpu_seconds = cpuSeconds() - startCpu;
line.objects = informer.list().length;
line.rss_synced_mib = statusMib('VmRSS');
line.phase = 'synced';
console.log(JSON.stringify(line));

if (wanted > 0) {
  await allSeen;
  const seconds = (performance.now() - firstUpdate) / 1000;
  const cpu = cpuSeconds() - firstUpdateCpu;
  Object.assign(line, {
    updates, updates_seconds: seconds, updates_cpu_seconds: cpu,
    updates_per_second: updates / seconds, updates_per_cpu_second: updates / cpu,
  });
}
line.rss_peak_mib = statusMib('VmHWM');
line.phase = 'done';
console.log(JSON.stringify(line));
stopping = true;
await informer.stop();
process.exit(0);
