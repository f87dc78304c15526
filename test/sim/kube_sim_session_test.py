#!/usr/bin/env python3
"""scripts/kube_sim_session.py's KubeSim removes its work directory after a run that went well,
and keeps it (printing its path) after a failed check or an exception. Skips (77) without
kubectl.

Usage: kube_sim_session_test.py BUILD_DIR"""
import contextlib
import io
import os
import shutil
import sys

repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(repo, "scripts"))
from kube_sim_session import Checks, KubeSim, skip_without_kubectl  # noqa: E402


def start(build_dir):
    tools_kubectl = os.path.join(repo, ".tools", "bin", "kubectl")
    kubectl = tools_kubectl if os.access(tools_kubectl, os.X_OK) else None
    return KubeSim(build_dir, "--nodes", "1", kubectl=kubectl)


@skip_without_kubectl
def main():
    build_dir = sys.argv[1]
    failures = []

    def expect(what, ok):
        print(f"{'ok' if ok else 'FAIL'}: {what}", flush=True)
        if not ok:
            failures.append(what)

    sim = start(build_dir)
    with sim:
        work = sim.work
        sim.run("get", "namespaces")
    expect("a run that went well leaves no work directory", not os.path.exists(work))

    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), start(build_dir) as sim:
        work = sim.work
        Checks("deliberately failing").check("a check that fails on purpose", False)
    expect("a failed check keeps the work directory", os.path.isdir(work))
    expect("and prints its path", work in stderr.getvalue())
    expect("with kube-sim's log in it", os.path.isfile(os.path.join(work, "kube-sim.log")))
    shutil.rmtree(work, ignore_errors=True)

    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), start(build_dir) as sim:
            work = sim.work
            raise RuntimeError("a test that raises")
    except RuntimeError:
        pass
    expect("an exception keeps the work directory", os.path.isdir(work) and work in stderr.getvalue())
    shutil.rmtree(work, ignore_errors=True)

    sim = start(build_dir)
    work = sim.work
    sim.close()
    sim.close()
    expect("close() without a context manager cleans up too, and twice is harmless",
           not os.path.exists(work))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
