"""The peer comparison's plots (matplotlib, Debian's python3-matplotlib), from bench/peers/run.py's
results: time to synced, peak memory and updates per CPU-second against the fleet size, one line
per client (sizes a client was not run at are left out of its line)."""
import os

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"replica-guard": ("#1f6feb", "o"), "client-node": ("#e36209", "s"),
         "python3-kubernetes": ("#6f42c1", "^")}


def _series(results, client, value):
    runs = sorted((r for r in results["runs"] if r["client"] == client and "skipped" not in r),
                  key=lambda r: r["pods"])
    return [r["pods"] for r in runs], [value(r) for r in runs]


def _plot(results, path, title, ylabel, value, dashed=None):
    """One figure: `value` of each run as a line per client, and `dashed` (if given) beside it."""
    figure, axes = plt.subplots(figsize=(7, 4.2), dpi=110)
    for client in results["clients"]:
        pods, values = _series(results, client, value)
        if not pods:
            continue
        color, marker = STYLE.get(client, ("#444444", "o"))
        axes.plot(pods, values, marker=marker, color=color, label=client)
        if dashed:
            axes.plot(pods, _series(results, client, dashed)[1], marker=marker, color=color,
                      linestyle="--", alpha=0.6, markerfacecolor="none")
    axes.set_xscale("log")
    axes.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x / 1000:g}k"))
    axes.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axes.set_xticks(sorted({r["pods"] for r in results["runs"]}))
    axes.set_yscale("log")
    axes.set_xlabel("pods in the cluster (realistic, "
                    f"{results.get('pod_json_bytes', 0) / 1000:.1f} KB of JSON each)")
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path


def draw_plots(results, directory):
    """Writes peers-sync.png, peers-memory.png and peers-updates.png into `directory`; returns
    their paths."""
    os.makedirs(directory, exist_ok=True)
    return [
        _plot(results, os.path.join(directory, "peers-sync.png"), "Time to synced (informer cache full)",
              "seconds: wall (solid), CPU (dashed)", lambda r: r["synced_seconds"],
              dashed=lambda r: r["synced_cpu_seconds"]),
        _plot(results, os.path.join(directory, "peers-memory.png"), "Peak memory of the client process",
              "peak RSS, MiB", lambda r: r["rss_peak_mib"]),
        _plot(results, os.path.join(directory, "peers-updates.png"),
              "Update events handled per CPU-second", "MODIFIED events per CPU-second",
              lambda r: r["updates_per_cpu_second"]),
    ]
