"""The built-in demo camera's thrown dice: how often the reader reads a throw exactly, and how
long one takes to render.

    python benchmarks/bench_demo_throws.py [--throws 300] [--seed 0] [--threads 1] [--count-known]

Renders throws as the demo does once a play page asks for dice (``DemoSource.render_throw``: one
to six dice in turn, the tables of ``THROW_STYLES`` in turn) and reads each still picture once
with the bundled model. The camera votes over five still frames, so this is the single-frame
figure. Prints one JSON line: the share read exactly (the same dice, none extra), per number of
dice and per table, the misread throws, and the median and slowest render times in ms. With
``--count-known`` each throw is read knowing how many dice were thrown, as the camera reads the
throw a game waits for (dice turned down make up a short count, marked unsure).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorekeeper.camera.sources import DemoSource  # noqa: E402
from scorekeeper.vision import DiceReader, ReaderConfig  # noqa: E402


def main() -> int:
    """Render, read and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--throws", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0, help="the demo's seed (the app's is 0)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--count-known", action="store_true", help="read knowing each throw's count")
    args = ap.parse_args()
    if args.throws < 1:
        print("bench_demo_throws: --throws must be at least 1", file=sys.stderr)
        return 2
    reader = DiceReader(config=ReaderConfig(threads=args.threads))
    demo = DemoSource(seed=args.seed)
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    wrong: list[dict[str, object]] = []
    render_ms: list[float] = []
    for k in range(args.throws):
        n = 1 + k % 6
        start = time.perf_counter()
        name, picture, truth, _ = demo.render_throw(n)
        render_ms.append((time.perf_counter() - start) * 1000)
        expect = n if args.count_known else None
        read = sorted(d.value for d in reader.infer(picture, expect=expect))
        table = name.rsplit("-", 1)[1]
        for key in (f"dice_{n}", table):
            total[key] += 1
            right[key] += read == truth
        if read != truth:
            wrong.append({"throw": name, "truth": truth, "read": read})
    exact = sum(right[f"dice_{n}"] for n in range(1, 7))
    print(
        json.dumps(
            {
                "throws": args.throws,
                "count_known": args.count_known,
                "exact": round(exact / args.throws, 4),
                "by_group": {k: f"{right[k]}/{total[k]}" for k in sorted(total)},
                "wrong": wrong,
                "render_ms_median": round(statistics.median(render_ms), 1),
                "render_ms_max": round(max(render_ms), 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
