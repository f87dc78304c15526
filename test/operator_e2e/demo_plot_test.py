#!/usr/bin/python3
"""The demo's --plot (scripts/demo.py, scripts/timeline_plot.py): runs the demo with Kubernetes'
timings x0.05, drawing the observed node-failure timeline into a temporary PNG, and checks the
courses it prints -- every setup lost one serving replica at the death and got it back, only
replica-guard's spec.replicas rose above the desired 4 and came back to it -- and that the PNG was
written. Skips (77) without kubectl or python3-matplotlib.

Usage: demo_plot_test.py BUILD_DIR"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from kube_sim_session import Checks  # noqa: E402
SETUPS = ("defaults", "toleration-30", "toleration-0", "replica-guard")


def main():
    build_dir = sys.argv[1]
    kubectl = shutil.which("kubectl") or os.path.join(ROOT, ".tools", "bin", "kubectl")
    if not os.access(kubectl, os.X_OK):
        print("skipped: kubectl is missing (scripts/setup.sh --tools installs it)")
        return 77
    if subprocess.run([sys.executable, "-c", "import matplotlib"], capture_output=True).returncode:
        print(f"skipped: python3-matplotlib is missing for {sys.executable} (scripts/setup.sh installs it)")
        return 77
    env = dict(os.environ, PATH=os.path.dirname(kubectl) + os.pathsep + os.environ.get("PATH", ""))
    out = tempfile.mkdtemp(prefix="demo-plot-")
    checks = Checks("demo-plot")
    check = checks.check
    try:
        png = os.path.join(out, "timeline.png")
        result = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "demo.py"), build_dir,
                                 "--time-scale", "0.05", "--plot", png],
                                capture_output=True, text=True, timeout=280, env=env)
        print(result.stdout, result.stderr, sep="\n")
        check("the demo succeeds", result.returncode == 0, f"exit {result.returncode}")
        courses = dict(re.findall(r"^timeline web-(\S+): (.*)$", result.stdout, re.M))
        for setup in SETUPS:
            course = courses.get(setup, "")
            serving = re.search(r"serving (\S+),", course)
            replicas = re.search(r"spec\.replicas (\S+)$", course)
            steps = serving.group(1).split("->") if serving else []
            check(f"web-{setup} lost a serving replica at the death and got it back",
                  steps[:1] == ["3"] and steps[-1:] == ["4"], course)
            counts = [int(v) for v in replicas.group(1).split("->")] if replicas else []
            if setup == "replica-guard":
                check("replica-guard raised spec.replicas and brought it back to 4",
                      counts[:1] == [4] and max(counts, default=0) > 4 and counts[-1:] == [4], course)
            else:
                check(f"web-{setup} kept spec.replicas at 4", counts == [4], course)
        check("the timeline PNG was written", os.path.exists(png) and os.path.getsize(png) > 10000)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
