"""Compare the reader's speed with several models: ``bench_reader.py`` for each in turn, rounds.

Each run is a process of its own, because two onnxruntime sessions in one process slow each
other down unevenly; ``--one-process`` times them that way instead (all readers in this
process, taking turns every dozen frames), to show the difference. The order of the models
reverses every round, so a host that speeds up or slows down meanwhile favours none. Prints one
JSON line per model: the median of the runs' medians, the lowest of them (the host's quietest
stretch), and each run's median and p90. Run:
``.venv/bin/python benchmarks/bench_models.py [--rounds 4] [--frames 200] MODEL... [-- IMAGE...]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import cv2
from bench_reader import bench_frames

from scorekeeper.errors import ImageError
from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path

BENCH = Path(__file__).resolve().with_name("bench_reader.py")


def one_process(models: list[Path], images: list[str], rounds: int, threads: int) -> int:
    """Every model's reader in this process, taking turns; print a median per model."""
    cv2.setNumThreads(threads)  # as bench_reader.py: one thread means OpenCV's too
    try:
        frames = bench_frames(images)
        readers = {m: DiceReader(m, ReaderConfig(threads=threads)) for m in models}
    except (ImageError, ValueError) as exc:
        print(f"bench_models: {exc}", file=sys.stderr)
        return 2
    times: dict[Path, list[float]] = {m: [] for m in models}
    for r in range(2 + rounds * 10):  # two warm-up turns
        for model in models if r % 2 == 0 else models[::-1]:
            for _ in range(2):
                for frame in frames:
                    start = time.perf_counter()
                    readers[model].infer(frame)
                    if r >= 2:
                        times[model].append((time.perf_counter() - start) * 1000)
    for model, ms in times.items():
        line = {"model": str(model), "one_process": True, "frames": len(ms)}
        line["ms_median"] = round(statistics.median(ms), 2)
        print(json.dumps(line))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the rounds; print the JSON lines; return the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    images: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, images = argv[:cut], argv[cut + 1 :]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", type=Path, help="models (default: the bundled one)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--frames", type=int, default=200, help="timed reads per run")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--one-process", action="store_true", help="all readers in this process, taking turns"
    )
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.frames < 1:
        print("bench_models: --rounds and --frames must be at least 1", file=sys.stderr)
        return 2
    args.models = args.models or [default_model_path()]
    if args.one_process:
        return one_process(args.models, images, args.rounds, args.threads)
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
