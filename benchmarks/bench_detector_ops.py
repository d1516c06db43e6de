"""Where the detector's time goes, operator by operator: onnxruntime's own profiler.

Runs the model's 512 px detector pass (a 384×512 input, no patches) on one thread, after
warm-up, and prints one JSON line per model: the total kernel time per run and the slowest
nodes, in ms per run. Models alternate, ``--rounds`` times. Run:
``.venv/bin/python benchmarks/bench_detector_ops.py [--runs 60] [--rounds 3] [--top 5] MODEL...``
(default: the bundled model).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from scorekeeper.vision import default_model_path


def profile(model: Path, runs: int, top: int) -> dict[str, object]:
    """Kernel time per run of ``model``'s detector pass: in all, and its ``top`` slowest nodes."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    with tempfile.TemporaryDirectory() as tmp:
        opts.enable_profiling = True
        opts.profile_file_prefix = str(Path(tmp) / "ops")
        session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
        names = {i.name for i in session.get_inputs()}
        feed = {"image": np.random.default_rng(0).random((1, 1, 384, 512), np.float32)}
        if "patches" in names:
            feed["patches"] = np.zeros((0, 3, 48, 48), np.float32)
        for _ in range(runs):
            session.run(["heat", "value", "size"], feed)
        events = json.loads(Path(session.end_profiling()).read_text())
    nodes: collections.Counter[str] = collections.Counter()
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            nodes[f"{e['args']['op_name']} {e['name'].removesuffix('_kernel_time')}"] += e["dur"]
    per_run = 1000.0 * runs  # microseconds in all -> ms per run
    return {
        "model": str(model),
        "ms_per_run": round(sum(nodes.values()) / per_run, 3),
        "slowest": {n: round(d / per_run, 3) for n, d in nodes.most_common(top)},
    }


def main(argv: list[str] | None = None) -> int:
    """Profile each model in turn; print the JSON lines."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", type=Path, help="models (default: the bundled one)")
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--top", type=int, default=5)
    args = ap.parse_args(argv)
    models = args.models or [default_model_path()]
    if args.runs < 1 or args.rounds < 1 or args.top < 0:
        print("bench_detector_ops: --runs and --rounds must be at least 1", file=sys.stderr)
        return 2
    missing = [m for m in models if not m.is_file()]
    if missing:
        print(f"bench_detector_ops: no model at {missing[0]}", file=sys.stderr)
        return 2
    for _ in range(args.rounds):
        for model in models:
            print(json.dumps(profile(model, args.runs, args.top)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
