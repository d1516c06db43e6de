"""Other people's labelled dice photos turned into the reader's layout: ``images/NAME.jpg`` and
``labels/NAME.txt`` with YOLO lines whose class is the face value - 1 (what ``eval-reader``
reads).

A YOLO export names its classes in ``data.yaml`` (``names: ['1', ..., '6']``, ``['one', ...]``
or ``['dice-3', ...]``), in whatever order its author chose; :func:`class_values` maps each class
index to a face value from those names, and :func:`convert_yolo_export` rewrites the label
files with that map, skipping (and naming) images that do not decode and label files that do not
parse. A classification export (one folder per face value, ``dice 3/``, each photo showing one
die; ``background/`` showing none) has no boxes: :func:`convert_class_folders` labels each photo
with one die whose box is the whole frame, which the found test (a predicted box's centre inside
the labelled box) turns into "exactly one die, anywhere, with this value".
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.errors import ImageError
from scorekeeper.vision.evaluate import IMAGE_SUFFIXES, parse_yolo

NO_DICE_FOLDERS = ("background", "backgrounds", "bg", "none", "empty", "no dice")
"""Folder names of a classification export whose photos show no die."""

VALUE_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
"""Face values written as English words in class names."""

ROBOFLOW_COPY = ".rf."
"""What Roboflow puts between an original photo's name and the hash of each exported copy."""


def face_value(name: str) -> int:
    """The face value a class name stands for: ``"3"``, ``"three"``, ``"dice-3"``, ``"d6_3"``.

    >>> [face_value(n) for n in ("1", "Six", "dice-3", "d6_4", "die 5", "2_pips")]
    [1, 6, 3, 4, 5, 2]

    :raises ImageError: for a name that is not one face value 1-6 (``"d20"``, ``"dice"``).
    """
    text = name.strip().lower()
    if text in VALUE_WORDS:
        return VALUE_WORDS[text]
    text = re.sub(r"^(d6|dice|die)[\s_-]*", "", text)
    text = re.sub(r"[\s_-]*(pips?|dots?|eyes?)$", "", text)
    if text in VALUE_WORDS:
        return VALUE_WORDS[text]
    if text.isdigit() and 1 <= int(text) <= 6:
        return int(text)
    raise ImageError(
        f"class name {name!r} is not a face value; expected 1-6 as a digit or a word"
        " ('3', 'three', 'dice-3')"
    )


def parse_names(yaml_text: str) -> list[str]:
    """The class names of a YOLO ``data.yaml``: a flow list, a block list or an index mapping.

    >>> parse_names("nc: 2\\nnames: ['1', \\"2\\"]\\n")
    ['1', '2']
    >>> parse_names("names:\\n- one\\n- 'two'\\nnc: 2\\n")
    ['one', 'two']
    >>> parse_names("names:\\n  1: b\\n  0: a\\n")
    ['a', 'b']

    :raises ImageError: when there is no ``names:`` key or it holds none of those forms.
    """
    lines = yaml_text.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("names:"):
            continue
        rest = line[len("names:") :].strip()
        if rest.startswith("["):
            return [_unquote(p) for p in rest.strip("[]").split(",") if p.strip()]
        items: list[str] = []
        keyed: dict[int, str] = {}
        for sub in lines[i + 1 :]:
            if not sub.strip() or sub.lstrip().startswith("#"):
                continue
            if not sub[0].isspace() and not sub.startswith("-"):
                break
            body = sub.strip()
            if body.startswith("-"):
                items.append(_unquote(body[1:]))
            elif ":" in body and body.split(":", 1)[0].strip().isdigit():
                key, value = body.split(":", 1)
                keyed[int(key)] = _unquote(value)
            else:
                break
        if keyed and sorted(keyed) == list(range(len(keyed))):
            return [keyed[k] for k in range(len(keyed))]
        if items:
            return items
        break
    raise ImageError(
        "data.yaml: expected a 'names:' list of class names (names: ['1', ..., '6'], a '- name'"
        " list or '0: name' lines)"
    )


