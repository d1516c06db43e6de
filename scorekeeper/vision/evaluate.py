"""Labelled dice folders (images/ + YOLO labels/) and the reader's accuracy figures on them."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scorekeeper.errors import ImageError
from scorekeeper.scoring import MAX_DICE as THROW_MOST
from scorekeeper.vision.detection import Box, Detection
from scorekeeper.vision.imageio import load_image, to_grey

Truth = list[tuple[int, Box]]

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
"""File name endings taken as images in a labelled folder."""

HOLDOUT_FRACTION = 0.2
"""Share of a folder without its own validation split that training leaves out (the last files
in name order, i.e. the latest photos when names are timestamps)."""

SPLITS = ("all", "train", "holdout")
"""Which images of a folder to use: every one, the training part or the held-out part."""


def parse_yolo(text: str, width: int, height: int) -> Truth:
    """YOLO label lines ``CLASS XC YC W H`` (CLASS = value - 1) as [(value, pixel box)]; a
    segmentation line ``CLASS X1 Y1 X2 Y2 X3 Y3 ...`` (a polygon) counts as its bounding box.

    >>> parse_yolo("4 0.5 0.5 0.1 0.2\\n", 640, 480)
    [(5, (288.0, 192.0, 352.0, 288.0))]
    >>> parse_yolo("0 0.45 0.4 0.55 0.4 0.55 0.6 0.45 0.6", 640, 480)
    [(1, (288.0, 192.0, 352.0, 288.0))]

    :raises ImageError: for a line that is not five numbers (or a class and three or more
        points) with a class 0..5.
    """
    expected = "expected 'CLASS XC YC W H' or a polygon 'CLASS X1 Y1 X2 Y2 X3 Y3 ...'"
    out: Truth = []
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        try:
            cls = int(float(parts[0]))
            numbers = [float(p) for p in parts[1:]]
        except ValueError:
            raise ImageError(f"label line {n} {line!r}: {expected}") from None
        polygon = len(numbers) >= 6 and len(numbers) % 2 == 0
        if not (len(numbers) == 4 or polygon) or not 0 <= cls <= 5:
            raise ImageError(
                f"label line {n} {line!r}: {expected}, CLASS the face value - 1 (0..5)"
            )
        if polygon:
            xs, ys = numbers[0::2], numbers[1::2]
            frac = (min(xs), min(ys), max(xs), max(ys))
        else:
            xc, yc, w, h = numbers
            frac = (xc - w / 2, yc - h / 2, xc + w / 2, yc + h / 2)
        box = (frac[0] * width, frac[1] * height, frac[2] * width, frac[3] * height)
        out.append((cls + 1, tuple(round(v, 3) for v in box)))  # type: ignore[arg-type]
    return out


def split_names(names: Sequence[str], split: str, fraction: float = HOLDOUT_FRACTION) -> list[str]:
    """The names of ``split`` ("all", "train" or "holdout") among a folder's image names.

    >>> split_names([f"{i:02d}.jpg" for i in range(10)], "holdout")
    ['08.jpg', '09.jpg']
    """
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    ordered = sorted(names)
    cut = len(ordered) - math.ceil(len(ordered) * fraction)
    if split == "train":
        return ordered[:cut]
    if split == "holdout":
        return ordered[cut:]
    return ordered


def _is_labelled(folder: Path) -> bool:
    return (folder / "images").is_dir() and (folder / "labels").is_dir()


def _subfolders(folder: Path) -> list[Path]:
    try:
        return [sub for sub in folder.iterdir() if sub.is_dir()]
    except OSError:  # unreadable: nothing to find there
        return []


def labelled_folders(root: str | Path, depth: int = 3) -> list[Path]:
    """``root`` itself when it holds images/ and labels/, else every folder under it (at most
    ``depth`` levels down, in name order) that does, such as ``../shared/dice-data``'s three.

    :raises ImageError: when neither ``root`` nor any folder under it is laid out so.
    """
    top = Path(root)
    if not top.is_dir():
        raise ImageError(f"{top}: not a folder; expected a folder with images/ and labels/ (YOLO)")
    level, found = [top], []
    for _ in range(depth + 1):
        found += [f for f in level if _is_labelled(f)]
        level = sorted(sub for f in level if not _is_labelled(f) for sub in _subfolders(f))
    if not found:
        raise ImageError(
            f"{top}: expected a folder with images/ and labels/ (YOLO) inside, or folders laid"
            f" out so under it (at most {depth} levels down)"
        )
    return sorted(found)


def list_labelled(folder: str | Path, split: str = "all") -> list[tuple[Path, Path]]:
    """(image, label) paths of a folder laid out as ``images/NAME.jpg`` + ``labels/NAME.txt``.

    :raises ImageError: when the folder has no images/ and labels/ subfolders.
    """
    root = Path(folder)
    images, labels = root / "images", root / "labels"
    if not _is_labelled(root):
        raise ImageError(f"{root}: expected a folder with images/ and labels/ (YOLO) inside")
    files = {p.name: p for p in images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES}
    return [(files[n], labels / (files[n].stem + ".txt")) for n in split_names(list(files), split)]


def assign(dets: Sequence[Detection], truth: Truth) -> list[int]:
    """For each prediction, in the order given, the index of the labelled die it finds, or -1.

    A die is found when a predicted box's centre lies in its labelled box, one prediction per
    die; among several free dice around a centre, the nearest wins.

    >>> d = [Detection(2, (0, 0, 10, 10), 0.9), Detection(2, (1, 1, 11, 11), 0.5)]
    >>> assign(d, [(4, (0.0, 0.0, 12.0, 12.0))])
    [0, -1]
    """
    used = [False] * len(truth)
    out = []
    for d in dets:
        cx, cy = d.centre()
        best, best_dist = -1, math.inf
        for i, (_, (x0, y0, x1, y1)) in enumerate(truth):
            if used[i] or not (x0 <= cx <= x1 and y0 <= cy <= y1):
                continue
            dist = math.hypot(cx - (x0 + x1) / 2, cy - (y0 + y1) / 2)
            if dist < best_dist:
                best, best_dist = i, dist
        if best >= 0:
            used[best] = True
        out.append(best)
    return out


def match(dets: Sequence[Detection], truth: Truth) -> tuple[list[tuple[int, int]], int, int]:
    """Match predictions to labelled dice with :func:`assign`, strongest prediction first.

    Returns ([(true value, predicted value)] of found dice, missed dice, extra predictions).
    """
    ranked = sorted(dets, key=lambda d: -d.confidence)
    found = assign(ranked, truth)
    pairs = [(truth[i][0], d.value) for d, i in zip(ranked, found, strict=True) if i >= 0]
    return pairs, len(truth) - len(pairs), found.count(-1)


@dataclass(frozen=True)
class PhotoVerdict:
    """How one photo was read, die by die, with the unsure mark taken into account: a mistake
    the reader marked unsure is flagged for the player; one it was sure of, or a missed die, is
    not."""

    name: str
    dice: int
    found: int
    missed: int
    wrong_sure: int
    wrong_unsure: int
    extra_sure: int
    extra_unsure: int
    unsure: int

    @property
    def trusted(self) -> bool:
        """Every die read surely is a real die with the right value and no die is missed."""
        return not (self.missed or self.wrong_sure or self.extra_sure)

    @property
    def exact(self) -> bool:
        """Every die found with its value and nothing else read, unsure or not."""
        return self.trusted and not (self.wrong_unsure or self.extra_unsure)

    @property
    def is_throw(self) -> bool:
        """The photo could be a Farkle throw: 1 to 6 labelled dice."""
        return 1 <= self.dice <= THROW_MOST

    @property
    def count_off(self) -> bool:
        """More or fewer dice read (sure or unsure) than lie there: in a game the camera panel
        says so ("I see 5 dice, 4 are left to throw") and will not take the throw as read."""
        return self.found + self.extra_sure + self.extra_unsure != self.dice

    @property
    def slips_through(self) -> bool:
        """Read wrong with no warning a player would see in a game: the right number of dice,
        none marked unsure, yet a value wrong (or a die missed and a false one read instead)."""
        return not (self.exact or self.count_off or self.unsure)

    @property
    def right_as_is(self) -> bool:
        """Read exactly with no die marked unsure: nothing for the player to check or fix."""
        return self.exact and not self.unsure

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: the counts plus ``trusted``, ``exact`` and, for a photo of 1 to 6
        dice, ``slips_through`` and ``right_as_is``."""
        out = {**self.__dict__, "trusted": self.trusted, "exact": self.exact}
        if self.is_throw:
            out |= {"slips_through": self.slips_through, "right_as_is": self.right_as_is}
        return out


