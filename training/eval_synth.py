"""The reader's figures on synthetic 640×480 scenes, e.g. on the held-out ``marble`` background.

    python -m training.eval_synth [--style marble] [--scenes 100] [--model PATH]
                                  [--die-size LO HI] [--dice N] [--single-scale]
                                  [--colour-pips SHARE] [--swirls]

Scenes use seeds far from the training ones; prints one JSON object per style.
"""

from __future__ import annotations

import argparse
import json

from scorekeeper.cli.vision_cmds import zoom_enlarge_arg
from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path
from scorekeeper.vision.config import DEFAULTS
from scorekeeper.vision.evaluate import Tally
from training.synth import BACKGROUNDS, HELD_OUT_BACKGROUNDS, render_scene

SEED_BASE = 7_000_000


def main(argv: list[str] | None = None) -> int:
    """Render, read and tally; print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--style",
        action="append",
        choices=BACKGROUNDS,
        help="background style(s) (default: the held-out ones)",
    )
    ap.add_argument("--scenes", type=int, default=100)
    ap.add_argument("--model", default=None)
    ap.add_argument("--threshold", type=float, default=None, help="default: the model's")
    ap.add_argument("--candidate-threshold", type=float, default=None)
    ap.add_argument("--seed-base", type=int, default=SEED_BASE)
    ap.add_argument(
        "--die-size",
        nargs=2,
        type=float,
        default=(20.0, 90.0),
        metavar=("LO", "HI"),
        help="bounds of a die's top face in pixels (default 20 90)",
    )
    ap.add_argument("--dice", type=int, default=None, help="dice per scene (default: random)")
    ap.add_argument(
        "--zoom-enlarge",
        type=zoom_enlarge_arg,
        default=DEFAULTS.zoom_enlarge,
        metavar="K",
        help="small dice read again zoomed, enlarging the frame up to K times, 1 for never"
        f" (default {DEFAULTS.zoom_enlarge:g})",
    )
    ap.add_argument("--single-scale", action="store_true", help="skip the coarse look")
    ap.add_argument(
        "--long-side", type=int, default=None, help="detector input long side (default the model's)"
    )
    ap.add_argument(
        "--colour-pips", type=float, default=0.0, help="share of dice with colour-only pips"
    )
    ap.add_argument("--swirls", action="store_true", help="marbled dice with swirling bands")
    ap.add_argument("--brief", action="store_true", help="one line per style, no confusion")
    args = ap.parse_args(argv)
    reader = DiceReader(
        args.model or default_model_path(),
        ReaderConfig(
            args.threshold,
            threads=2,
            candidate_threshold=args.candidate_threshold,
            coarse=not args.single_scale,
            long_side=args.long_side,
            zoom_enlarge=args.zoom_enlarge,
        ),
    )
    out = {}
    for style in args.style or list(HELD_OUT_BACKGROUNDS):
        tally = Tally()
        for i in range(args.scenes):
            image, truth = render_scene(
                args.seed_base + i,
                640,
                480,
                n_dice=args.dice,
                die_size=tuple(args.die_size),
                background_style=style,
                colour_pips=args.colour_pips,
                swirls=args.swirls,
            )
            tally.add(f"{style}-{i}", reader.infer(image), truth)
        fig = tally.figures()
        fig["wrong_images"] = fig["wrong_images"][:10]
        out[style] = fig
        if args.brief:
            print(style, tally.brief(), flush=True)
    if not args.brief:
        print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
