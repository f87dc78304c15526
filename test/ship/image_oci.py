#!/usr/bin/env python3
"""The OCI image, built and run with the real tools: `scripts/image.sh --binary` packs the
build's replica-guard with buildah into an OCI archive; skopeo must show its entrypoint, its
non-root user, ports and labels; the archive, loaded back into a fresh buildah storage, holds no
shell and a stripped binary, and that binary -- started by `buildah run` as the image's own
user, with a kubeconfig mounted read-only -- talks to a kube-sim on 127.0.0.1 over TLS, answers
/healthz and /readyz, and exits 0 on SIGTERM. buildah runs with vfs storage (no overlay mounts)
and chroot isolation (no OCI runtime), each in a throwaway storage root. The Dockerfile must set
the same user, entrypoint, ports, environment and labels. Skips (77) without root, buildah or
skopeo, or mount namespaces, and for a sanitizer build.

Usage: image_oci.py REPLICA_GUARD KUBE_SIM"""
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.abspath(os.environ.get("RG_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", "..")))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from kube_sim_session import Checks, wait_for  # noqa: E402

SKIP = 77
UID = 65532
ENTRYPOINT = "/usr/local/bin/replica-guard"
CONFIG_DIR = "/etc/replica-guard"  # where the test mounts the kubeconfig inside the container


def skip_reason(binary):
    if os.geteuid() != 0:
        return "buildah's vfs storage and chroot isolation need root here"
    missing = [tool for tool in ("buildah", "skopeo") if not shutil.which(tool)]
    if missing:
        return f"{' and '.join(missing)} not found (scripts/setup.sh --tools installs them)"
    if subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode != 0:
        return "no mount namespaces here (an unprivileged container?): buildah run cannot isolate"
    ldd = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    if re.search(r"lib(a|ub|t)san", ldd):
        return "a sanitizer build (its runtime needs /proc and its own libraries)"
    return None


def project_version():
    with open(os.path.join(ROOT, "meson.build"), encoding="utf-8") as f:
        return re.search(r"^\s*version\s*:\s*'([^']+)'", f.read(), re.M).group(1)