def _unquote(text: str) -> str:
    return text.strip().strip("'\"").strip()


def class_values(names: Sequence[str]) -> dict[int, int]:
    """Class index -> face value, from the class names in index order.

    >>> class_values(["six", "one", "two", "three", "four", "five"])[0]
    6

    :raises ImageError: for a name that is no face value, or two classes with one value.
    """
    values = {i: face_value(n) for i, n in enumerate(names)}
    if len(set(values.values())) != len(values):
        raise ImageError(f"class names {list(names)}: two classes stand for the same face value")
    return values


def remap_yolo(text: str, values: dict[int, int]) -> str:
    """YOLO label lines with each class index replaced by its face value - 1 (boxes and
    polygons kept as they are).

    >>> remap_yolo("0 0.5 0.5 0.1 0.1\\n\\n", {0: 6})
    '5 0.5 0.5 0.1 0.1\\n'

    :raises ImageError: for a line that is not YOLO or a class index the names do not cover.
    """
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        try:
            cls = int(parts[0])
        except ValueError:
            raise ImageError(f"label line {n} {line!r}: the class is not a whole number") from None
        if cls not in values:
            raise ImageError(
                f"label line {n} {line!r}: class {cls} is not one of the {len(values)} classes"
                " data.yaml names"
            )
        out.append(" ".join([str(values[cls] - 1), *parts[1:]]))
    remapped = "".join(line + "\n" for line in out)
    parse_yolo(remapped, 1, 1)
    return remapped


def original_name(image_name: str) -> str:
    """The photo a Roboflow copy was exported from (its name before ``.rf.``), else the stem.

    >>> original_name("dice_12_jpg.rf.414f0467.jpg"), original_name("IMG_1.jpg")
    ('dice_12_jpg', 'IMG_1')
    """
    if ROBOFLOW_COPY in image_name:
        return image_name.split(ROBOFLOW_COPY)[0]
    return Path(image_name).stem


@dataclass
class Converted:
    """What :func:`convert_yolo_export` wrote and what it left out, and why."""

    photos: int = 0
    dice: int = 0
    skipped: list[str] = field(default_factory=list)


def convert_yolo_export(
    splits: Iterable[Path],
    values: dict[int, int],
    out: Path,
    *,
    exclude: Iterable[str] = (),
    one_per_original: bool = False,
) -> Converted:
    """Copy the images of YOLO export folders (each with images/ and labels/) into ``out``
    (images/ + labels/, classes as face value - 1), leaving out the photos whose original name
    (:func:`original_name`) is in ``exclude`` and, with ``one_per_original``, every exported copy
    of a photo but the first by name; an image without a label file counts as showing no dice.
    An image that does not decode or a label file that does not parse is skipped and named.
    """
    excluded = set(exclude)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    done = Converted()
    seen: set[str] = set()
    for split in splits:
        images = sorted(
            p for p in (split / "images").iterdir() if p.suffix.lower() in IMAGE_SUFFIXES
        )
        for image in images:
            original = original_name(image.name)
            if original in excluded or (one_per_original and original in seen):
                continue
            label = split / "labels" / (image.stem + ".txt")
            if _copy_labelled(image, label, lambda text: remap_yolo(text, values), out, done):
                seen.add(original)
    return done


def _copy_labelled(
    image: Path, label: Path, remap: Callable[[str], str], out: Path, done: Converted
) -> bool:
    """Copy ``image`` into ``out`` (images/ + labels/) with its YOLO ``label`` file's text as
    ``remap`` writes it (a missing file: no dice), counted in ``done``; a label that does not
    read or that ``remap`` refuses (``ValueError``), or an image that does not decode, is named
    in ``done.skipped`` instead. True when copied."""
    try:
        remapped = remap(label.read_text() if label.exists() else "")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        done.skipped.append(f"{label}: {exc}")
        return False
    if cv2.imread(str(image)) is None:
        done.skipped.append(f"{image}: does not decode as an image")
        return False
    shutil.copyfile(image, out / "images" / image.name)
    (out / "labels" / (image.stem + ".txt")).write_text(remapped)
    done.photos += 1
    done.dice += len(remapped.splitlines())
    return True


