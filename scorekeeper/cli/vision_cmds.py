"""``scorekeeper read`` and ``scorekeeper eval-reader``: the dice reader from the command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scorekeeper.cli.common import print_json
from scorekeeper.errors import ImageError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``read`` and ``eval-reader`` subcommands."""
    p = sub.add_parser("read", help="find and read the dice in images")
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files (PNG, JPEG, ...)")
    p.add_argument("--json", action="store_true", help="print one JSON array of results")
    p.add_argument(
        "--annotate",
        metavar="OUT.png",
        help="draw boxes and values on the image (with several images: OUT-1.png, OUT-2.png...;"
        " a JPEG over 40 megapixels is drawn at the smaller size it was decoded at)",
    )
    p.add_argument(
        "--dice",
        type=_throw_size,
        default=None,
        metavar="N",
        help="the dice thrown (1-6): fewer read are made up from those the reader turned down,"
        " marked unsure ('4?')",
    )
    _reader_options(p)
    p.set_defaults(func=cmd_read)

    p = sub.add_parser(
        "eval-reader", help="precision, recall and value accuracy on labelled folders"
    )
    p.add_argument(
        "folders",
        nargs="+",
        metavar="FOLDER",
        help="folders with images/ and YOLO labels/, or folders holding such folders (e.g."
        " ../shared/dice-data: each one found is reported on its own)",
    )
    p.add_argument(
        "--split",
        choices=("all", "train", "holdout"),
        default="all",
        help="all images, or the training / held-out part (last 20%% by name) of each folder",
    )
    p.add_argument(
        "--grey",
        action="store_true",
        help="read each image as a grey camera would deliver it (one channel)",
    )
    p.add_argument(
        "--errata",
        metavar="FILE",
        help="JSON of corrected label files to use in place of the folders' own"
        " (models/dice-data-errata.json: label faults in ../shared/dice-data)",
    )
    p.add_argument(
        "--per-photo",
        action="store_true",
        help="add each photo's verdict: dice found, missed, read wrong or extra (sure or"
        " unsure), and whether it is trusted",
    )
    p.add_argument(
        "--draw",
        metavar="DIR",
        help="write each photo not read exactly into DIR, the labelled dice in green with their"
        " values, the readings in red ('5?': unsure): unflagged-FOLDER-NAME.jpg for a photo with"
        " a mistake the reader did not flag, flagged-FOLDER-NAME.jpg for one whose mistakes are"
        " all marked unsure",
    )
    p.add_argument(
        "--count-known",
        action="store_true",
        help="read each photo of 1 to 6 dice as a game reads a throw, knowing how many dice were"
        " thrown: fewer read are made up from those the reader turned down, marked unsure",
    )
    p.add_argument(
        "--table",
        action="store_true",
        help="print a Markdown table, a row per folder (photos with an unflagged mistake, dice"
        " marked unsure, value accuracy, recall, precision, exact photos; of the photos of 1 to 6"
        " dice, those read wrong with neither a '?' nor a count that is off, and those right as"
        " read) instead of JSON",
    )
    _reader_options(p)
    p.set_defaults(func=cmd_eval_reader)


def _whole_number(text: str, low: int, high: int, unit: str) -> int:
    """``text`` as a whole number from ``low`` to ``high``, else an argparse error naming both."""
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of {unit} from {low} to {high}, got {text!r}"
        )
    return value


def _throw_size(text: str) -> int:
    """An argparse type: a throw's dice, 1 to 6."""
    from scorekeeper.scoring import MAX_DICE

    return _whole_number(text, 1, MAX_DICE, "dice")


