"""``make data``: other sources' labelled dice photos, pinned by commit, converted into labelled
folders (images/ + labels/, class = face value - 1) under a folder OUTSIDE the repository.

    python -m training.fetch_data --out ../dice-extra [--train-out ../dice-extra-train]
        [--git-dir OWNER/NAME=PATH] [--mirrors DIR]

Each source is read from a git repository: ``--git-dir`` names a local clone (or bare mirror) of
it, ``--mirrors DIR`` a folder holding ``OWNER+NAME`` or ``OWNER+NAME/repo`` git folders;
otherwise it is cloned from GitHub into ``OUT/.git/OWNER+NAME``. The pinned commit is always the
one read. The photos are never copied into this repository (their licences ask for attribution;
the repository stays small); see DATA.md for each source, its licence and how its classes map to
face values.

Two exports also hold augmented copies of their other photos (their ``train/``: crops, noise,
colour and brightness changed); with ``--train-out`` they are written there, in the same layout,
as photos only to train on in trials (no recipe does): no figure is ever measured on them, and a
fold that leaves their source out leaves them out too (``training.loso --also``).
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorekeeper.errors import ImageError
from scorekeeper.vision.datasets import (
    Converted,
    class_values,
    convert_class_folders,
    convert_groundtruth,
    convert_own_labels,
    convert_rotated_copies,
    convert_voc_with_crops,
    convert_yolo_export,
    parse_names,
)
from training.sets import ROOT


@dataclass(frozen=True)
class Split:
    """One folder written for a source: which export folders it is made of, and how."""

    name: str
    folders: tuple[str, ...]
    one_per_original: bool = False


@dataclass(frozen=True)
class Source:
    """A public repository holding labelled dice photos: a YOLO export (``layout="yolo"``,
    classes named in ``names_file``), a classification export (``layout="folders"``: one
    folder per face value, one die a photo) or a SageMaker Ground Truth manifest
    (``layout="groundtruth"``: ``manifest`` labels the photos in the split's one folder, those
    whose names start with one of ``include``) or photos with Pascal VOC boxes valued by a
    classification set of crops cut from them (``layout="voc-crops"``, the crops' folders in
    ``crops``) or a YOLO export of one die a photo, copied turned, whose file names give the
    face value (``layout="rotated"``: the least-turned copy of each photo) or photos with no
    labels of their own, labelled by this project in ``labels``, a file in this repository
    (``layout="own-labels"``). A classification
    export of die crops (``margin`` set) is set on a table of its own colour so that each die
    is seen at a camera's size. A source with ``train`` false is an outside check only: no
    model trains on it (``training.sets.source_folders`` leaves it out)."""

    name: str
    repo: str
    commit: str
    licence: str
    splits: tuple[Split, ...]
    layout: str = "yolo"
    names_file: str = ""
    manifest: str = ""
    include: tuple[str, ...] = ()
    crops: str = ""
    labels: str = ""
    """For ``layout="own-labels"``: the labels file, relative to this repository's root."""
    margin: int | None = None
    """For ``layout="folders"`` of die crops: the pixels of table cut around each die."""
    exclude: dict[str, str] = field(default_factory=dict)
    """Original photo name -> why it is left out."""
    note: str = ""
    train: bool = True
    copies: Split | None = None
    """The export's augmented copies of its other photos: written under ``--train-out`` only,
    trained on and never measured."""