def judge(
    name: str, dets: Sequence[Detection], truth: Truth, unsure_below: float | None = None
) -> PhotoVerdict:
    """One photo's verdict: each prediction matched (:func:`assign`, strongest first) and
    counted as right, wrong or extra, sure or unsure (confidence below ``unsure_below``; by
    default each die's own mark, :attr:`Detection.unsure`); each labelled die left over is missed.

    >>> sure, unsure = Detection(5, (0, 0, 10, 10), 0.95), Detection(2, (20, 0, 30, 10), 0.5)
    >>> v = judge("a", [sure, unsure], [(5, (0.0, 0.0, 10.0, 10.0)), (3, (20.0, 0.0, 30.0, 10.0))])
    >>> v.wrong_unsure, v.trusted, v.exact
    (1, True, False)
    >>> judge("b", [sure], [(4, (0.0, 0.0, 10.0, 10.0)), (1, (40.0, 0.0, 50.0, 9.0))]).trusted
    False
    """

    def doubted(d: Detection) -> bool:
        return d.unsure if unsure_below is None else d.confidence < unsure_below

    ranked = sorted(dets, key=lambda d: -d.confidence)
    found = assign(ranked, truth)
    counts = dict.fromkeys(("wrong_sure", "wrong_unsure", "extra_sure", "extra_unsure"), 0)
    for d, i in zip(ranked, found, strict=True):
        if i < 0:
            kind = "extra"
        elif truth[i][0] != d.value:
            kind = "wrong"
        else:
            continue
        counts[f"{kind}_{'unsure' if doubted(d) else 'sure'}"] += 1
    hits = sum(i >= 0 for i in found)
    return PhotoVerdict(
        name=name,
        dice=len(truth),
        found=hits,
        missed=len(truth) - hits,
        unsure=sum(doubted(d) for d in dets),
        **counts,
    )