def http(url):
    """(status, body) of a GET; status 0 while nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError:
        return 0, ""


class Buildah:
    """buildah with its own storage root under `work` (vfs, chroot isolation)."""

    def __init__(self, work):
        self.args = ["buildah", "--root", os.path.join(work, "storage"), "--runroot",
                     os.path.join(work, "run"), "--storage-driver", "vfs"]
        self.env = dict(os.environ, STORAGE_DRIVER="vfs", BUILDAH_ISOLATION="chroot")

    def command(self, *args):
        return [*self.args, *args]

    def run_printing(self, container, *argv):
        """`buildah run` of a process that prints and exits at once, retried while it printed
        nothing: buildah 1.28's chroot isolation now and then loses such a process's output (see
        scripts/image.sh)."""
        for _ in range(3):
            printed = self("run", container, "--", *argv)
            if printed:
                return printed
        return printed

    def __call__(self, *args):
        result = subprocess.run(self.command(*args), capture_output=True, text=True, env=self.env, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"buildah {' '.join(args)}: exit {result.returncode}: {result.stderr.strip()}")
        return result.stdout.strip()


def descendants(pid):
    """The processes below `pid`, as {pid: argv}."""
    parent, argv = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv[int(entry)] = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
        except OSError:
            continue  # ended meanwhile
    found, frontier = {}, {pid}
    while frontier:
        frontier = {child for child, p in parent.items() if p in frontier}
        found.update({child: argv.get(child, []) for child in frontier})
    return found


def ids(pid):
    """The real user and group ids of `pid`."""
    with open(f"/proc/{pid}/status") as f:
        fields = dict(line.split(":", 1) for line in f if ":" in line)
    return int(fields["Uid"].split()[0]), int(fields["Gid"].split()[0])


def dockerfile_runtime():
    """The Dockerfile's runtime stage (after its last FROM), as the image configuration it sets:
    {"User", "Entrypoint", "ExposedPorts", "Env", "Labels"}, with ARG defaults (the stage's or the
    global ones before the first FROM) substituted."""
    with open(os.path.join(ROOT, "Dockerfile"), encoding="utf-8") as f:
        text = re.sub(r"\\\n", " ", f.read())
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    froms = [i for i, line in enumerate(lines) if line.upper().startswith("FROM ")]
    # ARGs before the first FROM are global: a stage's bare `ARG NAME` takes their default.
    global_args = dict(line[4:].strip().partition("=")[::2] for line in lines[:froms[0]]
                       if line.upper().startswith("ARG "))
    stage = lines[froms[-1] + 1:]
    args, config = {}, {"Env": [], "ExposedPorts": set(), "Labels": {}}
    for line in stage:
        instruction, _, rest = line.partition(" ")
        rest = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), m.group(0)), rest.strip())
        instruction = instruction.upper()
        if instruction == "ARG":
            name, assigned, default = rest.partition("=")
            args[name] = default if assigned else global_args.get(name, "")
        elif instruction == "USER":
            config["User"] = rest
        elif instruction == "ENTRYPOINT":
            config["Entrypoint"] = json.loads(rest)
        elif instruction == "EXPOSE":
            config["ExposedPorts"] |= set(rest.split())
        elif instruction == "ENV":
            config["Env"] += shlex.split(rest)
        elif instruction == "LABEL":
            config["Labels"].update(pair.split("=", 1) for pair in shlex.split(rest))
    return config


def check_archive(checks, archive, version):
    """What skopeo reads from the archive: the runtime configuration and the labels, the same as
    the Dockerfile's."""
    inspect = json.loads(subprocess.run(["skopeo", "inspect", f"oci-archive:{archive}"], check=True,
                                        capture_output=True, text=True).stdout)
    config = json.loads(subprocess.run(["skopeo", "inspect", "--config", f"oci-archive:{archive}"], check=True,
                                       capture_output=True, text=True).stdout)
    runtime = config.get("config", {})
    checks.check("skopeo: the entrypoint is the binary, with no default command",
                 runtime.get("Entrypoint") == [ENTRYPOINT] and not runtime.get("Cmd"), str(runtime))
    checks.check(f"skopeo: the user is {UID}:{UID} (non-root)", runtime.get("User") == f"{UID}:{UID}",
                 repr(runtime.get("User")))
    checks.check("skopeo: ports 8443 (metrics, HTTPS) and 8081 (probes) exposed",
                 set(runtime.get("ExposedPorts", {})) == {"8443/tcp", "8081/tcp"}, str(runtime.get("ExposedPorts")))
    checks.check("skopeo: PATH set", "PATH=/usr/local/bin:/usr/bin" in runtime.get("Env", []), str(runtime.get("Env")))
    checks.check("skopeo: malloc's heap in transparent huge pages",
                 "GLIBC_TUNABLES=glibc.malloc.hugetlb=1" in runtime.get("Env", []), str(runtime.get("Env")))
    labels = inspect.get("Labels") or {}
    expected = {"org.opencontainers.image.title": "replica-guard",
                "org.opencontainers.image.version": version,
                "org.opencontainers.image.licenses": "Apache-2.0"}
    checks.check("skopeo: OCI labels title, version and licenses",
                 all(labels.get(k) == v for k, v in expected.items())
                 and labels.get("org.opencontainers.image.description"), str(labels))
    checks.check("skopeo: linux image of this machine's architecture, one layer",
                 inspect.get("Os") == "linux" and inspect.get("Architecture") == subprocess.run(
                     ["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
                 and len(inspect.get("Layers", [])) == 1,
                 f"{inspect.get('Os')}/{inspect.get('Architecture')}, layers {inspect.get('Layers')}")
    docker = dockerfile_runtime()
    built = {"User": runtime.get("User"), "Entrypoint": runtime.get("Entrypoint"),
             "ExposedPorts": set(runtime.get("ExposedPorts", {})),
             "Labels": {k: v for k, v in labels.items() if k.startswith("org.opencontainers.")}}
    for key, value in built.items():
        checks.check(f"the Dockerfile sets the same {key} as image.sh", docker.get(key) == value,
                     f"Dockerfile {docker.get(key)!r}, image.sh {value!r}")
    checks.check("the Dockerfile sets the same Env as image.sh", set(docker["Env"]) <= set(runtime.get("Env", [])),
                 f"Dockerfile {docker['Env']}, image.sh {runtime.get('Env')}")


def check_tree(checks, mountpoint):
    """The image's file tree: no shell, a stripped binary that its user cannot change."""
    shells = [p for p in ("bin/sh", "usr/bin/sh", "bin/bash", "usr/bin/bash", "bin/busybox")
              if os.path.lexists(os.path.join(mountpoint, p))]
    checks.check("the image has no shell", not shells, str(shells))
    binary = os.path.join(mountpoint, ENTRYPOINT.lstrip("/"))
    sections = subprocess.run(["readelf", "-S", "-W", binary], capture_output=True, text=True).stdout
    checks.check("the image's binary is stripped (no .symtab, no .debug_*)",
                 ".text" in sections and ".symtab" not in sections and ".debug_" not in sections,
                 "readelf -S shows them")
    info = os.stat(binary)
    checks.check("the binary is root's, not writable by others", info.st_uid == 0 and not info.st_mode & 0o022,
                 f"uid {info.st_uid} mode {oct(info.st_mode)}")


def run_against_kube_sim(checks, buildah, container, kube_sim, work):
    """The image's binary, as the image's user, against kube-sim on 127.0.0.1."""
    config_dir = os.path.join(work, "config")
    os.mkdir(config_dir)
    os.chmod(config_dir, 0o755)  # the image's user must reach the mounted kubeconfig
    kubeconfig = os.path.join(config_dir, "kubeconfig")
    with open(os.path.join(work, "kube-sim.log"), "w") as sim_log:
        sim = subprocess.Popen([kube_sim, "--port", "0", "--nodes", "1", "--write-kubeconfig", kubeconfig],
                               stdout=subprocess.PIPE, stderr=sim_log, text=True)
    operator = None
    try:
        banner = sim.stdout.readline().strip()
        if not checks.check("kube-sim started", banner.startswith("kube-sim serving on"), banner):
            return
        os.chmod(kubeconfig, 0o644)
        log_path = os.path.join(work, "replica-guard.log")
        with open(log_path, "w") as log:
            operator = subprocess.Popen(
                buildah.command("run", "--volume", f"{config_dir}:{CONFIG_DIR}:ro", container, "--", ENTRYPOINT,
                                "--kubeconfig", f"{CONFIG_DIR}/kubeconfig", "--metrics-bind-address", "0",
                                "--health-probe-bind-address", "127.0.0.1:0"),
                stdout=log, stderr=subprocess.STDOUT, env=buildah.env)

        def log_text():
            with open(log_path) as f:
                return f.read()

        def probes_address():
            found = re.search(r"serving address=(\S+) endpoints=\"/healthz /readyz\"", log_text())
            return found.group(1) if found else None

        try:
            wait_for("the image's replica-guard serving its probes",
                     lambda: operator.poll() is not None or probes_address(), 30)
        except RuntimeError as e:
            checks.check("replica-guard in the image serves its probes", False, f"{e}\n{log_text()}")
            return
        if not checks.check("replica-guard in the image starts", operator.poll() is None, log_text()[-2000:]):
            return
        probes = probes_address()
        checks.check("/healthz answers 200 from inside the image", http(f"http://{probes}/healthz")[0] == 200,
                     str(http(f"http://{probes}/healthz")))
        checks.eventually("/readyz answers 200: caches synced from kube-sim over TLS",
                          lambda: http(f"http://{probes}/readyz")[0] == 200, 30)
        checks.eventually("the informers synced kube-sim's node",
                          lambda: re.search(r"caches synced .*nodes=1", log_text()), 10)

        inside = [pid for pid, argv in descendants(operator.pid).items() if argv[:1] == [ENTRYPOINT]]
        if not checks.check("the process runs under buildah run", len(inside) == 1, str(descendants(operator.pid))):
            return
        checks.check(f"it runs as the image's user {UID}:{UID}", ids(inside[0]) == (UID, UID), str(ids(inside[0])))
        os.kill(inside[0], signal.SIGTERM)
        try:
            code = operator.wait(timeout=30)
        except subprocess.TimeoutExpired:
            code = None
        checks.check("SIGTERM: it shuts down and buildah run exits 0",
                     code == 0 and "shutting down" in log_text(), f"exit {code}: {log_text()[-1500:]}")
    finally:
        for process in (operator, sim):
            if process and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def main():
    binary, kube_sim = (os.path.abspath(a) for a in sys.argv[1:3])
    reason = skip_reason(binary)
    if reason:
        print(f"SKIP: {reason}")
        return SKIP
    version = project_version()
    checks = Checks("image_oci.py")
    work = tempfile.mkdtemp(prefix="rg-image-")
    container = None
    buildah = Buildah(work)
    try:
        archive = os.path.join(work, "replica-guard.oci.tar")
        started = time.monotonic()
        built = subprocess.run([os.path.join(ROOT, "scripts", "image.sh"), "--binary", binary, "--output", archive,
                                "--tag", f"replica-guard:{version}"], capture_output=True, text=True, timeout=300)
        print(built.stdout + built.stderr, end="")
        if not checks.check("scripts/image.sh --binary builds and proves the image", built.returncode == 0,
                            f"exit {built.returncode}"):
            return checks.result()
        print(f"image.sh took {time.monotonic() - started:.1f}s; the archive is "
              f"{os.path.getsize(archive) / 2**20:.1f} MiB")
        check_archive(checks, archive, version)

        # The archive loads into a storage that never saw the build: it is self-contained.
        container = buildah("from", "--name", "rg-image-test", f"oci-archive:{archive}")
        check_tree(checks, buildah("mount", container))
        buildah("umount", container)
        printed = buildah.run_printing(container, ENTRYPOINT, "--version")
        checks.check(f"buildah run: --version prints {version}", version in printed, printed)
        printed = buildah.run_printing(container, ENTRYPOINT, "--help")
        checks.check("buildah run: --help documents the flags",
                     "Usage:" in printed and "--leader-elect" in printed, printed[:500])
        shell = subprocess.run(buildah.command("run", container, "--", "/bin/sh", "-c", "true"),
                               capture_output=True, text=True, env=buildah.env)
        checks.check("buildah run: /bin/sh cannot start (no shell)", shell.returncode != 0, shell.stdout)
        run_against_kube_sim(checks, buildah, container, kube_sim, work)
        print(f"image test took {time.monotonic() - started:.1f}s in all")
    finally:
        if container:
            subprocess.run(buildah.command("rm", container), capture_output=True, env=buildah.env)
        # On failure the logs and the archive stay; buildah's storage (image copies) goes.
        for name in ("storage", "run") if checks.failed else ("",):
            shutil.rmtree(os.path.join(work, name), ignore_errors=True)
        if checks.failed:
            print(f"Logs and the archive kept in {work}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