SOURCES = (
    Source(
        name="catan-table",
        repo="Epanemu/GameDiceRecognition",
        commit="1b5e6f74528977d2cef87924f89d968ac6fb3280",
        licence="CC BY 4.0 (the Roboflow export's README.dataset.txt)",
        names_file="Dice-3/data.yaml",
        # train/ holds up to three augmented copies of each of 304 other photos (crops, noise,
        # colour changed): not what a camera gives; written only with --train-out, for trials
        splits=(Split("test-valid", ("Dice-3/test", "Dice-3/valid")),),
        copies=Split("train", ("Dice-3/train",)),
        exclude={
            "dice_3_jpg": "a web stock picture (watermarked), not a photo of a table",
            "dice_444_jpg": "a web stock picture (watermarked grid of dice)",
            "dice_6_jpg": "a web picture of a heap of dice and game pieces",
            "dice_7_jpg": "a web picture: dice cut out on white",
            "dice_59_jpg": "its label file is empty, yet it shows about 40 dice",
            "dice_193_jpg": "its label file is empty, yet it shows two dice",
        },
        note="Roboflow 'Dice v3' export, every photo stretched to 640x640; its train/ copies"
        " (augmented) are written only with --train-out, for trials",
    ),
    Source(
        name="casino-felt",
        repo="chaseelliottpatterson/dice-reader",
        commit="ee67b7241b1f8087ca5f9b76ee3ef167f02f1f91",
        licence="MIT (the repository's LICENSE)",
        layout="folders",
        margin=12,
        splits=(
            Split(
                "all",
                tuple(f"data/dice-class-cropped-organized/{s}" for s in ("train", "test", "val")),
            ),
        ),
        exclude={
            "DJI_20241005234237_0223_D_detection_1": "labelled 3, shows two rows of three pips",
        },
        note="a YOLO classification set of die crops (a folder per face value) cut 12 px around"
        " each die found in the author's DJI photos (not in the snapshot: over 4 MiB each); each"
        " crop is set on a table of its border's colour, 8 times its size",
    ),
    Source(
        name="dice-box",
        repo="pivotsengineer/aibox",
        # the export was removed from the repository in the next commit
        commit="5e234c239322c1b5ff60780bed89b37f38f8170a",
        licence="MIT (the Roboflow export's README.dataset.txt; Roboflow project sserg/dice-lum74)",
        layout="folders",
        splits=(Split("test-valid", ("Dice-1/test", "Dice-1/valid")),),
        copies=Split("train", ("Dice-1/train",)),
        note="Roboflow 'Dice v1' classification export (a folder per face value), every photo"
        " stretched to 640x640; its train/ copies (augmented) are written only with"
        " --train-out, for trials",
    ),
    Source(
        name="wood-stone",
        repo="aws-samples/amazon-sagemaker-mxnet-dice-aim403-workshop-reinvent2019",
        commit="2a148d595b024139961fbbb04ef8a0d5c9c849b4",
        licence="Apache-2.0 (the repository's LICENSE)",
        layout="groundtruth",
        manifest="data/manifest/output.manifest",
        splits=(Split("all", ("data/images",)),),
        # the workshop's own photos; the others are pictures found on the web
        include=("IMG_", "Image_"),
        note="SageMaker Ground Truth labels; photos with a die labelled 'unclear' are left out",
    ),
    Source(
        name="webcam-desk",
        repo="skovy/tensorflow-dice-model",
        commit="0e09d8e2795f2ba366c761f2196e77758b90dbb5",
        licence="MIT (the repository's LICENSE)",
        layout="voc-crops",
        splits=(
            Split(
                "all", ("image_data/die_detection/training", "image_data/die_detection/validation")
            ),
        ),
        crops="image_data/die_classification/training",
        note="labelImg boxes say where each die is; the value of each comes from the crop of it"
        " in the classification set, found in the photo by template matching",
    ),
    Source(
        name="numeral-tray",
        repo="BaylorRice/DiceReader",
        commit="a80815d7adfa9992e1fa2730c851c20d742830e9",
        licence="CC BY 4.0 (the Roboflow export's README.dataset.txt)",
        layout="rotated",
        splits=(
            Split(
                "test-valid",
                tuple(
                    f"model-building/Actual Model Building/dice finder.v1i.yolov8/{s}"
                    for s in ("test", "valid")
                ),
            ),
        ),
        train=False,
        note="Roboflow export of 60 photos of one marbled die with numerals, each copied turned"
        " in 5 degree steps and stretched to 640x640; the least-turned copy of each photo in its"
        " test/ and valid/ (train/ holds copies with brightness changed); an outside check only",
    ),
    Source(
        name="cream-carpet",
        repo="DamianTab/DiceDetection",
        commit="5f5598c8e50421d4e163c1481b2e5b85770e92b1",
        licence="Apache-2.0 (the repository's LICENSE)",
        layout="own-labels",
        labels="training/labels/cream-carpet.json",
        splits=(Split("all", ("myphotos",)),),
        train=False,
        note="80 phone photos of one set of cream dice (1 to 5 a photo) on carpet, wood, a white"
        " table and woven cloth, unlabelled in the repository: labelled by this project, each"
        " die's value read by eye; an outside check only",
    ),
)
"""Every source ``make data`` writes; RESERVED sources (DATA.md) are never listed here."""