def _fraction(text: str) -> float:
    """An argparse type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number between 0 and 1, got {text!r}"
        ) from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text}")
    return value


def _number(text: str, ok: Callable[[float], bool], expected: str) -> float:
    """``text`` as a number ``ok`` accepts, else an argparse error: "``expected``, got 'text'"."""
    from scorekeeper.vision.config import number_or_nan

    value = number_or_nan(text)
    if not ok(value):
        raise argparse.ArgumentTypeError(f"{expected}, got {text!r}")
    return value


def _share(text: str) -> float:
    """An argparse type: a number from 0 to 1."""
    from scorekeeper.vision.config import is_from_0_to_1

    return _number(text, is_from_0_to_1, "expected a number from 0 to 1")


def zoom_enlarge_arg(text: str) -> float:
    """An argparse type: how many times the zoomed reading may enlarge a frame, 1 to 4.

    >>> zoom_enlarge_arg("1")
    1.0
    >>> zoom_enlarge_arg("9")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: expected a factor from 1 (never enlarge) to 4, got '9'
    """
    from scorekeeper.vision.config import MAX_ZOOM_ENLARGE, is_zoom_enlarge

    return _number(
        text,
        is_zoom_enlarge,
        f"expected a factor from 1 (never enlarge) to {MAX_ZOOM_ENLARGE:g}",
    )


def _zoom_share(text: str) -> float:
    """An argparse type: a share over 0 and up to 1."""
    from scorekeeper.vision.config import is_dice_share

    return _number(text, is_dice_share, "expected a share over 0 and up to 1 (all the dice read)")


def _oversize_ratio(text: str) -> float:
    """An argparse type: 0 (never) or a ratio over 1 up to the most a reader accepts."""
    from scorekeeper.vision.config import MAX_OVERSIZE_RATIO, is_oversize_ratio

    return _number(
        text,
        is_oversize_ratio,
        f"expected 0 (never) or a ratio over 1 up to {MAX_OVERSIZE_RATIO:g}",
    )


def _one_solidity(text: str) -> float:
    """An argparse type: 0 (never) or a solidity up to 1."""
    from scorekeeper.vision.config import is_from_0_to_1

    return _number(text, is_from_0_to_1, "expected 0 (never) or a solidity up to 1")


def _one_roundness(text: str) -> float:
    """An argparse type: 0 (never) or a roundness up to 1."""
    from scorekeeper.vision.config import is_from_0_to_1

    return _number(text, is_from_0_to_1, "expected 0 (never) or a roundness up to 1")


def _colour_above(text: str) -> float:
    """An argparse type: 0 (never) or a share up to 1."""
    from scorekeeper.vision.config import is_from_0_to_1

    return _number(text, is_from_0_to_1, "expected 0 (never) or a share up to 1")


def _heap_heat(text: str) -> float:
    """An argparse type: 0 (never) or a heat under 1."""
    from scorekeeper.vision.config import is_heap_heat

    return _number(text, is_heap_heat, "expected 0 (never) or a heat under 1")


def _above_views(text: str) -> tuple[tuple[float, float], ...]:
    """An argparse type: ``UP:TALL`` views joined by commas, or ``none``."""
    from scorekeeper.vision.config import parse_above_views

    try:
        return parse_above_views(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _rescue_scale(text: str) -> float:
    """An argparse type: 0 (none) or a factor over 1 up to the widest rescue patch."""
    from scorekeeper.vision.config import MAX_RESCUE_SCALE, is_rescue_scale

    return _number(
        text, is_rescue_scale, f"expected 0 (none) or a factor over 1 up to {MAX_RESCUE_SCALE:g}"
    )


def _long_side(text: str) -> int:
    """An argparse type: a whole number of pixels the reader accepts as its input long side."""
    from scorekeeper.vision.config import MAX_LONG_SIDE, MIN_LONG_SIDE

    return _whole_number(text, MIN_LONG_SIDE, MAX_LONG_SIDE, "pixels")


def _reader_options(p: argparse.ArgumentParser) -> None:
    """``--model``, ``--threshold``, ``--candidate-threshold``, ``--unsure-below``,
    ``--relook-face-below``, ``--rescue-scale``, ``--zoom-enlarge``, ``--zoom-share``,
    ``--oversize-ratio``, ``--one-solidity``, ``--above-views``, ``--heap-heat``, ``--threads``,
    ``--long-side``, ``--single-scale``."""
    from scorekeeper.vision.config import DEFAULTS

    p.add_argument("--model", metavar="PATH", help="ONNX model (default models/dice.onnx)")
    p.add_argument(
        "--threshold",
        type=_fraction,
        default=None,
        help="probability of being a die that a candidate needs to count (default: the model's)",
    )
    p.add_argument(
        "--candidate-threshold",
        type=_fraction,
        default=None,
        metavar="HEAT",
        help="heat-map peak a spot needs to be looked at again (default: the model's)",
    )
    p.add_argument(
        "--unsure-below",
        type=_fraction,
        default=None,
        metavar="P",
        help="a die read less surely than this is marked unsure, '5?' (default: the model's)",
    )
    p.add_argument(
        "--relook-face-below",
        type=_share,
        default=None,
        metavar="P",
        help="a die whose likeliest face is under this is read again turned half round,"
        " 0 for none (default: the model's)",
    )
    p.add_argument(
        "--rescue-scale",
        type=_rescue_scale,
        default=None,
        metavar="K",
        help="a candidate turned down is read again in a patch K times as wide, 0 for none"
        " (default: the model's)",
    )
    p.add_argument(
        "--zoom-enlarge",
        type=zoom_enlarge_arg,
        default=DEFAULTS.zoom_enlarge,
        metavar="K",
        help="small dice are read again zoomed, enlarging the frame up to K times, 1 for never"
        f" (default {DEFAULTS.zoom_enlarge:g})",
    )
    p.add_argument(
        "--zoom-share",
        type=_zoom_share,
        default=DEFAULTS.zoom_share,
        metavar="S",
        help="when the dice read are too big to be read again zoomed, the smallest of them, this"
        f" share, are if under {DEFAULTS.zoom_small_below:g} px: small dice among bigger false"
        f" ones; 1 for the median of all alone (default {DEFAULTS.zoom_share:g})",
    )
    p.add_argument(
        "--oversize-ratio",
        type=_oversize_ratio,
        default=DEFAULTS.oversize_ratio,
        metavar="K",
        help="a die read surely over K times the size of the smallest dice read is marked"
        " unsure: a board token or printed tile read as a die; 0 for never (default"
        f" {DEFAULTS.oversize_ratio:g})",
    )
    p.add_argument(
        "--one-solidity",
        type=_one_solidity,
        default=DEFAULTS.one_solidity,
        metavar="S",
        help="a die read surely as a 1 whose middle mark is less solid than S (a round pip is"
        " about 1, a number's strokes less) is marked unsure: a board token's number read as a"
        f" pip; 0 for never (default {DEFAULTS.one_solidity:g})",
    )
    p.add_argument(
        "--one-roundness",
        type=_one_roundness,
        default=DEFAULTS.one_roundness,
        metavar="R",
        help="a die read surely as a 1 whose middle mark is less round than R (a round pip is"
        " about 1, a numeral 1's bar about 0.6) is marked unsure: a board token's number read as"
        f" a pip; 0 for never (default {DEFAULTS.one_roundness:g})",
    )
    p.add_argument(
        "--above-views",
        type=_above_views,
        default=DEFAULTS.above_views,
        metavar="UP:TALL,...",
        help="a die read surely takes the face a view above its box (UP box sides up, TALL"
        " high) reads there, marked unsure: its top face seen at an angle; none for never"
        f" (default {','.join(f'{u:g}:{t:g}' for u, t in DEFAULTS.above_views)})",
    )
    p.add_argument(
        "--colour-above",
        type=_colour_above,
        default=None,
        metavar="SHARE",
        help="a die read surely whose colour fills SHARE more of a strip above its box than"
        " below is marked unsure: the front face of a die seen at an angle, its top face above;"
        " 0 for never (default: the model's)",
    )
    p.add_argument(
        "--heap-heat",
        type=_heap_heat,
        default=DEFAULTS.heap_heat,
        metavar="HEAT",
        help="a weaker peak (this hot) beside a die read surely is looked at too: a die in a"
        f" heap whose peak ran into its neighbour's; 0 for never (default {DEFAULTS.heap_heat:g})",
    )
    p.add_argument("--threads", type=int, default=1, help="CPU threads for the model")
    p.add_argument(
        "--long-side",
        type=_long_side,
        default=None,
        metavar="PX",
        help="model input long side in pixels (default: the model's own)",
    )
    p.add_argument(
        "--single-scale",
        action="store_true",
        help="look at one input size only (faster; misses dice over about 100 px in 640)",
    )


def _reader(args: argparse.Namespace) -> Any:
    """A DiceReader from the command's options."""
    from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path

    config = ReaderConfig(
        score_threshold=args.threshold,
        candidate_threshold=args.candidate_threshold,
        unsure_below=args.unsure_below,
        relook_face_below=args.relook_face_below,
        rescue_scale=args.rescue_scale,
        zoom_enlarge=args.zoom_enlarge,
        zoom_share=args.zoom_share,
        oversize_ratio=args.oversize_ratio,
        one_solidity=args.one_solidity,
        one_roundness=args.one_roundness,
        above_views=args.above_views,
        colour_above=args.colour_above,
        heap_heat=args.heap_heat,
        threads=args.threads,
        long_side=args.long_side,
        coarse=not args.single_scale,
    )
    return DiceReader(args.model or default_model_path(), config)