def rotated_copy(image_name: str) -> tuple[int, str, int] | None:
    """(face value, photo, degrees turned) from an export name ``FACE_PHOTO_DEGREES_jpg...``
    (a photo of one die, copied turned by DEGREES), or None for another name.

    >>> rotated_copy("4_10_85_jpg.rf.0a5c.jpg"), rotated_copy("dice_3_jpg.rf.1.jpg")
    ((4, '10', 85), None)
    >>> rotated_copy("12_1_0_jpg.rf.1.jpg") is None  # no face 12
    True
    """
    parts = original_name(image_name).split("_")
    if len(parts) < 3 or not all(p.isdigit() for p in parts[:3]) or parts[0] not in tuple("123456"):
        return None
    return int(parts[0]), parts[1], int(parts[2])


def convert_rotated_copies(splits: Iterable[Path], out: Path) -> Converted:
    """Copy a YOLO export of one die a photo whose file names give its face value, the photo
    and how far the copy was turned (:func:`rotated_copy`) into ``out`` (images/ + labels/):
    of each photo only the least-turned copy (the first by name among equals), its label lines
    (boxes or polygons of any class) given the class of its face value - 1. An image whose name
    does not say its face, that does not decode, or whose label file does not parse is skipped
    and named.
    """
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    done = Converted()
    copies: dict[tuple[int, str], tuple[int, str, Path]] = {}
    for split in splits:
        for image in sorted((split / "images").iterdir()):
            if image.suffix.lower() not in IMAGE_SUFFIXES:
                continue
            named = rotated_copy(image.name)
            if named is None:
                done.skipped.append(f"{image}: the name does not start FACE_PHOTO_DEGREES_")
                continue
            face, photo, degrees = named
            best = copies.get((face, photo))
            if best is None or (degrees, image.name) < best[:2]:
                copies[(face, photo)] = (degrees, image.name, image)
    for (face, _), (_, _, image) in sorted(copies.items()):
        label = image.parent.parent / "labels" / (image.stem + ".txt")
        _copy_labelled(image, label, partial(_as_face, face=face), out, done)
    return done


def _as_face(text: str, face: int) -> str:
    """YOLO label lines of a photo of one die, every class given ``face``.

    :raises ValueError: for a class that is not a whole number, a line that is not YOLO, or
        no die labelled.
    """
    classes = {int(line.split()[0]) for line in text.splitlines() if line.split()}
    remapped = remap_yolo(text, dict.fromkeys(classes, face))
    if not remapped:
        raise ImageError("no die labelled in a photo of one die")
    return remapped


def folder_dice(name: str) -> int:
    """The face value of the one die each photo in a class folder shows, or 0 for none.

    >>> [folder_dice(n) for n in ("dice 3", "Background", "six")]
    [3, 0, 6]

    :raises ImageError: for a folder name that is neither a face value nor "background".
    """
    if name.strip().lower() in NO_DICE_FOLDERS:
        return 0
    try:
        return face_value(name)
    except ImageError:
        raise ImageError(
            f"folder {name!r}: expected a face value (1-6, 'dice 3', 'three') or one of"
            f" {', '.join(NO_DICE_FOLDERS)}"
        ) from None


CANVAS_SCALE = 8.0
"""How many times a die crop's longer side the table :func:`set_on_canvas` sets it on is:
at 8, a crop of 12 px around a 42 px die shows it at about 40 px when the reader scales the photo
to its 512 px, as the photographed sources show theirs (a median of 21-44 px)."""

FEATHER_PX = 4
"""How many pixels of a crop's edge :func:`set_on_canvas` fades into the table."""