def find_git_dir(repo: str, git_dirs: dict[str, Path], mirrors: list[Path]) -> Path | None:
    """A local git folder for ``repo`` among ``--git-dir`` and ``--mirrors``, else None."""
    if repo in git_dirs:
        return git_dirs[repo]
    flat = repo.replace("/", "+")
    for root in mirrors:
        for candidate in (root / flat / "repo", root / flat):
            if (candidate / "HEAD").exists() or (candidate / ".git").exists():
                return candidate
    return None


def _git(git_dir: Path, *args: str) -> bytes:
    done = subprocess.run(
        ["git", f"--git-dir={git_dir / '.git' if (git_dir / '.git').exists() else git_dir}", *args],
        capture_output=True,
        check=False,
    )
    if done.returncode:
        raise ImageError(f"git {' '.join(args)} in {git_dir}: {done.stderr.decode().strip()}")
    return done.stdout


def clone(repo: str, into: Path) -> Path:
    """A bare clone of ``https://github.com/REPO`` in ``into`` (kept for the next run)."""
    if not (into / "HEAD").exists():
        into.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["git", "clone", "--bare", "--quiet", f"https://github.com/{repo}.git", str(into)],
            capture_output=True,
            check=False,
        )
        if done.returncode:
            raise ImageError(
                f"{repo}: cannot clone it ({done.stderr.decode().strip()}); give a local copy"
                f" with --git-dir {repo}=PATH or --mirrors DIR"
            )
    return into


def extract(git_dir: Path, commit: str, paths: list[str], into: Path) -> None:
    """The files under ``paths`` at ``commit`` written under ``into``."""
    data = _git(git_dir, "archive", "--format=tar", commit, *paths)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, filter="data")
            return
        # Python 3.11 before 3.11.4: refuse what the data filter would refuse, by hand
        for member in tar.getmembers():
            if member.name.startswith("/") or ".." in Path(member.name).parts:
                raise ImageError(f"git archive of {git_dir}: unsafe path {member.name!r}")
            if not (member.isfile() or member.isdir()):
                raise ImageError(f"git archive of {git_dir}: {member.name!r} is not a plain file")
        tar.extractall(into)


def _convert(
    source: Source, split: Split, tmp: Path, target: Path, values: dict[int, int]
) -> Converted:
    """Convert one split of ``source`` (its export folders extracted under ``tmp``) into
    ``target``, emptied first; returns the converter's counts and skipped files."""
    if target.exists():
        for sub in ("images", "labels"):
            for old in (target / sub).glob("*") if (target / sub).is_dir() else ():
                old.unlink()
    folders_in = [tmp / f for f in split.folders]
    if source.layout == "own-labels":
        return convert_own_labels(ROOT / source.labels, folders_in[0], target)
    if source.layout == "rotated":
        return convert_rotated_copies(folders_in, target)
    if source.layout == "voc-crops":
        return convert_voc_with_crops(folders_in, tmp / source.crops, target)
    if source.layout == "groundtruth":
        return convert_groundtruth(
            tmp / source.manifest,
            folders_in[0],
            target,
            include=source.include,
            exclude=source.exclude,
        )
    if source.layout == "folders":
        return convert_class_folders(
            folders_in,
            target,
            exclude=source.exclude,
            one_per_original=split.one_per_original,
            margin=source.margin,
        )
    return convert_yolo_export(
        folders_in,
        values,
        target,
        exclude=source.exclude,
        one_per_original=split.one_per_original,
    )


