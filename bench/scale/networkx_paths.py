#!/usr/bin/env python3
"""NetworkX's bidirectional shortest path next to propgraph's, on the same graphs and pairs.

Runs propgraph-scale (shortest_path, propgraph alone) with --dump-edges, then times
networkx.bidirectional_shortest_path on each edge list it wrote, from the same source to the
same target (the vertex of highest out-degree to a farthest vertex it reaches, edges followed
forward as propgraph's direction out), and prints both medians side by side, two ways:

  warm   runs follow each other, each reusing what the last left in the caches;
  cold   --sweep-caches: 64 MiB written before every run, as when a call comes between other
         work (propgraph-scale --sweep-caches=64 for propgraph, the same sweep here).

    bench/scale/networkx_paths.py [--scale=build/release/bench/propgraph-scale]
                                  [--generators=random,rmat] [--sizes=100000] [--repeats=5]
                                  [--dir=DIR]

Times are CPU seconds of the calling thread (time.thread_time), medians of --repeats runs after
3 untimed warm-ups, as propgraph-scale takes them. The NetworkX graph is a DiGraph of the edges
(parallel edges collapse, which changes no distance); its path length must equal propgraph's.
--dir keeps the edge lists and propgraph-scale's output there (default: a temporary directory,
removed afterwards). Needs NetworkX (Debian: python3-networkx, the bench group of
scripts/lib/packages.sh).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WARMUPS = 3
SWEEP_MIB = 64


def parse_args():
    root = Path(__file__).resolve().parents[2]
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", default=str(root / "build/release/bench/propgraph-scale"),
                   help="the propgraph-scale binary")
    p.add_argument("--generators", default="random,rmat")
    p.add_argument("--sizes", default="100000")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--dir", help="keep the edge lists and propgraph-scale's JSON here")
    return p.parse_args()


def load_average():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def propgraph_medians(json_path):
    """(generator, vertices) -> propgraph's median shortest_path seconds."""
    with open(json_path) as f:
        run = json.load(f)
    return {(row["generator"], row["vertices"]): row["median"] for row in run["rows"]
            if row.get("table") == "operations" and row.get("name") == "shortest_path"
            and row.get("contender") == "propgraph"}


def read_graph(nx, stem):
    with open(f"{stem}.query.json") as f:
        query = json.load(f)
    g = nx.DiGraph()
    g.add_nodes_from(range(query["vertices"]))
    with open(f"{stem}.edges") as f:
        g.add_edges_from(tuple(map(int, line.split())) for line in f)
    return g, query


def time_path(nx, g, source, target, repeats, sweep):
    """Median thread CPU seconds of bidirectional_shortest_path, and the path; with `sweep` a
    bytearray whose every 64th byte is written before each run (untimed)."""
    samples = []
    path = None
    for run in range(WARMUPS + repeats):
        if sweep is not None:
            sweep[::64] = bytes([run % 2]) * (len(sweep) // 64)
        t0 = time.thread_time()
        path = nx.bidirectional_shortest_path(g, source, target)
        t1 = time.thread_time()
        if run >= WARMUPS:
            samples.append(t1 - t0)
    return statistics.median(samples), path


def main():
    args = parse_args()
    import networkx as nx

    with tempfile.TemporaryDirectory() as scratch:
        out = Path(args.dir or scratch)
        out.mkdir(parents=True, exist_ok=True)
        ours = {}
        for mode, extra in (("warm", []), ("cold", [f"--sweep-caches={SWEEP_MIB}"])):
            json_path = out / f"propgraph-scale-{mode}.json"
            command = [args.scale, f"--generators={args.generators}", f"--sizes={args.sizes}",
                       "--only=shortest_path", "--contenders=propgraph", f"--repeats={args.repeats}",
                       f"--json={json_path}", *extra]
            if mode == "warm":
                command.append(f"--dump-edges={out}")
            sys.stdout.flush()
            subprocess.run(command, check=True)
            ours[mode] = propgraph_medians(json_path)

        print(f"\nNetworkX {nx.__version__} (Python {sys.version.split()[0]}) bidirectional_shortest_path on the "
              f"same edge lists and pairs; load average at start {load_average()}")
        print(f"CPU time of the calling thread, medians of {args.repeats} runs after {WARMUPS} warm-ups; "
              f"cold: {SWEEP_MIB} MiB written before every run\n")
        print(f"{'':<36}{'warm (ms)':^34}{'cold (ms)':^34}")
        print(f"{'graph':<14}{'pair':>16}{'hops':>6}" + f"{'propgraph':>11}{'NetworkX':>11}{'ratio':>12}" * 2)
        sweep = bytearray(SWEEP_MIB << 20)
        ok = True
        for generator in args.generators.split(","):
            for size in args.sizes.split(","):
                g, q = read_graph(nx, out / f"{generator}-{size}")
                cells = []
                note = ""
                for mode in ("warm", "cold"):
                    seconds, path = time_path(nx, g, q["source"], q["target"], args.repeats,
                                              sweep if mode == "cold" else None)
                    agree = len(path) - 1 == q["hops"]
                    mine = ours[mode].get((generator, q["vertices"]))
                    ok = ok and agree and mine is not None
                    mine_ms = f"{mine * 1e3:.3f}" if mine is not None else "-"
                    ratio = f"{seconds / mine:.1f}x" if mine else "-"
                    cells.append(f"{mine_ms:>11}{seconds * 1e3:>11.3f}{ratio:>12}")
                    if not agree:
                        note = f"  DISAGREE: NetworkX {len(path) - 1} hops, propgraph {q['hops']}"
                pair = f"{q['source']} -> {q['target']}"
                print(f"{generator + ' ' + size:<14}{pair:>16}{q['hops']:>6}" + "".join(cells) + note)
        print(f"\nratio: NetworkX time / propgraph time; load average at end {load_average()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
