"""The node-failure timeline as a picture (matplotlib, Debian's python3-matplotlib): one panel per
setup of the outcome harness, real-cluster seconds from the death on the x axis, and the three
counts the harness observed from its watches (outcome.real_seconds): serving replicas (Ready on a
live node), replicas Ready in the API (what Services route to) and spec.replicas. Drawn by
scripts/demo.py --plot."""
import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

FIELDS = ("serving", "ready_in_api", "replicas")
TITLES = {"defaults": "Kubernetes' defaults (300 s tolerations)",
          "toleration-30": "pod template tolerationSeconds: 30",
          "toleration-0": "pod template tolerationSeconds: 0",
          "replica-guard": "replica-guard"}


def _steps(samples, field, end):
    """x and y of a step line holding each sample's value until the next (the last until `end`)."""
    xs = [s["t"] for s in samples] + [end]
    ys = [s[field] for s in samples]
    return xs, ys + ys[-1:]


def draw_timeline(timeline, desired, path, title="One node dies"):
    """Writes the PNG: `timeline` is setup -> samples in real-cluster seconds (outcome.real_seconds),
    `desired` the replicas each Deployment asks for."""
    setups = [s for s in TITLES if timeline.get(s)]
    if not setups:
        raise ValueError("the timeline has no samples: nothing to plot")
    end = max(s["t"] for samples in timeline.values() for s in samples) * 1.03 + 1
    figure, panels = plt.subplots(len(setups), 1, figsize=(8, 1.9 * len(setups) + 0.6), dpi=110,
                                  sharex=True, squeeze=False)
    values = [s[f] for samples in timeline.values() for s in samples for f in FIELDS if s[f] is not None]
    low, high = min(values + [desired]), max(values + [desired])
    for axes, setup in zip(panels[:, 0], setups):
        samples = timeline[setup]
        for field, label, style in (
                ("serving", "serving (Ready on a live node)", dict(color="#1f6feb", linewidth=4, alpha=0.55)),
                ("ready_in_api", "Ready in the API (Services route to them)",
                 dict(color="#e36209", linestyle=":", linewidth=2)),
                ("replicas", "spec.replicas", dict(color="#24292f", linestyle="--", linewidth=1.3))):
            axes.step(*_steps(samples, field, end), where="post", label=label, **style)
        axes.set_title(TITLES[setup], fontsize=10, loc="left")
        axes.set_ylim(low - 0.6, high + 0.6)
        axes.set_yticks(range(low, high + 1))
        axes.grid(True, alpha=0.3)
    panels[0, 0].legend(fontsize=8, loc="upper right")
    panels[-1, 0].set_xlabel("seconds after the node's death (real-cluster seconds)")
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path
