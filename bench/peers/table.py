"""The peer comparison's results (bench/peers/run.py's results.json) as Markdown tables: time to
synced, memory and update throughput per fleet size, each peer beside replica-guard with the ratio
(the peer's cost over replica-guard's: CPU seconds to sync, peak RSS, CPU per update). CPU
figures are the ones to compare on a shared machine; wall times are given beside them."""

# Quoted, not measured: client-go cannot be installed on the machine that runs this.
CLIENT_GO_QUOTED = ("client-go (quoted, not measured here: Go is not installable on this machine): "
                    "about 19 s to sync 100k pods, ~9 KB of heap per cached pod.")


def _runs(results):
    """{(client, pods): run} and the ordered clients and sizes."""
    runs = {(r["client"], r["pods"]): r for r in results["runs"]}
    sizes = sorted({r["pods"] for r in results["runs"]})
    return runs, results["clients"], sizes


def _label(results, client):
    for run in results["runs"]:
        if run["client"] == client and "version" in run:
            return f"{run['name']} {run['version']}"
    return client


def _table(results, title, cell, cost):
    """One table: a row per size, a column per client, a ratio column per peer."""
    runs, clients, sizes = _runs(results)
    header = ["pods"]
    for client in clients:
        header.append(_label(results, client))
        if client != "replica-guard":
            header.append("×")
    lines = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for pods in sizes:
        row = [f"{pods:,}"]
        ours = runs.get(("replica-guard", pods))
        for client in clients:
            run = runs.get((client, pods))
            measured = run is not None and "skipped" not in run
            row.append(cell(run) if measured else "failed" if run and run.get("failed") else "not run")
            if client != "replica-guard":
                ratio = cost(run) / cost(ours) if measured and ours and cost(ours) > 0 else None
                row.append(f"{ratio:,.1f}×" if ratio else "")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def render_tables(results):
    """The Markdown: a line on the setup, three tables, the skipped runs and the quoted client-go."""
    loads = [r["load_average"] for r in results["runs"] if "load_average" in r]
    updates = results["updates"]
    text = [
        f"Realistic pods of {results.get('pod_json_bytes', 0) / 1000:.1f} KB of JSON each; each client "
        f"then handles min({updates:,}, pods) MODIFIED events. {results['cpus']} CPUs, load average "
        f"{min(loads, default=0):g}-{max(loads, default=0):g} during the run (a shared machine: "
        "compare the CPU figures). × is the peer's cost over replica-guard's.",
        "",
        _table(results, "Time to synced: wall (CPU) seconds; × on CPU",
               lambda r: f"{r['synced_seconds']:.2f} s ({r['synced_cpu_seconds']:.2f})",
               lambda r: r["synced_cpu_seconds"]),
        "",
        _table(results, "Memory: RSS at synced / peak, MiB (the whole process); × on peak",
               lambda r: f"{r['rss_synced_mib']:.0f} / {r['rss_peak_mib']:.0f}",
               lambda r: r["rss_peak_mib"]),
        "",
        _table(results, "Updates handled: per CPU-second (per wall second); × on CPU per update",
               lambda r: f"{r['updates_per_cpu_second']:,.0f} ({r['updates_per_second']:,.0f})",
               lambda r: 1 / r["updates_per_cpu_second"]),
    ]
    skipped = [f"- {_label(results, r['client'])} at {r['pods']:,} pods: {r['skipped']}"
               for r in results["runs"] if "skipped" in r]
    if skipped:
        text += ["", *skipped]
    text += ["", CLIENT_GO_QUOTED, ""]
    return "\n".join(text)
