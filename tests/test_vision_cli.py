"""``scorekeeper read`` and ``scorekeeper eval-reader``: JSON schema, annotation, bad files."""

from __future__ import annotations

import argparse
import json
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorekeeper.cli import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_images"
TRUTH = json.loads((SAMPLES / "truth.json").read_text())
LABELS = json.loads((SAMPLES / "labels.json").read_text())


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of one CLI call."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_read_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    names = ["scene-02-felt.jpg", "scene-06-tiles.jpg"]
    code, out, _ = run(capsys, "read", "--json", *(str(SAMPLES / n) for n in names))
    assert code == 0
    doc = json.loads(out)
    assert isinstance(doc, list) and len(doc) == 2
    for item, name in zip(doc, names, strict=True):
        assert set(item) == {"image", "dice"} and item["image"].endswith(name)
        assert sorted(d["value"] for d in item["dice"]) == TRUTH[name]
        for die in item["dice"]:
            assert set(die) == {"value", "box", "confidence"}
            x0, y0, x1, y1 = die["box"]
            assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 480
            assert 0.0 < die["confidence"] <= 1.0


def test_read_plain_and_annotate(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_png = tmp_path / "out.png"
    image = SAMPLES / "scene-01-wood.jpg"
    code, out, _ = run(capsys, "read", "--annotate", str(out_png), str(image))
    assert code == 0 and out.startswith(str(image))
    assert out.split(":")[-1].split() == [str(v) for v in TRUTH[image.name]]
    drawn, original = cv2.imread(str(out_png)), cv2.imread(str(image))
    assert drawn.shape == original.shape and (drawn != original).any()


def test_read_warns_of_a_blown_out_picture(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    image = cv2.imread(str(SAMPLES / "scene-01-wood.jpg"))
    code, _, err = run(capsys, "read", str(SAMPLES / "scene-01-wood.jpg"))
    assert code == 0 and "warning" not in err
    image[:, : image.shape[1] // 3] = 255
    path = tmp_path / "blown.png"
    cv2.imwrite(str(path), image)
    code, out, err = run(capsys, "read", "--json", str(path))
    assert code == 0 and json.loads(out)[0]["image"] == str(path)
    assert err.startswith(f"scorekeeper read: warning: {path}: About 30% of")
    assert "% of the picture is blown out to white" in err and err.count("\n") == 1


def bad_files(tmp: Path) -> dict[str, Path]:
    """Non-image, empty, 1×1, 20000×20000 (header: PNG and JPEG) and truncated JPEG files."""
    ihdr = struct.pack(">IIBBBBB", 20000, 20000, 8, 0, 0, 0, 0)
    huge = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr
    huge += struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)) + b"\0\0\0\0IEND\xaeB`\x82"
    sof = b"\xff\xc0\x00\x11\x08" + struct.pack(">HH", 20000, 20000) + b"\x03" + b"\0" * 9
    files = {
        "text.jpg": b"hello, not an image\n",
        "empty.png": b"",
        "one.png": cv2.imencode(".png", np.zeros((1, 1, 3), np.uint8))[1].tobytes(),
        "huge.png": huge,
        "huge.jpg": b"\xff\xd8" + sof + b"\0" * 64 + b"\xff\xd9",
        "cut.jpg": (SAMPLES / "scene-05-text.jpg").read_bytes()[:20000],
    }
    out = {}
    for name, data in files.items():
        (tmp / name).write_bytes(data)
        out[name] = tmp / name
    return out


def test_read_marks_the_dice_it_is_unsure_of(capsys: pytest.CaptureFixture[str]) -> None:
    # a low die threshold lets a blank card under printed text through, with a weak face
    args = ["--threshold", "0.3", str(SAMPLES / "hard" / "scene-08-clutter.jpg")]
    code, out, _ = run(capsys, "read", "--json", *args)
    dice = sorted(json.loads(out)[0]["dice"], key=lambda d: d["box"][0])
    code, text, _ = run(capsys, "read", *args)
    assert code == 0
    expected = [f"{d['value']}?" if d["confidence"] < 0.8 else str(d["value"]) for d in dice]
    assert text.split(": ", 1)[1].split() == expected
    assert sum(v.endswith("?") for v in expected) == 1


def test_read_with_the_dice_thrown_makes_up_the_count_marked_unsure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    photo = str(SAMPLES / "scene-06-tiles.jpg")
    strict = ["--threshold", "0.995"]  # turns down all but the surest dice
    code, out, _ = run(capsys, "read", *strict, photo)
    read = out.split(": ", 1)[1].split()
    assert code == 0 and len(read) < 6
    code, out, _ = run(capsys, "read", *strict, "--dice", "6", photo)
    filled = out.split(": ", 1)[1].split()
    assert code == 0 and sorted(int(v.rstrip("?")) for v in filled) == TRUTH["scene-06-tiles.jpg"]
    assert sum(v.endswith("?") for v in filled) == 6 - len(read)
    # fewer thrown than it reads: the surplus is doubted, values unchanged
    code, out, _ = run(capsys, "read", "--dice", "5", photo)
    doubted = out.split(": ", 1)[1].split()
    assert code == 0 and len(doubted) == 6 and any(v.endswith("?") for v in doubted)
    assert sorted(int(v.rstrip("?")) for v in doubted) == TRUTH["scene-06-tiles.jpg"]
    for bad in ("7", "0", "two"):
        with pytest.raises(SystemExit) as exc:
            main(["read", "--dice", bad, photo])
        out, err = capsys.readouterr()
        assert exc.value.code == 2 and out == "" and "--dice" in err and "1 to 6" in err


@pytest.mark.parametrize(
    "name", ["text.jpg", "empty.png", "one.png", "huge.png", "huge.jpg", "cut.jpg"]
)
def test_read_bad_file_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    path = bad_files(tmp_path)[name]
    code, out, err = run(capsys, "read", "--json", str(path))
    assert code == 2 and out == ""
    assert err.startswith("scorekeeper read: error:") and str(path) in err and "expected" in err


def test_read_mixed_good_and_bad(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = bad_files(tmp_path)["cut.jpg"]
    good = SAMPLES / "scene-01-wood.jpg"
    code, out, err = run(capsys, "read", "--json", str(good), str(bad))
    assert code == 2 and "truncated" in err
    assert [d["image"] for d in json.loads(out)] == [str(good)]


def test_read_a_phone_photo_over_40_megapixels(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A 44-megapixel JPEG (a phone's high-resolution mode) is decoded at half size and read as
    the photo it was made from; its boxes are in its own pixels, 12 times the scene's."""
    name = "scene-06-tiles.jpg"
    big = cv2.resize(cv2.imread(str(SAMPLES / name)), (7680, 5760), interpolation=cv2.INTER_CUBIC)
    path = tmp_path / "phone.jpg"
    cv2.imwrite(str(path), big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    del big
    code, out, _ = run(capsys, "read", "--json", str(SAMPLES / name), str(path))
    small, phone = (sorted(item["dice"], key=lambda d: d["box"][0]) for item in json.loads(out))
    assert code == 0 and [d["value"] for d in phone] == [d["value"] for d in small]
    assert sorted(d["value"] for d in phone) == TRUTH[name]
    for a, b in zip(small, phone, strict=True):
        tolerance = 0.15 * 12 * (a["box"][2] - a["box"][0])
        assert all(abs(u * 12 - v) < tolerance for u, v in zip(a["box"], b["box"], strict=True))
    out_png = tmp_path / "drawn.png"
    code, _, _ = run(capsys, "read", "--annotate", str(out_png), str(path))
    assert code == 0 and cv2.imread(str(out_png)).shape == (2880, 3840, 3)


def test_read_missing_model_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys, "read", "--model", str(tmp_path / "x.onnx"), str(SAMPLES / "scene-01-wood.jpg")
    )
    assert code == 2 and "no dice model" in err


def yolo_folder(tmp: Path) -> Path:
    """A dice-data style folder (images/ + YOLO labels/) made from the sample scenes."""
    (tmp / "images").mkdir(parents=True)
    (tmp / "labels").mkdir()
    for name, dice in LABELS.items():
        (tmp / "images" / name).write_bytes((SAMPLES / name).read_bytes())
        lines = []
        for d in dice:
            x0, y0, x1, y1 = d["box"]
            xc, yc, w, h = (x0 + x1) / 1280, (y0 + y1) / 960, (x1 - x0) / 640, (y1 - y0) / 480
            lines.append(f"{d['value'] - 1} {xc:.6f} {yc:.6f} {w:.6f} {h:.6f}")
        (tmp / "labels" / (Path(name).stem + ".txt")).write_text("\n".join(lines) + "\n")
    return tmp


def test_eval_reader_figures(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = yolo_folder(tmp_path)
    code, out, _ = run(capsys, "eval-reader", str(folder))
    assert code == 0
    fig = json.loads(out)[str(folder)]
    n_dice = sum(len(v) for v in TRUTH.values())
    assert fig["images"] == len(TRUTH) and fig["dice"] == n_dice
    assert fig["recall"] == 1.0 and fig["precision"] == 1.0
    assert fig["value_accuracy"] == 1.0 and fig["exact_images"] == 1.0
    matrix = fig["confusion"]["matrix"]
    assert len(matrix) == 7 and sum(map(sum, matrix)) == n_dice
    code, out, _ = run(capsys, "eval-reader", "--split", "holdout", str(folder))
    assert json.loads(out)[str(folder)]["images"] == 2
    assert fig["grey"] is False
    # as a grey camera would deliver them: still every die found
    code, out, _ = run(capsys, "eval-reader", "--grey", str(folder))
    grey = json.loads(out)[str(folder)]
    assert code == 0 and grey["grey"] is True and grey["recall"] == 1.0


def test_eval_reader_reads_throws_knowing_their_count(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = yolo_folder(tmp_path)
    strict = ("--threshold", "0.995")  # a reader that turns down all but the surest dice
    code, out, _ = run(capsys, "eval-reader", *strict, str(folder))
    plain = json.loads(out)[str(folder)]
    assert code == 0 and plain["count_known"] is False and plain["recall"] < 1.0
    assert plain["throws"] == len(TRUTH) and plain["unflagged_mistake_photos"] > 0
    code, out, _ = run(capsys, "eval-reader", *strict, "--count-known", str(folder))
    known = json.loads(out)[str(folder)]
    # the dice turned down make up each throw's count, marked unsure: found, and flagged
    assert code == 0 and known["count_known"] is True and known["recall"] == 1.0
    assert known["value_accuracy"] == 1.0 and known["unflagged_mistake_photos"] == 0
    assert known["unsure"] > plain["unsure"] and known["throws_slipped"] == 0


def test_eval_reader_names_images_without_a_label_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = yolo_folder(tmp_path)
    name = sorted(TRUTH)[0]
    (folder / "labels" / (Path(name).stem + ".txt")).unlink()
    code, out, err = run(capsys, "eval-reader", str(folder))
    fig = json.loads(out)[str(folder)]
    # counted as showing no dice (YOLO's background images), so its dice are extra predictions
    assert code == 0 and fig["unlabelled_images"] == [name] and fig["wrong_images"] == [name]
    assert fig["precision"] < 1.0 and fig["dice"] == sum(len(v) for v in TRUTH.values()) - len(
        TRUTH[name]
    )
    assert f"1 image without a label file in labels/, counted as showing no dice: {name}" in err
    code, out, err = run(capsys, "eval-reader", "--split", "holdout", str(folder))
    assert json.loads(out)[str(folder)]["unlabelled_images"] == [] and err == ""


def test_eval_reader_errata_correct_a_faulty_label(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = yolo_folder(tmp_path / "set")
    name = sorted(TRUTH)[0]
    label = folder / "labels" / (Path(name).stem + ".txt")
    good = label.read_text()
    lines = good.splitlines()
    wrong_value = (int(lines[0].split()[0]) + 1) % 6
    label.write_text("\n".join([f"{wrong_value} {lines[0].split(' ', 1)[1]}", *lines[1:]]) + "\n")
    code, out, _ = run(capsys, "eval-reader", str(folder))
    fig = json.loads(out)[str(folder)]
    assert code == 0 and fig["value_accuracy"] < 1.0 and fig["wrong_images"] == [name]
    assert "corrected_labels" not in fig
    errata = tmp_path / "errata.json"
    key = f"set/labels/{label.name}"
    errata.write_text(json.dumps({"labels": {key: {"text": good, "why": "test"}}}))
    code, out, _ = run(capsys, "eval-reader", "--errata", str(errata), str(folder))
    fig = json.loads(out)[str(folder)]
    assert code == 0 and fig["value_accuracy"] == 1.0 and fig["exact_images"] == 1.0
    assert fig["corrected_labels"] == [label.name]
    # a key naming another folder corrects nothing here
    errata.write_text(json.dumps({"labels": {f"other/labels/{label.name}": {"text": good}}}))
    code, out, _ = run(capsys, "eval-reader", "--errata", str(errata), str(folder))
    assert json.loads(out)[str(folder)]["corrected_labels"] == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "expected an errata JSON file"),
        ('{"labels": [1]}', "expected an errata JSON file"),
        ('{"labels": {"a/labels/b.txt": {"why": "no text"}}}', "expected an errata JSON file"),
        ('{"labels": {"a/labels/b.txt": {"text": "7 0.5 0.5 0.1 0.1"}}}', "a/labels/b.txt"),
        (None, "expected an errata JSON file"),
    ],
)
def test_eval_reader_bad_errata_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str | None, message: str
) -> None:
    folder = yolo_folder(tmp_path / "set")
    errata = tmp_path / "errata.json"
    if content is not None:
        errata.write_text(content)
    code, out, err = run(capsys, "eval-reader", "--errata", str(errata), str(folder))
    assert code == 2 and message in err and out == ""


def test_eval_reader_bad_folder(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "eval-reader", str(tmp_path))
    assert code == 2 and "images/ and labels/" in err
    code, _, err = run(capsys, "eval-reader", str(tmp_path / "nowhere"))
    assert code == 2 and "not a folder" in err


def test_eval_reader_finds_the_labelled_folders_under_a_root(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A data set's root (train/ and valid/ each with images/ + labels/, as exported for YOLO)
    is reported folder by folder; segmentation labels (polygons) count as their boxes."""
    train, valid = yolo_folder(tmp_path / "set" / "train"), yolo_folder(tmp_path / "set" / "valid")
    for label in (valid / "labels").iterdir():
        lines = []
        for line in label.read_text().splitlines():
            c, xc, yc, w, h = (float(v) for v in line.split())
            x0, y0, x1, y1 = xc - w / 2, yc - h / 2, xc + w / 2, yc + h / 2
            lines.append(f"{int(c)} {x0:.6f} {y0:.6f} {x1:.6f} {y0:.6f} {x1:.6f} {y1:.6f}")
        label.write_text("\n".join(lines) + "\n")
    (tmp_path / "set" / "notes").mkdir()
    code, out, _ = run(capsys, "eval-reader", "--split", "holdout", str(tmp_path / "set"))
    doc = json.loads(out)
    assert code == 0 and list(doc) == [str(train), str(valid)]
    assert all(f["images"] == 2 and f["exact_images"] == 1.0 for f in doc.values())
    code, out, _ = run(capsys, "eval-reader", str(train), str(tmp_path))
    assert code == 0 and list(json.loads(out)) == [str(train), str(valid)]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"6 0.5 0.5 0.1 0.1\n", "CLASS the face value - 1 (0..5)"),  # a set counting from 1
        (b"2 0.5 0.5 0.1\n", "expected 'CLASS XC YC W H'"),
        (b"\xff\xfe\x00", "cannot read the label file"),
    ],
)
def test_eval_reader_bad_label_file_names_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, message: str
) -> None:
    folder = yolo_folder(tmp_path)
    label = folder / "labels" / (Path(sorted(TRUTH)[0]).stem + ".txt")
    label.write_bytes(content)
    code, out, err = run(capsys, "eval-reader", str(folder))
    assert code == 2 and out == "" and f"{label}: " in err and message in err


BETWEEN = "expected a number between 0 and 1"
FROM_0_TO_1 = "expected a number from 0 to 1"
WIDER = "expected 0 (none) or a factor over 1 up to 3"
ENLARGE = "expected a factor from 1 (never enlarge) to 4"
SHARE = "expected a share over 0 and up to 1 (all the dice read)"
OVERSIZE = "expected 0 (never) or a ratio over 1 up to 10"
SOLIDITY = "expected 0 (never) or a solidity up to 1"
ABOVE = (
    "expected UP:TALL views joined by commas (each from 0, TALL over 0, up to 2 box sides), or none"
)


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--threshold", "1.5", f"{BETWEEN}, got 1.5"),
        ("--threshold", "0", f"{BETWEEN}, got 0"),
        ("--candidate-threshold", "abc", f"{BETWEEN}, got 'abc'"),
        ("--relook-face-below", "1.2", f"{FROM_0_TO_1}, got '1.2'"),
        ("--relook-face-below", "-0.1", f"{FROM_0_TO_1}, got '-0.1'"),
        ("--relook-face-below", "most", f"{FROM_0_TO_1}, got 'most'"),
        ("--rescue-scale", "1", f"{WIDER}, got '1'"),
        ("--rescue-scale", "5", f"{WIDER}, got '5'"),
        ("--rescue-scale", "wide", f"{WIDER}, got 'wide'"),
        ("--zoom-enlarge", "0.5", f"{ENLARGE}, got '0.5'"),
        ("--zoom-enlarge", "5", f"{ENLARGE}, got '5'"),
        ("--zoom-enlarge", "big", f"{ENLARGE}, got 'big'"),
        ("--zoom-share", "0", f"{SHARE}, got '0'"),
        ("--zoom-share", "1.5", f"{SHARE}, got '1.5'"),
        ("--zoom-share", "few", f"{SHARE}, got 'few'"),
        ("--oversize-ratio", "1", f"{OVERSIZE}, got '1'"),
        ("--oversize-ratio", "12", f"{OVERSIZE}, got '12'"),
        ("--oversize-ratio", "big", f"{OVERSIZE}, got 'big'"),
        ("--one-solidity", "1.5", f"{SOLIDITY}, got '1.5'"),
        ("--one-solidity", "-1", f"{SOLIDITY}, got '-1'"),
        ("--one-solidity", "round", f"{SOLIDITY}, got 'round'"),
        ("--one-roundness", "1.2", "expected 0 (never) or a roundness up to 1, got '1.2'"),
        ("--above-views", "0.5", f"{ABOVE}; got '0.5'"),
        ("--above-views", "0.5:0", f"{ABOVE}; got '0.5:0'"),
        ("--above-views", "3:0.8", f"{ABOVE}; got '3:0.8'"),
        ("--above-views", "up:tall", f"{ABOVE}; got 'up:tall'"),
        ("--above-views", "0.5:0.8,", f"{ABOVE}; got '0.5:0.8,'"),
        ("--colour-above", "1.5", "expected 0 (never) or a share up to 1, got '1.5'"),
        ("--colour-above", "some", "expected 0 (never) or a share up to 1, got 'some'"),
    ],
)
def test_read_bad_thresholds_exit_2(
    capsys: pytest.CaptureFixture[str], option: str, value: str, said: str
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["read", option, value, str(SAMPLES / "scene-01-wood.jpg")])
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == ""
    assert f"argument {option}: {said}" in err


@pytest.mark.parametrize("value", ["0", "-3", "100000", "big"])
def test_read_bad_long_side_exits_2(capsys: pytest.CaptureFixture[str], value: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["read", "--long-side", value, str(SAMPLES / "scene-01-wood.jpg")])
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == ""
    assert f"--long-side: expected a whole number of pixels from 64 to 4096, got '{value}'" in err


def test_read_single_scale_reads_the_samples_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    image = str(SAMPLES / "scene-02-felt.jpg")
    code, both, _ = run(capsys, "read", "--json", image)
    code_one, one, _ = run(capsys, "read", "--json", "--single-scale", image)
    assert code == code_one == 0
    values = [sorted(d["value"] for d in json.loads(o)[0]["dice"]) for o in (both, one)]
    assert values[0] == values[1] and values[0]


def test_read_thresholds_override_the_model(capsys: pytest.CaptureFixture[str]) -> None:
    image = str(SAMPLES / "scene-04-tray.jpg")
    code, out, _ = run(capsys, "read", "--json", image)
    assert code == 0
    strict = ("--threshold", "0.99", "--candidate-threshold", "0.9")
    code, out_strict, _ = run(capsys, "read", "--json", *strict, image)
    assert code == 0
    assert len(json.loads(out_strict)[0]["dice"]) < len(json.loads(out)[0]["dice"])


def test_read_rescue_scale_sets_the_wider_look(capsys: pytest.CaptureFixture[str]) -> None:
    from scorekeeper.cli.vision_cmds import _reader

    image = str(SAMPLES / "scene-04-tray.jpg")
    outs = [run(capsys, "read", "--json", "--rescue-scale", k, image) for k in ("0", "2.5")]
    assert [code for code, _, _ in outs] == [0, 0]
    values = [sorted(d["value"] for d in json.loads(out)[0]["dice"]) for _, out, _ in outs]
    assert values[0] == values[1] == [1, 5, 6, 6]
    args = argparse.Namespace(
        model=None,
        threshold=None,
        candidate_threshold=None,
        unsure_below=None,
        relook_face_below=None,
        threads=1,
        long_side=None,
        single_scale=False,
        zoom_enlarge=1.5,
        zoom_share=0.5,
        oversize_ratio=3.0,
        one_solidity=0.6,
        one_roundness=0.5,
        above_views=((0.4, 0.9),),
        colour_above=0.4,
        heap_heat=0.3,
    )
    assert _reader(argparse.Namespace(**vars(args), rescue_scale=None)).rescue_scale == 1.6
    assert _reader(argparse.Namespace(**vars(args), rescue_scale=0.0)).rescue_scale == 0.0
    assert _reader(argparse.Namespace(**vars(args), rescue_scale=0.0)).config.zoom_enlarge == 1.5
    assert _reader(argparse.Namespace(**vars(args), rescue_scale=0.0)).config.heap_heat == 0.3
    assert _reader(argparse.Namespace(**vars(args), rescue_scale=0.0)).config.zoom_share == 0.5
    assert _reader(argparse.Namespace(**vars(args), rescue_scale=0.0)).config.oversize_ratio == 3
    assert _reader(argparse.Namespace(**vars(args), rescue_scale=0.0)).config.one_solidity == 0.6
    assert _reader(argparse.Namespace(**vars(args), rescue_scale=0.0)).config.one_roundness == 0.5
    assert _reader(argparse.Namespace(**vars(args), rescue_scale=0.0)).config.colour_above == 0.4
    assert _reader(argparse.Namespace(**vars(args), rescue_scale=0.0)).config.above_views == (
        (0.4, 0.9),
    )


def test_read_with_dice_read_again_turned_half_round(capsys: pytest.CaptureFixture[str]) -> None:
    image = str(SAMPLES / "scene-04-tray.jpg")
    code, out, _ = run(capsys, "read", "--json", "--relook-face-below", "0", image)
    code_checked, checked, _ = run(capsys, "read", "--json", "--relook-face-below", "0.99", image)
    assert code == code_checked == 0
    plain, twice = (json.loads(o)[0]["dice"] for o in (out, checked))
    assert sorted(d["value"] for d in plain) == sorted(d["value"] for d in twice)
    # the sample's dice are read at about 0.96: each is read again, and its confidence moves
    assert [d["confidence"] for d in plain] != [d["confidence"] for d in twice]
