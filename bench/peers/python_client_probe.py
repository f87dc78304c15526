#!/usr/bin/python3
"""python_client_probe: the official Python client (Debian's python3-kubernetes) as its users
keep a cache: a paginated LIST (500 a page, as client-go pages) into a dict of its typed objects,
then a watch from the list's resourceVersion applied to that dict. Measured as informer_probe
measures replica-guard's informer: one JSON line when the list is cached, one after K MODIFIED
events; the fields are informer_probe's (see informer_probe.cpp).

Usage: /usr/bin/python3 python_client_probe.py KUBECONFIG RESOURCE NAMESPACE UPDATES
       RESOURCE: pods, nodes or deployments; NAMESPACE "" for all"""
import json
import resource as rusage
import sys
import time

import kubernetes

PAGE = 500


def status_mib(field):
    """VmRSS or VmHWM of this process, in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds():
    usage = rusage.getrusage(rusage.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def list_function(resource, namespace):
    core, apps = kubernetes.client.CoreV1Api(), kubernetes.client.AppsV1Api()
    if resource == "nodes":
        return core.list_node, {}
    if resource == "pods":
        if namespace:
            return core.list_namespaced_pod, {"namespace": namespace}
        return core.list_pod_for_all_namespaces, {}
    if resource == "deployments":
        if namespace:
            return apps.list_namespaced_deployment, {"namespace": namespace}
        return apps.list_deployment_for_all_namespaces, {}
    raise SystemExit(f'python_client_probe: unknown resource "{resource}" (pods, nodes or deployments)')


def key(obj):
    return f"{obj.metadata.namespace or ''}/{obj.metadata.name}"


def main():
    kubeconfig, resource, namespace, wanted = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    kubernetes.config.load_kube_config(config_file=kubeconfig)
    line = {"client": "python3-kubernetes", "version": kubernetes.__version__,
            "rss_start_mib": status_mib("VmRSS")}
    start, start_cpu = time.monotonic(), cpu_seconds()
    list_objects, args = list_function(resource, namespace)
    cache, token = {}, None
    while True:
        page = list_objects(limit=PAGE, _continue=token, **args)
        for obj in page.items:
            cache[key(obj)] = obj
        token = page.metadata._continue
        if not token:
            break
    line.update(synced_seconds=time.monotonic() - start, synced_cpu_seconds=cpu_seconds() - start_cpu,
                objects=len(cache), rss_synced_mib=status_mib("VmRSS"), phase="synced")
    print(json.dumps(line), flush=True)

    if wanted > 0:
        updates, first, first_cpu = 0, 0.0, 0.0
        watch = kubernetes.watch.Watch()
        for event in watch.stream(list_objects, resource_version=page.metadata.resource_version, **args):
            if event["type"] == "DELETED":
                cache.pop(key(event["object"]), None)
                continue
            cache[key(event["object"])] = event["object"]
            if event["type"] != "MODIFIED":
                continue
            if updates == 0:
                first, first_cpu = time.monotonic(), cpu_seconds()
            updates += 1
            if updates == wanted:
                watch.stop()
        seconds, cpu = time.monotonic() - first, cpu_seconds() - first_cpu
        line.update(updates=updates, updates_seconds=seconds, updates_cpu_seconds=cpu,
                    updates_per_second=updates / seconds, updates_per_cpu_second=updates / cpu)
    line.update(rss_peak_mib=status_mib("VmHWM"), phase="done")
    print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