def set_on_canvas(
    crop: np.ndarray, margin: int, scale: float = CANVAS_SCALE
) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A die crop (``margin`` pixels of table around the die) set in the middle of a square
    table ``scale`` times its longer side, of the median colour of the crop's outermost pixels,
    its edge faded in; returns the image and the die's pixel box in it (the crop less its margin,
    never less than half the crop).

    >>> crop = np.full((20, 30, 3), 90, np.uint8)
    >>> image, box = set_on_canvas(crop, 5, scale=4)
    >>> image.shape, box, int(image[0, 0, 0])
    ((120, 120, 3), (50.0, 55.0, 70.0, 65.0), 90)
    """
    h, w = crop.shape[:2]
    side = max(1, round(scale * max(h, w)))
    ring = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]]).reshape(-1, crop.shape[2])
    table = np.median(ring, axis=0).astype(np.uint8)
    image = np.empty((side, side, crop.shape[2]), np.uint8)
    image[:] = table
    y0, x0 = (side - h) // 2, (side - w) // 2
    yy, xx = np.mgrid[0:h, 0:w]
    edge = np.minimum(np.minimum(yy, h - 1 - yy), np.minimum(xx, w - 1 - xx))
    alpha = np.clip((edge + 1) / (FEATHER_PX + 1), 0.0, 1.0)[..., None]
    image[y0 : y0 + h, x0 : x0 + w] = (alpha * crop + (1 - alpha) * table).round().astype(np.uint8)
    mx, my = min(margin, w // 4), min(margin, h // 4)
    return image, (float(x0 + mx), float(y0 + my), float(x0 + w - mx), float(y0 + h - my))


WHOLE_FRAME = "0.5 0.5 1 1"
"""A YOLO box covering the whole image: where a classification photo's one die lies."""


def convert_class_folders(
    splits: Iterable[Path],
    out: Path,
    *,
    exclude: Iterable[str] = (),
    one_per_original: bool = False,
    margin: int | None = None,
) -> Converted:
    """Copy the photos of classification export folders (each holding one folder per face
    value, and maybe ``background/``) into ``out`` (images/ + labels/), each labelled with one
    die of its folder's value whose box is the whole frame (none for ``background/``); photos
    left out as :func:`convert_yolo_export` leaves them out. A name clash between folders, or an
    image that does not decode, is skipped and named.

    With ``margin``, each photo is a crop cut ``margin`` pixels around one die: it is set on a
    table of its own border's colour (:func:`set_on_canvas`), so that the die is seen at a size a
    camera sees dice, and labelled with the die's box.

    :raises ImageError: for a class folder whose name is no face value.
    """
    excluded = set(exclude)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    done = Converted()
    seen: set[str] = set()
    for split in splits:
        for folder in sorted(p for p in split.iterdir() if p.is_dir()):
            value = folder_dice(folder.name)
            images = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            for image in images:
                original = original_name(image.name)
                if original in excluded or (one_per_original and original in seen):
                    continue
                if (out / "images" / image.name).exists():
                    done.skipped.append(f"{image}: another folder has a photo of that name")
                    continue
                photo = cv2.imread(str(image))
                if photo is None:
                    done.skipped.append(f"{image}: does not decode as an image")
                    continue
                seen.add(original)
                if margin is None:
                    shutil.copyfile(image, out / "images" / image.name)
                    label = f"{value - 1} {WHOLE_FRAME}\n" if value else ""
                else:
                    placed, box = set_on_canvas(photo, margin)
                    cv2.imwrite(str(out / "images" / image.name), placed)
                    h, w = placed.shape[:2]
                    label = f"{yolo_line(value, box, w, h)}\n" if value else ""
                (out / "labels" / (image.stem + ".txt")).write_text(label)
                done.photos += 1
                done.dice += 1 if value else 0
    return done