def write_source(
    source: Source, git_dir: Path, out: Path, train_out: Path | None = None
) -> dict[str, Any]:
    """Convert one source into ``out/NAME/SPLIT`` folders, and its augmented copies (when it
    has them) into ``train_out/NAME/SPLIT`` when ``train_out`` is given; returns its provenance
    record (the copies' own beside them)."""
    values: dict[int, int] = {}
    if source.layout == "yolo":
        names = _git(git_dir, "show", f"{source.commit}:{source.names_file}").decode()
        values = class_values(parse_names(names))
    splits: dict[str, dict[str, int]] = {}
    record: dict[str, Any] = {
        "source": source.name,
        "repository": f"https://github.com/{source.repo}",
        "commit": source.commit,
        "licence": source.licence,
        "layout": source.layout,
        "class_values": {str(k): v for k, v in values.items()},
        "excluded": source.exclude,
        "note": source.note,
        "train": source.train,
        "splits": splits,
    }
    jobs = [(split, out) for split in source.splits]
    if train_out is not None and source.copies is not None:
        jobs.append((source.copies, train_out))
    with tempfile.TemporaryDirectory() as tmp:
        folders = sorted({f for split, _ in jobs for f in split.folders})
        extract(
            git_dir,
            source.commit,
            folders + [p for p in (source.manifest, source.crops) if p],
            Path(tmp),
        )
        for split, root in jobs:
            done = _convert(source, split, Path(tmp), root / source.name / split.name, values)
            for message in done.skipped:
                where = message.replace(f"{tmp}/", f"{source.repo}@{source.commit[:7]}:")
                print(f"make data: skipped {where}", file=sys.stderr)
            counts = {"photos": done.photos, "dice": done.dice, "skipped": len(done.skipped)}
            if root is out:
                splits[split.name] = counts
            else:
                copies = record | {
                    "splits": {split.name: counts},
                    "note": "augmented copies of the export's other photos: trained on, never"
                    " measured",
                }
                (root / source.name).mkdir(parents=True, exist_ok=True)
                (root / source.name / "SOURCE.json").write_text(json.dumps(copies, indent=2) + "\n")
                record["copies"] = {"folder": str(root / source.name / split.name)} | counts
    (out / source.name / "SOURCE.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


def main(argv: list[str] | None = None) -> int:
    """Write every source under ``--out``; exit 2 with a message when one cannot be read."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, type=Path, help="folder to write (outside the repo)")
    p.add_argument(
        "--git-dir",
        action="append",
        default=[],
        metavar="OWNER/NAME=PATH",
        help="a local clone or bare mirror of a source's repository",
    )
    p.add_argument(
        "--mirrors",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="a folder of OWNER+NAME (or OWNER+NAME/repo) git folders",
    )
    p.add_argument(
        "--train-out",
        type=Path,
        default=None,
        help="folder for the exports' augmented copies, only to train on (outside the repo)",
    )
    args = p.parse_args(argv)
    git_dirs: dict[str, Path] = {}
    for item in args.git_dir:
        repo, sep, path = item.partition("=")
        if not sep or "/" not in repo:
            p.error(f"--git-dir {item!r}: expected OWNER/NAME=PATH")
        git_dirs[repo] = Path(path)
    out: Path = args.out.resolve()
    train_out: Path | None = args.train_out.resolve() if args.train_out else None
    for flag, folder in (("--out", out), ("--train-out", train_out)):
        if folder is not None and (folder == ROOT or ROOT in folder.parents):
            p.error(f"{flag} {folder}: inside the repository; the photos must stay outside it")
    try:
        for source in SOURCES:
            git_dir = find_git_dir(source.repo, git_dirs, args.mirrors) or clone(
                source.repo, out / ".git" / source.repo.replace("/", "+")
            )
            record = write_source(source, git_dir, out, train_out)
            for split, counts in record["splits"].items():
                print(
                    f"{out / source.name / split}: {counts['photos']} photos,"
                    f" {counts['dice']} dice ({source.licence})"
                )
            if "copies" in record:
                copies = record["copies"]
                print(
                    f"{copies['folder']}: {copies['photos']} augmented copies,"
                    f" {copies['dice']} dice, only to train on ({source.licence})"
                )
    except ImageError as exc:
        print(f"make data: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