@dataclass
class Tally:
    """Running counts for one folder: found/missed/extra dice, values, exact images, and each
    photo's verdict (:class:`PhotoVerdict`): trusted, or with a mistake the reader did not flag."""

    images: int = 0
    exact: int = 0
    truth: int = 0
    predicted: int = 0
    found: int = 0
    correct: int = 0
    unsure: int = 0
    photos: list[PhotoVerdict] = field(default_factory=list)
    # confusion[true][pred], index 0 = no die (missed or extra), 1..6 = face value
    confusion: list[list[int]] = field(default_factory=lambda: [[0] * 7 for _ in range(7)])
    wrong: list[str] = field(default_factory=list)
    unlabelled: list[str] = field(default_factory=list)

    def add(self, name: str, dets: Sequence[Detection], truth: Truth) -> None:
        """Count one image's predictions against its labels."""
        verdict = judge(name, dets, truth)
        self.photos.append(verdict)
        self.unsure += verdict.unsure
        pairs, missed, extra = match(dets, truth)
        self.images += 1
        self.truth += len(truth)
        self.predicted += len(dets)
        self.found += len(pairs)
        ok = sum(t == p for t, p in pairs)
        self.correct += ok
        for t, p in pairs:
            self.confusion[t][p] += 1
        missed_values = [v for v, _ in truth]
        extra_values = [d.value for d in dets]
        for t, p in pairs:
            missed_values.remove(t)
            extra_values.remove(p)
        for v in missed_values:
            self.confusion[v][0] += 1
        for v in extra_values:
            self.confusion[0][v] += 1
        if not missed and not extra and ok == len(pairs):
            self.exact += 1
        else:
            self.wrong.append(name)

    def brief(self) -> str:
        """Precision / recall / value accuracy / exact images on one line ("n/a" for 0 / 0).

        >>> Tally().brief()
        'n/a / n/a / n/a / n/a'
        """
        fig = self.figures()
        keys = ("precision", "recall", "value_accuracy", "exact_images")
        return " / ".join("n/a" if fig[k] is None else f"{fig[k]:.3f}" for k in keys)

    def figures(self) -> dict[str, Any]:
        """Precision, recall, value accuracy, exact-image rate, photos with a mistake the
        reader did not flag (a die missed, or one read surely that is no die or the wrong value),
        the share of its dice marked unsure, counts and the confusion matrix."""

        def ratio(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None

        untrusted = [v for v in self.photos if not v.trusted]
        throws = [v for v in self.photos if v.is_throw]
        throws_unflagged = sum(not v.trusted for v in throws)
        slipped = sum(v.slips_through for v in throws)
        return {
            "images": self.images,
            "dice": self.truth,
            "predicted": self.predicted,
            "found": self.found,
            "precision": ratio(self.found, self.predicted),
            "recall": ratio(self.found, self.truth),
            "value_accuracy": ratio(self.correct, self.found),
            "exact_images": ratio(self.exact, self.images),
            "unflagged_mistake_photos": len(untrusted),
            "unflagged_mistake_rate": ratio(len(untrusted), self.images),
            "unsure": self.unsure,
            "unsure_share": ratio(self.unsure, self.predicted),
            "throws": len(throws),
            "throws_unflagged": throws_unflagged,
            "throws_unflagged_rate": ratio(throws_unflagged, len(throws)),
            "throws_slipped": slipped,
            "throws_slipped_rate": ratio(slipped, len(throws)),
            "throws_right_as_is": ratio(sum(v.right_as_is for v in throws), len(throws)),
            "confusion": {
                "rows": "true value (0 = no die: extra prediction)",
                "columns": "predicted value (0 = no prediction: missed die)",
                "matrix": self.confusion,
            },
            "wrong_images": sorted(self.wrong),
            "unflagged_mistake_images": sorted(v.name for v in untrusted),
            "unlabelled_images": sorted(self.unlabelled),
        }


PhotoCallback = Callable[[Path, np.ndarray, Sequence[Detection], Truth, PhotoVerdict], None]
"""What :func:`read_labelled` calls with each photo: path, image, readings, truth, verdict."""

Errata = dict[str, str]
"""Corrected label files: a path ending (``FOLDER/labels/NAME.txt``) -> the file's new text."""


def load_errata(path: str | Path) -> Errata:
    """The corrected label files of an errata file (JSON: ``{"labels": {"FOLDER/labels/NAME.txt":
    {"text": "YOLO lines", "why": "what the photo shows"}}}``), keyed by path ending.

    :raises ImageError: for a file that is missing or not such JSON, or a text that is not
        YOLO label lines.
    """
    try:
        doc = json.loads(Path(path).read_text())
        entries = doc["labels"]
        out = {str(k): str(v["text"]) for k, v in entries.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ImageError(
            f"{path}: expected an errata JSON file "
            '{"labels": {"FOLDER/labels/NAME.txt": {"text": ..., "why": ...}}} '
            f"({type(exc).__name__}: {exc})"
        ) from None
    for key, text in out.items():
        try:
            parse_yolo(text, 1, 1)
        except ImageError as exc:
            raise ImageError(f"{path}: {key}: {exc}") from None
    return out


def corrected_label(label_path: Path, errata: Errata | None) -> str | None:
    """The errata's text for a label file whose path ends with one of its keys, else None.

    >>> corrected_label(Path("/data/set/labels/a.txt"), {"set/labels/a.txt": "0 .5 .5 .1 .1"})
    '0 .5 .5 .1 .1'
    >>> corrected_label(Path("/data/myset/labels/a.txt"), {"set/labels/a.txt": ""}) is None
    True
    """
    posix = label_path.absolute().as_posix()
    for key, text in (errata or {}).items():
        if posix == key or posix.endswith("/" + key):
            return text
    return None


def load_labelled(
    pairs: Iterable[tuple[Path, Path]], *, grey: bool = False, errata: Errata | None = None
) -> Iterator[tuple[Path, np.ndarray, Truth]]:
    """Each labelled (image, label) path pair loaded: the image path, the image (grey when
    ``grey``) and its dice; a missing label file means no dice; a label file that ``errata``
    corrects is read from there instead.

    :raises ImageError: for an unreadable image or a malformed label line.
    """
    for img_path, label_path in pairs:
        image = load_image(img_path)
        if grey:
            image = to_grey(image)
        text = corrected_label(label_path, errata)
        source = f"{label_path} (from the errata)" if text is not None else str(label_path)
        if text is None:
            try:
                text = label_path.read_text() if label_path.exists() else ""
            except (OSError, UnicodeDecodeError) as exc:
                raise ImageError(f"{label_path}: cannot read the label file ({exc})") from None
        try:
            truth = parse_yolo(text, image.shape[1], image.shape[0])
        except ImageError as exc:
            raise ImageError(f"{source}: {exc}") from None
        yield img_path, image, truth


def read_labelled(
    infer: Callable[..., Sequence[Detection]],
    pairs: Iterable[tuple[Path, Path]],
    *,
    grey: bool = False,
    errata: Errata | None = None,
    each: PhotoCallback | None = None,
    count_known: bool = False,
) -> Tally:
    """The tally of ``infer`` (e.g. ``DiceReader.infer``) over labelled (image, label) paths,
    each image turned grey first when ``grey``; a missing label file means no dice (the YOLO
    convention for background images; such images are listed in ``unlabelled``); label files
    that ``errata`` corrects are read from there. ``each`` is called with every photo read
    (its path, image, readings, labelled dice and verdict), e.g. to draw the wrong ones. With
    ``count_known``, a photo of 1 to 6 dice is read as a game reads a throw, knowing how many
    were thrown: ``infer(image, expect=N)`` (``DiceReader.infer``).

    :raises ImageError: for an unreadable image or a malformed label line.
    """
    pairs = list(pairs)
    tally = Tally()
    tally.unlabelled = [
        img.name for img, lab in pairs if corrected_label(lab, errata) is None and not lab.exists()
    ]
    for img_path, image, truth in load_labelled(pairs, grey=grey, errata=errata):
        known = count_known and 1 <= len(truth) <= THROW_MOST
        dets = infer(image, expect=len(truth)) if known else infer(image)
        tally.add(img_path.name, dets, truth)
        if each is not None:
            each(img_path, image, dets, truth, tally.photos[-1])
    return tally


TABLE_COLUMNS = (
    ("images", "photos", "{}"),
    ("dice", "dice", "{}"),
    ("unflagged_mistake_rate", "photos with an unflagged mistake", "{:.3f}"),
    ("unsure_share", "dice marked unsure", "{:.3f}"),
    ("value_accuracy", "value accuracy", "{:.3f}"),
    ("recall", "recall", "{:.3f}"),
    ("precision", "precision", "{:.3f}"),
    ("exact_images", "exact photos", "{:.3f}"),
    ("throws_slipped_rate", "throws read wrong with no warning", "{:.3f}"),
    ("throws_right_as_is", "throws right as read", "{:.3f}"),
)
"""The per-source table's columns: (figure key, heading, format)."""


def figures_table(rows: dict[str, dict[str, Any]]) -> str:
    """A Markdown table of :meth:`Tally.figures` keyed by source, one row each; a rate is
    followed by its count where one is kept (``0.047 (6)``).

    >>> t = Tally()
    >>> t.add("a", [Detection(4, (0, 0, 9, 9), 0.9)], [(4, (0.0, 0.0, 9.0, 9.0))])
    >>> print(figures_table({"set": t.figures()}).splitlines()[-1])
    | set | 1 | 1 | 0.000 (0) | 0.000 (0) | 1.000 | 1.000 | 1.000 | 1.000 | 0.000 (0) | 1.000 |
    """
    counts = {
        "unflagged_mistake_rate": "unflagged_mistake_photos",
        "unsure_share": "unsure",
        "throws_slipped_rate": "throws_slipped",
    }
    head = "| source | " + " | ".join(h for _, h, _ in TABLE_COLUMNS) + " |"
    lines = [head, "|---" * (len(TABLE_COLUMNS) + 1) + "|"]
    for name, fig in rows.items():
        cells = []
        for key, _, fmt in TABLE_COLUMNS:
            cell = "n/a" if fig.get(key) is None else fmt.format(fig[key])
            if key in counts and fig.get(key) is not None:
                cell += f" ({fig[counts[key]]})"
            cells.append(cell)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