def groundtruth_truth(line: str) -> tuple[str, list[tuple[int, float, float, float, float]] | None]:
    """One line of a SageMaker Ground Truth object-detection manifest (JSON): the image's file
    name and its dice as (face value, left, top, width, height) in pixels, or None when the
    line has no labels or a die the labeller marked unclear (a value no name maps to).

    The labelling job's attribute is the key next to ``"<key>-metadata"``; its class-map names
    each ``class_id`` (``"one"``..``"six"``, ``"unclear"``).

    >>> groundtruth_truth('{"source-ref": "s3://b/x/a.jpg", "dice": {"annotations": '
    ...     '[{"class_id": 1, "left": 2, "top": 3, "width": 4, "height": 5}]}, "dice-metadata": '
    ...     '{"class-map": {"0": "one", "1": "two"}}}')
    ('a.jpg', [(2, 2.0, 3.0, 4.0, 5.0)])

    :raises ImageError: for a line that is not such JSON.
    """
    try:
        doc = json.loads(line)
        name = str(doc["source-ref"]).rsplit("/", 1)[-1]
        key = next(k[: -len("-metadata")] for k in doc if k.endswith("-metadata"))
        names = {int(k): str(v) for k, v in doc[f"{key}-metadata"].get("class-map", {}).items()}
        boxes = doc[key]["annotations"]
        dice = []
        for box in boxes:
            try:
                value = face_value(names[int(box["class_id"])])
            except (KeyError, ImageError):
                return name, None
            left, top, width, height = (float(box[k]) for k in ("left", "top", "width", "height"))
            dice.append((value, left, top, width, height))
    except (ValueError, KeyError, TypeError, StopIteration, AttributeError) as exc:
        raise ImageError(
            "expected a Ground Truth manifest line: JSON with source-ref, a labelling job's"
            f" annotations and its -metadata class-map ({type(exc).__name__}: {exc})"
        ) from None
    return name, (dice if dice else None)