def _annotate_path(base: str, index: int, count: int) -> Path:
    """OUT.png for one image; OUT-1.png, OUT-2.png, ... for several."""
    p = Path(base)
    return p if count == 1 else p.with_name(f"{p.stem}-{index + 1}{p.suffix or '.png'}")


def cmd_read(args: argparse.Namespace) -> int:
    """Print the dice read from each image; exit 2 (after the others) if one is unreadable."""
    from scorekeeper.vision.draw import annotate
    from scorekeeper.vision.exposure import blown_out_share, exposure_advice
    from scorekeeper.vision.imageio import read_image

    reader = _reader(args)
    results: list[dict[str, Any]] = []
    failed = 0
    for i, path in enumerate(args.images):
        try:
            image, reduced = read_image(path)
        except ImageError as exc:
            if len(args.images) == 1:
                raise
            print(f"scorekeeper read: error: {exc}", file=sys.stderr)
            failed += 1
            continue
        dets = reader.infer(image, expect=args.dice)
        advice = exposure_advice(blown_out_share(image))
        if advice:
            print(f"scorekeeper read: warning: {path}: {advice}", file=sys.stderr)
        if args.annotate:
            out = _annotate_path(args.annotate, i, len(args.images))
            annotate(image, dets, out)
        dets = [d.scaled(reduced) for d in dets]
        results.append({"image": path, "dice": [d.to_dict() for d in dets]})
        if not args.json:
            ordered = sorted(dets, key=lambda d: d.box[0])
            values = " ".join(f"{d.value}?" if d.unsure else str(d.value) for d in ordered)
            print(f"{path}: {values or '(no dice)'}")
    if args.json:
        print_json(results)
    return 2 if failed else 0


