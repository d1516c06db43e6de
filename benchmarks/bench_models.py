"""Compare the reader's speed with several models: ``bench_reader.py`` for each in turn, rounds.

Each run is a process of its own, because two onnxruntime sessions in one process slow each other
down unevenly (an int8 model read 18.2 ms alone and 23.3 ms beside the float one, on the same
host in the same minutes). The order of the models reverses every round, so a host that speeds up
or slows down meanwhile favours none. Prints one JSON line per model: the median of the runs'
medians, the lowest of them (the host's quietest stretch), and each run's median and p90. Run:
``.venv/bin/python benchmarks/bench_models.py [--rounds 4] [--frames 200] MODEL... [-- IMAGE...]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().with_name("bench_reader.py")


def main(argv: list[str] | None = None) -> int:
    """Run the rounds; print the JSON lines; return the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    images: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, images = argv[:cut], argv[cut + 1 :]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", type=Path)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--frames", type=int, default=200, help="timed reads per run")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.frames < 1:
        print("bench_models: --rounds and --frames must be at least 1", file=sys.stderr)
        return 2
    runs: dict[Path, list[dict[str, float]]] = {m: [] for m in args.models}
    for r in range(args.rounds):
        for model in args.models if r % 2 == 0 else args.models[::-1]:
            cmd = [sys.executable, str(BENCH), "--threads", str(args.threads)]
            cmd += ["--frames", str(args.frames), "--model", str(model), *images]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                print(f"bench_models: {model}: {done.stderr.strip()}", file=sys.stderr)
                return 2
            runs[model].append(json.loads(done.stdout.strip().splitlines()[-1]))
    for model, got in runs.items():
        medians = [g["ms_median"] for g in got]
        line = {
            "model": str(model),
            "ms_median": round(statistics.median(medians), 2),
            "ms_best_run": min(medians),
            "runs_ms_median": medians,
            "runs_ms_p90": [g["ms_p90"] for g in got],
        }
        print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