def convert_groundtruth(
    manifest: Path,
    images: Path,
    out: Path,
    *,
    include: tuple[str, ...] = (),
    exclude: Iterable[str] = (),
) -> Converted:
    """Copy the photos a Ground Truth manifest labels (found by file name in ``images``) into
    ``out`` (images/ + labels/), those whose name starts with one of ``include`` (all when
    empty) and is not in ``exclude`` (by :func:`original_name`). A photo without labels or with
    a die marked unclear is left out and named; so is a line that does not parse, an image that
    is missing or does not decode, or a box outside its photo.
    """
    excluded = set(exclude)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    done = Converted()
    for n, line in enumerate(manifest.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            name, dice = groundtruth_truth(line)
        except ImageError as exc:
            done.skipped.append(f"{manifest} line {n}: {exc}")
            continue
        if (include and not name.startswith(include)) or original_name(name) in excluded:
            continue
        if dice is None:
            done.skipped.append(f"{name}: no labels, or a die labelled unclear")
            continue
        frame = cv2.imread(str(images / name))
        if frame is None:
            done.skipped.append(f"{images / name}: missing or does not decode as an image")
            continue
        h, w = frame.shape[:2]
        lines = []
        for value, left, top, bw, bh in dice:
            if left < 0 or top < 0 or left + bw > w + 1 or top + bh > h + 1 or bw <= 0 or bh <= 0:
                break
            xc, yc = (left + bw / 2) / w, (top + bh / 2) / h
            lines.append(f"{value - 1} {xc:.6f} {yc:.6f} {bw / w:.6f} {bh / h:.6f}")
        else:
            shutil.copyfile(images / name, out / "images" / name)
            (out / "labels" / (Path(name).stem + ".txt")).write_text("\n".join(lines) + "\n")
            done.photos += 1
            done.dice += len(lines)
            continue
        done.skipped.append(f"{name}: a box lies outside the {w}x{h} photo")
    return done


def parse_own_labels(text: str) -> dict[str, list[tuple[int, tuple[float, float, float, float]]]]:
    """The labels this project wrote for a source's photos (``training/labels/*.json``): each
    photo's file name to its dice as (face value, (x0, y0, x1, y1)) in pixels.

    >>> parse_own_labels('{"a.jpg": [[6, 10, 20, 30, 40]], "b.jpg": []}')
    {'a.jpg': [(6, (10.0, 20.0, 30.0, 40.0))], 'b.jpg': []}

    :raises ImageError: for text that is not such JSON, a value outside 1-6 or an empty box.
    """
    try:
        doc = json.loads(text)
        if not isinstance(doc, dict):
            raise TypeError("the top level is not an object")
        out: dict[str, list[tuple[int, tuple[float, float, float, float]]]] = {}
        for name, dice in doc.items():
            out[str(name)] = []
            for die in dice:
                value, x0, y0, x1, y1 = die
                if type(value) is not int or not 1 <= value <= 6:
                    raise ValueError(f"{name}: face value {value!r} is not 1-6")
                box = (float(x0), float(y0), float(x1), float(y1))
                if not (box[0] < box[2] and box[1] < box[3]):
                    raise ValueError(f"{name}: box {list(box)} is empty")
                out[str(name)].append((value, box))
    except (ValueError, TypeError) as exc:
        raise ImageError(
            'expected {"PHOTO.jpg": [[face value 1-6, x0, y0, x1, y1], ...], ...} in pixels'
            f" ({exc})"
        ) from None
    return out


def convert_own_labels(labels: Path, images: Path, out: Path) -> Converted:
    """Copy the photos of ``images`` that the labels file ``labels`` (:func:`parse_own_labels`)
    names into ``out`` (images/ + labels/); a photo that is missing or does not decode, or with
    a box outside it, is skipped and named.

    :raises ImageError: for a labels file that does not read or parse.
    """
    try:
        text = labels.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ImageError(f"{labels}: cannot read the labels file ({exc})") from None
    truth = parse_own_labels(text)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    done = Converted()
    for name, dice in sorted(truth.items()):
        frame = cv2.imread(str(images / name))
        if frame is None:
            done.skipped.append(f"{images / name}: missing or does not decode as an image")
            continue
        h, w = frame.shape[:2]
        if any(x0 < 0 or y0 < 0 or x1 > w or y1 > h for _, (x0, y0, x1, y1) in dice):
            done.skipped.append(f"{name}: a box lies outside the {w}x{h} photo")
            continue
        shutil.copyfile(images / name, out / "images" / name)
        lines = [yolo_line(value, box, w, h) for value, box in dice]
        (out / "labels" / (Path(name).stem + ".txt")).write_text("".join(f"{ln}\n" for ln in lines))
        done.photos += 1
        done.dice += len(lines)
    return done


def parse_voc(xml_text: str) -> list[tuple[str, tuple[float, float, float, float]]]:
    """The objects of a Pascal VOC annotation (labelImg's XML): (name, (x0, y0, x1, y1)).

    >>> parse_voc("<annotation><object><name>die</name><bndbox><xmin>1</xmin><ymin>2</ymin>"
    ...     "<xmax>30</xmax><ymax>40</ymax></bndbox></object></annotation>")
    [('die', (1.0, 2.0, 30.0, 40.0))]

    :raises ImageError: for text that is not such XML.
    """
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(xml_text)
        out = []
        for obj in root.iter("object"):
            bb = obj.find("bndbox")
            if bb is None:
                raise ValueError("an object without a bndbox")
            x0, y0, x1, y1 = (float(bb.findtext(k) or "") for k in ("xmin", "ymin", "xmax", "ymax"))
            out.append((str(obj.findtext("name") or "").strip(), (x0, y0, x1, y1)))
    except (ET.ParseError, ValueError) as exc:
        raise ImageError(
            f"expected Pascal VOC XML (<object><name>, <bndbox> xmin ymin xmax ymax) ({exc})"
        ) from None
    return out


CROP_MATCH = 0.95
"""Normalised correlation at which a crop counts as found, cut unchanged, in its photo."""


def convert_voc_with_crops(
    photos: Iterable[Path], crops: Path, out: Path, *, min_match: float = CROP_MATCH
) -> Converted:
    """Photos whose Pascal VOC boxes say only where the dice are, valued from a classification
    set of crops cut from them (``crops/<value folder>/<photo stem>-die-<n>.jpg``): each crop is
    found in its photo (template matching; the crop is an unchanged cut) and gives its value to
    the box holding its centre. A photo is kept only when every box gets exactly one value and
    every crop lands in a box; else it is left out and named.
    """
    by_photo: dict[str, list[tuple[int, Path]]] = {}
    for folder in sorted(p for p in crops.iterdir() if p.is_dir()):
        value = folder_dice(folder.name)
        for crop in sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
            by_photo.setdefault(crop.stem.rsplit("-", 2)[0], []).append((value, crop))
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    done = Converted()
    for folder in photos:
        for xml in sorted(folder.glob("*.xml")):
            why = _label_from_crops(xml, by_photo.get(xml.stem, []), out, min_match)
            if why:
                done.skipped.append(f"{xml}: {why}")
            else:
                done.photos += 1
                done.dice += len((out / "labels" / f"{xml.stem}.txt").read_text().splitlines())
    return done


def _label_from_crops(xml: Path, crops: list[tuple[int, Path]], out: Path, min_match: float) -> str:
    """Write one photo's labels from its VOC boxes and located crops; the reason when not."""
    image_path = next(
        (p for p in xml.parent.glob(f"{xml.stem}.*") if p.suffix.lower() in IMAGE_SUFFIXES), None
    )
    frame = cv2.imread(str(image_path)) if image_path else None
    if image_path is None or frame is None:
        return "no image of that name decodes beside it"
    try:
        boxes = [b for _, b in parse_voc(xml.read_text())]
    except (OSError, UnicodeDecodeError, ImageError) as exc:
        return str(exc)
    values: list[int | None] = [None] * len(boxes)
    for value, crop_path in crops:
        crop = cv2.imread(str(crop_path))
        if crop is None or crop.shape[0] > frame.shape[0] or crop.shape[1] > frame.shape[1]:
            return f"crop {crop_path.name} does not decode or is larger than the photo"
        score = cv2.minMaxLoc(cv2.matchTemplate(frame, crop, cv2.TM_CCOEFF_NORMED))
        if score[1] < min_match:
            return f"crop {crop_path.name} is not found in the photo (best match {score[1]:.2f})"
        cx, cy = score[3][0] + crop.shape[1] / 2, score[3][1] + crop.shape[0] / 2
        holding = [
            i for i, (x0, y0, x1, y1) in enumerate(boxes) if x0 <= cx <= x1 and y0 <= cy <= y1
        ]
        if len(holding) != 1 or values[holding[0]] is not None:
            return f"crop {crop_path.name} does not land in exactly one box of its own"
        values[holding[0]] = value
    if not boxes or any(v is None or v == 0 for v in values):
        return "a box without a valued crop (or no box)"
    h, w = frame.shape[:2]
    lines = [yolo_line(v, box, w, h) for v, box in zip(values, boxes, strict=True) if v]
    shutil.copyfile(image_path, out / "images" / image_path.name)
    (out / "labels" / f"{xml.stem}.txt").write_text("\n".join(lines) + "\n")
    return ""


def yolo_line(value: int, box: tuple[float, float, float, float], width: int, height: int) -> str:
    """A YOLO label line (class = value - 1) for a pixel box in a ``width`` × ``height`` image.

    >>> yolo_line(6, (10, 20, 30, 60), 100, 200)
    '5 0.200000 0.200000 0.200000 0.200000'
    """
    x0, y0, x1, y1 = box
    xc, yc = (x0 + x1) / 2 / width, (y0 + y1) / 2 / height
    return f"{value - 1} {xc:.6f} {yc:.6f} {(x1 - x0) / width:.6f} {(y1 - y0) / height:.6f}"