def _source_name(folder: str, roots: list[str]) -> str:
    """A folder's name in the table: its path under the root it was found in, with that root's
    own name in front (``dice-data/webcam-table/Valid``), or the folder as given."""
    path = Path(folder)
    for root in roots:
        top = Path(root)
        if path == top:
            return top.name or folder
        if top in path.parents:
            return f"{top.name}/{path.relative_to(top).as_posix()}"
    return folder


def _drawer(out: Path, prefix: str) -> Any:
    """An ``each`` callback for ``read_labelled`` drawing every photo not read exactly."""
    import cv2

    from scorekeeper.vision.draw import draw_verdict

    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ImageError(f"--draw {out}: cannot make the folder ({exc})") from None

    def each(path: Path, image: Any, dets: Any, truth: Any, verdict: Any) -> None:
        if verdict.exact:
            return
        kind = "flagged" if verdict.trusted else "unflagged"
        target = out / f"{kind}-{prefix}-{path.stem}.jpg"
        if not cv2.imwrite(str(target), draw_verdict(image, dets, truth)):
            raise ImageError(f"--draw: cannot write {target}")

    return each


def cmd_eval_reader(args: argparse.Namespace) -> int:
    """Print per-folder figures as one JSON object keyed by folder (or a Markdown table)."""
    from scorekeeper.vision.evaluate import (
        corrected_label,
        figures_table,
        labelled_folders,
        list_labelled,
        load_errata,
        read_labelled,
    )

    errata = load_errata(args.errata) if args.errata else None
    reader = _reader(args)
    out: dict[str, Any] = {}
    folders = [str(f) for root in args.folders for f in labelled_folders(root)]
    for folder in dict.fromkeys(folders):
        pairs = list_labelled(folder, args.split)
        if not pairs:
            raise ImageError(f"{folder}: no images in images/")
        name = _source_name(folder, [str(r) for r in args.folders]).replace("/", "-")
        each = _drawer(Path(args.draw), name) if args.draw else None
        tally = read_labelled(
            reader.infer, pairs, grey=args.grey, errata=errata, each=each,
            count_known=args.count_known,
        )  # fmt: skip
        out[folder] = {
            "split": args.split, "grey": args.grey, "count_known": args.count_known,
            **tally.figures(),
        }  # fmt: skip
        if args.per_photo:
            out[folder]["photos"] = [v.to_dict() for v in tally.photos]
        if tally.unlabelled:
            n = len(tally.unlabelled)
            print(
                f"scorekeeper eval-reader: warning: {folder}: {n} image{'s' if n > 1 else ''}"
                f" without a label file in labels/, counted as showing no dice:"
                f" {', '.join(tally.unlabelled[:5])}{' ...' if n > 5 else ''}",
                file=sys.stderr,
            )
        if errata is not None:
            fixed = [lab.name for _, lab in pairs if corrected_label(lab, errata) is not None]
            out[folder]["corrected_labels"] = fixed
    if args.table:
        roots = [str(r) for r in args.folders]
        print(figures_table({_source_name(f, roots): fig for f, fig in out.items()}))
    else:
        print_json(out)
    return 0
