"""Other sources' labelled photos (``make data``): class names to face values, YOLO exports
converted, bad files named and skipped; and ``eval-reader``'s per-photo trust figures."""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from scorekeeper.errors import ImageError
from scorekeeper.vision.datasets import (
    class_values,
    convert_class_folders,
    convert_groundtruth,
    convert_own_labels,
    convert_rotated_copies,
    convert_voc_with_crops,
    convert_yolo_export,
    face_value,
    parse_names,
    parse_own_labels,
    remap_yolo,
)
from scorekeeper.vision.detection import Detection, doubt_surplus
from scorekeeper.vision.evaluate import Tally, judge, parse_yolo
from scorekeeper.vision.reader import DiceReader
from tests.test_vision_cli import LABELS, SAMPLES, run, yolo_folder
from training import calibrate_unsure, fetch_data
from training.sets import source_folders


@pytest.mark.parametrize("name", ["d20", "dice", "7", "0", "", "one-two"])
def test_a_class_name_that_is_no_face_value_is_refused(name: str) -> None:
    with pytest.raises(ImageError, match="not a face value"):
        face_value(name)


def test_names_in_any_order_map_to_their_values() -> None:
    names = parse_names("train: x\nnames:\n  - 'six'\n  - five\n  - 4\n  - 3\n  - two\n  - 1\n")
    assert class_values(names) == {0: 6, 1: 5, 2: 4, 3: 3, 4: 2, 5: 1}
    with pytest.raises(ImageError, match="same face value"):
        class_values(["1", "one"])
    with pytest.raises(ImageError, match="'names:' list"):
        parse_names("nc: 6\ntrain: images\n")


def test_remap_writes_value_minus_one_and_refuses_unknown_classes() -> None:
    values = {0: 6, 1: 1}
    assert remap_yolo("0 0.5 0.5 0.2 0.2\n1 0.1 0.1 0.05 0.05\n", values) == (
        "5 0.5 0.5 0.2 0.2\n0 0.1 0.1 0.05 0.05\n"
    )
    assert parse_yolo(remap_yolo("0 0.5 0.5 0.2 0.2", values), 100, 100)[0][0] == 6
    with pytest.raises(ImageError, match="class 2 is not one of the 2 classes"):
        remap_yolo("2 0.5 0.5 0.2 0.2\n", values)
    with pytest.raises(ImageError, match="expected 'CLASS XC YC W H'"):
        remap_yolo("0 0.5 0.5\n", values)


def export(root: Path) -> Path:
    """A tiny YOLO export in a source's own class order (names six..one): two Roboflow copies
    of one photo, one other photo, a stock picture to leave out, an image that does not decode
    and a label with a class the names do not cover."""
    split = root / "set" / "valid"
    (split / "images").mkdir(parents=True)
    (split / "labels").mkdir()
    (root / "set" / "data.yaml").write_text("nc: 6\nnames: ['6', '5', '4', '3', '2', '1']\n")
    frame = np.full((64, 64, 3), 200, np.uint8)
    for name, line in [
        ("a_jpg.rf.111", "0 0.5 0.5 0.3 0.3"),  # a 6
        ("a_jpg.rf.222", "0 0.5 0.5 0.3 0.3"),
        ("b_jpg.rf.333", "5 0.25 0.25 0.2 0.2\n1 0.75 0.75 0.2 0.2"),  # a 1 and a 5
        ("stock_jpg.rf.444", "2 0.5 0.5 0.3 0.3"),
        ("bad_label", "9 0.5 0.5 0.3 0.3"),
    ]:
        cv2.imwrite(str(split / "images" / f"{name}.jpg"), frame)
        (split / "labels" / f"{name}.txt").write_text(line + "\n")
    (split / "images" / "broken.jpg").write_bytes(b"not a jpeg")
    (split / "labels" / "broken.txt").write_text("0 0.5 0.5 0.3 0.3\n")
    return root / "set"


def test_convert_maps_classes_dedupes_copies_and_names_what_it_skips(tmp_path: Path) -> None:
    root = export(tmp_path / "src")
    values = class_values(parse_names((root / "data.yaml").read_text()))
    done = convert_yolo_export(
        [root / "valid"], values, tmp_path / "out", exclude=["stock_jpg"], one_per_original=True
    )
    assert (done.photos, done.dice) == (2, 3)
    assert sorted(p.name for p in (tmp_path / "out" / "images").iterdir()) == [
        "a_jpg.rf.111.jpg",
        "b_jpg.rf.333.jpg",
    ]
    assert (tmp_path / "out" / "labels" / "b_jpg.rf.333.txt").read_text().split("\n")[:2] == [
        "0 0.25 0.25 0.2 0.2",
        "4 0.75 0.75 0.2 0.2",
    ]
    assert len(done.skipped) == 2
    assert any("bad_label.txt" in m and "class 9" in m for m in done.skipped)
    assert any("broken.jpg" in m and "does not decode" in m for m in done.skipped)


def test_rotated_copies_keep_the_least_turned_copy_of_each_photo_valued_by_name(
    tmp_path: Path,
) -> None:
    # an export of one die a photo, FACE_PHOTO_DEGREES in each name, one class "dice",
    # polygon labels; each photo copied turned: only the least-turned copy is kept
    box = "0 0.4 0.4 0.6 0.4 0.6 0.6 0.4 0.6 0.4 0.4\n"
    copies = {
        "test": {"3_1_10_jpg.rf.a": box, "5_2_45_jpg.rf.c": box},
        "valid": {
            "3_1_0_jpg.rf.b": box,
            "3_1_0_jpg.rf.z": box,  # the same turn: the first by name stays
            "dice_9_jpg.rf.d": box,  # no face in its name
            "6_3_5_jpg.rf.e": "x 0.5 0.5 0.1 0.1\n",  # a label that does not parse
            "2_4_0_jpg.rf.f": "",  # no die labelled
        },
    }
    tile = np.full((32, 32, 3), 200, np.uint8)
    for split, files in copies.items():
        for sub in ("images", "labels"):
            (tmp_path / split / sub).mkdir(parents=True)
        for stem, label in files.items():
            cv2.imwrite(str(tmp_path / split / "images" / f"{stem}.jpg"), tile)
            (tmp_path / split / "labels" / f"{stem}.txt").write_text(label)
    out = tmp_path / "out"
    done = convert_rotated_copies([tmp_path / "test", tmp_path / "valid"], out)
    assert (done.photos, done.dice) == (2, 2)
    kept = sorted(p.name for p in (out / "images").iterdir())
    assert kept == ["3_1_0_jpg.rf.b.jpg", "5_2_45_jpg.rf.c.jpg"]
    assert (out / "labels" / "3_1_0_jpg.rf.b.txt").read_text() == "2" + box[1:]
    assert (out / "labels" / "5_2_45_jpg.rf.c.txt").read_text().startswith("4 0.4 0.4 0.6")
    reasons = "\n".join(done.skipped)
    assert len(done.skipped) == 3, reasons
    assert "dice_9_jpg.rf.d.jpg: the name does not start FACE_PHOTO_DEGREES_" in reasons
    assert "6_3_5_jpg.rf.e.txt" in reasons and "2_4_0_jpg.rf.f.txt: no die labelled" in reasons


def test_a_source_written_as_an_outside_check_is_never_trained_on(tmp_path: Path) -> None:
    from training.sets import source_folders

    for source in ("trained", "check"):
        yolo_folder(tmp_path / source / "all")
    (tmp_path / "check" / "SOURCE.json").write_text(json.dumps({"train": False}))
    (tmp_path / "trained" / "SOURCE.json").write_text(json.dumps({"train": True}))
    assert sorted(source_folders(tmp_path)) == ["trained"]
    (tmp_path / "check" / "SOURCE.json").write_text("not json")  # unreadable: trained on
    assert sorted(source_folders(tmp_path)) == ["check", "trained"]
    assert [s.name for s in fetch_data.SOURCES if not s.train] == ["numeral-tray", "cream-carpet"]


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` with a fixed identity; its stdout."""
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env |= {"GIT_COMMITTER_EMAIL": "t@t", "HOME": str(cwd), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def commit_export(repo: Path) -> str:
    """Make ``repo`` a git repository with everything in it committed; returns the commit."""
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "export")
    return git(repo, "rev-parse", "HEAD")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_make_data_reads_the_pinned_commit_of_a_local_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "mirror" / "owner+dice"
    export(repo)
    pinned = commit_export(repo)
    (repo / "set" / "valid" / "labels" / "b_jpg.rf.333.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    git(repo, "commit", "-qam", "later change, not read")
    source = fetch_data.Source(
        name="tiny",
        repo="owner/dice",
        commit=pinned,
        licence="CC0",
        names_file="set/data.yaml",
        splits=(fetch_data.Split("valid", ("set/valid",), one_per_original=True),),
        exclude={"stock_jpg": "a stock picture"},
    )
    monkeypatch.setattr(fetch_data, "SOURCES", (source,))
    out = tmp_path / "extra"
    assert fetch_data.main(["--out", str(out), "--mirrors", str(tmp_path / "mirror")]) == 0
    printed, err = capsys.readouterr()
    assert f"{out / 'tiny' / 'valid'}: 2 photos, 3 dice (CC0)" in printed
    assert "skipped" in err and "broken.jpg" in err
    record = json.loads((out / "tiny" / "SOURCE.json").read_text())
    assert record["commit"] == pinned and record["class_values"]["0"] == 6
    assert (out / "tiny" / "valid" / "labels" / "b_jpg.rf.333.txt").read_text().startswith("0 ")
    # the converted folder is what eval-reader reads
    code, table, _ = run(capsys, "eval-reader", "--table", str(out))
    assert code == 0 and "| extra/tiny/valid | 2 | 3 |" in table

    # on a Python 3.11 without tarfile's data filter the archive is checked by hand
    monkeypatch.delattr(tarfile, "data_filter")
    assert fetch_data.main(["--out", str(out), "--mirrors", str(tmp_path / "mirror")]) == 0
    assert len(list((out / "tiny" / "valid" / "images").iterdir())) == 2

    # no copy of a source and no network: a clear message and exit 2
    def offline(repo: str, into: Path) -> Path:
        raise ImageError(f"{repo}: cannot clone it (offline); give a local copy")

    monkeypatch.setattr(fetch_data, "clone", offline)
    assert fetch_data.main(["--out", str(tmp_path / "other")]) == 2
    assert "make data: error: owner/dice: cannot clone it" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_an_exports_augmented_copies_are_written_apart_only_to_train_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "mirror" / "owner+dice"
    export(repo)
    shutil.copytree(repo / "set" / "valid", repo / "set" / "train")
    for label in (repo / "set" / "train" / "labels").glob("b_*"):
        label.write_text("5 0.5 0.5 0.3 0.3\n")  # the copies' own labels: one 1
    source = fetch_data.Source(
        name="tiny",
        repo="owner/dice",
        commit=commit_export(repo),
        licence="CC0",
        names_file="set/data.yaml",
        splits=(fetch_data.Split("valid", ("set/valid",)),),
        copies=fetch_data.Split("train", ("set/train",)),
        exclude={"stock_jpg": "a stock picture"},
    )
    monkeypatch.setattr(fetch_data, "SOURCES", (source,))
    out, train_out = tmp_path / "extra", tmp_path / "extra-train"
    mirrors = ["--mirrors", str(tmp_path / "mirror")]
    # without --train-out the copies are not written
    assert fetch_data.main(["--out", str(out), *mirrors]) == 0
    assert not train_out.exists() and "copies" not in capsys.readouterr().out
    assert fetch_data.main(["--out", str(out), "--train-out", str(train_out), *mirrors]) == 0
    printed = capsys.readouterr().out
    written = f"{train_out / 'tiny' / 'train'}: 3 augmented copies, 3 dice, only to train on"
    assert written in printed
    # measured folders hold only the export's own photos; the copies sit under their source's name
    assert set(source_folders(out)) == {"tiny"} and not (out / "tiny" / "train").exists()
    assert [f.name for f in source_folders(train_out)["tiny"]] == ["train"]
    labels = sorted((train_out / "tiny" / "train" / "labels").iterdir())
    assert [p.read_text().split()[0] for p in labels if p.name.startswith("b_")] == ["0"]
    record = json.loads((train_out / "tiny" / "SOURCE.json").read_text())
    assert "never measured" in record["note"] and record["splits"]["train"]["photos"] == 3
    assert json.loads((out / "tiny" / "SOURCE.json").read_text())["copies"]["photos"] == 3
    # like --out, --train-out must lie outside the repository
    inside = str(Path(fetch_data.__file__).parents[1] / "data-train")
    with pytest.raises(SystemExit) as exc:
        fetch_data.main(["--out", str(out), "--train-out", inside, *mirrors])
    assert exc.value.code == 2


def test_make_data_refuses_to_write_inside_the_repository() -> None:
    with pytest.raises(SystemExit) as exc:
        fetch_data.main(["--out", str(Path(fetch_data.__file__).parents[1] / "data")])
    assert exc.value.code == 2


def box(x: float) -> tuple[float, float, float, float]:
    """A 10 px box starting at ``x``."""
    return (x, 0.0, x + 10.0, 10.0)


def test_a_photo_is_trusted_only_when_every_sure_die_is_right_and_none_is_missed() -> None:
    truth = [(5, box(0)), (3, box(20))]
    sure5, sure3 = Detection(5, box(0), 0.95), Detection(3, box(20), 0.9)
    assert judge("ok", [sure5, sure3], truth).exact
    unsure_wrong = judge("flagged", [sure5, Detection(2, box(20), 0.5)], truth)
    assert unsure_wrong.trusted and not unsure_wrong.exact and unsure_wrong.wrong_unsure == 1
    unsure_extra = judge("speck", [sure5, sure3, Detection(1, box(60), 0.3)], truth)
    assert unsure_extra.trusted and unsure_extra.extra_unsure == 1 and unsure_extra.unsure == 1
    sure_wrong = judge("misread", [sure5, Detection(2, box(20), 0.85)], truth)
    assert not sure_wrong.trusted and sure_wrong.wrong_sure == 1
    sure_extra = judge("false die", [sure5, sure3, Detection(1, box(60), 0.9)], truth)
    assert not sure_extra.trusted and sure_extra.extra_sure == 1
    missed = judge("missed", [sure5], truth)
    assert not missed.trusted and missed.missed == 1
    tally = Tally()
    for name, dets in [("a", [sure5, sure3]), ("b", [sure5, Detection(2, box(20), 0.5)])]:
        tally.add(name, dets, truth)
    tally.add("c", [sure5], truth)
    fig = tally.figures()
    assert fig["unflagged_mistake_photos"] == 1 and fig["unflagged_mistake_images"] == ["c"]
    assert fig["unflagged_mistake_rate"] == round(1 / 3, 4)
    assert fig["unsure"] == 1 and fig["unsure_share"] == 0.2


def test_a_throw_slips_through_only_with_the_right_count_and_no_unsure_mark() -> None:
    truth = [(5, box(0)), (3, box(20))]
    sure5, sure3 = Detection(5, box(0), 0.95), Detection(3, box(20), 0.9)
    right = judge("right", [sure5, sure3], truth)
    assert right.right_as_is and not right.slips_through and not right.count_off
    doubted = judge("doubted", [sure5, Detection(3, box(20), 0.5)], truth)
    assert doubted.exact and not doubted.right_as_is and not doubted.slips_through
    misread = judge("misread", [sure5, Detection(2, box(20), 0.85)], truth)
    assert misread.slips_through and not misread.count_off
    # a miss alone is counted off (the panel says "I see 1 die, 2 are left"), not slipped
    missed = judge("missed", [sure5], truth)
    assert missed.count_off and not missed.slips_through and not missed.trusted
    # a miss and a false die elsewhere: the count is right, so it slips through
    swapped = judge("swapped", [sure5, Detection(3, box(60), 0.9)], truth)
    assert swapped.slips_through
    misread_doubted = judge(
        "misread, another doubted", [Detection(5, box(0), 0.5), Detection(2, box(20), 0.85)], truth
    )
    assert not misread_doubted.slips_through and not misread_doubted.trusted
    seven = [(1, box(20 * i)) for i in range(7)]
    many = judge("seven", [Detection(1, box(20 * i), 0.9) for i in range(6)], seven)
    assert not many.is_throw and "slips_through" not in many.to_dict()
    tally = Tally()
    for v, dets in [
        (right, [sure5, sure3]),
        (misread, [sure5, Detection(2, box(20), 0.85)]),
        (missed, [sure5]),
    ]:
        tally.add(v.name, dets, truth)
    tally.add("seven", [Detection(1, box(20 * i), 0.9) for i in range(6)], seven)
    fig = tally.figures()
    assert fig["throws"] == 3 and fig["throws_slipped"] == 1 and fig["throws_unflagged"] == 2
    assert fig["throws_slipped_rate"] == round(1 / 3, 4)
    assert fig["throws_right_as_is"] == round(1 / 3, 4)


def test_eval_reader_per_photo_and_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = yolo_folder(tmp_path / "root" / "set")
    name = sorted(LABELS)[0]
    label = folder / "labels" / (Path(name).stem + ".txt")
    first, *rest = label.read_text().splitlines()
    label.write_text("\n".join([f"{(int(first[0]) + 1) % 6}{first[1:]}", *rest]) + "\n")
    code, out, _ = run(capsys, "eval-reader", "--per-photo", str(folder))
    fig = json.loads(out)[str(folder)]
    assert code == 0 and fig["unflagged_mistake_images"] == [name]
    photos = {p["name"]: p for p in fig["photos"]}
    assert set(photos) == set(LABELS) and photos[name]["trusted"] is False
    assert photos[name]["wrong_sure"] == 1 and photos[name]["missed"] == 0
    assert all(p["trusted"] and p["exact"] for n, p in photos.items() if n != name)
    drawn = tmp_path / "drawn"
    code, out, _ = run(
        capsys, "eval-reader", "--draw", str(drawn), "--table", str(tmp_path / "root")
    )
    # only the photo read wrong is drawn: labelled dice in green, readings in red
    assert [p.name for p in drawn.iterdir()] == [f"unflagged-root-set-{Path(name).stem}.jpg"]
    picture = cv2.imread(str(next(drawn.iterdir())))
    green = (picture[:, :, 1] > 140) & (picture[:, :, 0] < 60) & (picture[:, :, 2] < 60)
    red = (picture[:, :, 2] > 200) & (picture[:, :, 0] < 60) & (picture[:, :, 1] < 60)
    assert green.sum() > 50 and red.sum() > 50
    head, rule, row = out.strip().splitlines()
    assert code == 0 and "photos with an unflagged mistake" in head and rule.startswith("|---")
    n = len(LABELS)
    assert row.startswith(f"| root/set | {n} | ") and f"| {1 / n:.3f} (1) |" in row
    assert (SAMPLES / name).exists()


def test_class_folders_become_one_whole_frame_die_per_photo(tmp_path: Path) -> None:
    """A classification export (a folder per face value, background/ for none) is labelled one
    die a photo, its box the whole frame; a folder that names no value is refused by name."""
    split = tmp_path / "export" / "valid"
    frame = np.full((48, 64, 3), 180, np.uint8)
    for folder, names in [("dice 3", ["a", "b"]), ("background", ["c"]), ("six", ["d"])]:
        (split / folder).mkdir(parents=True)
        for n in names:
            cv2.imwrite(str(split / folder / f"{n}.jpg"), frame)
    (split / "six" / "e.jpg").write_bytes(b"")
    done = convert_class_folders([split], tmp_path / "out")
    assert (done.photos, done.dice) == (4, 3) and len(done.skipped) == 1
    assert "e.jpg: does not decode" in done.skipped[0]
    labels = tmp_path / "out" / "labels"
    assert parse_yolo((labels / "a.txt").read_text(), 64, 48) == [(3, (0.0, 0.0, 64.0, 48.0))]
    assert (labels / "c.txt").read_text() == "" and (labels / "d.txt").read_text()[0] == "5"
    # one die anywhere with its value: a sure 3 is exact, two dice are one too many
    one_three = parse_yolo((labels / "a.txt").read_text(), 64, 48)
    tally = Tally()
    tally.add("a", [Detection(3, (20, 10, 30, 20), 0.9)], one_three)
    tally.add("b", [Detection(3, (2, 2, 9, 9), 0.9), Detection(3, (40, 2, 49, 9), 0.9)], one_three)
    assert [v.trusted for v in tally.photos] == [True, False]
    assert tally.photos[1].extra_sure == 1
    (split / "dice 7").mkdir()
    with pytest.raises(ImageError, match="folder 'dice 7': expected a face value"):
        convert_class_folders([split], tmp_path / "again")


def test_die_crops_are_set_on_a_table_of_their_colour_and_boxed(tmp_path: Path) -> None:
    """A classification set of die crops (``margin`` px of table around each die) becomes photos
    8 times a crop's size, on the crop's border colour, each labelled with the die inside its
    margin; the reader then finds the sample die there and reads its value."""
    split = tmp_path / "crops" / "train"
    (split / "4").mkdir(parents=True)
    (split / "background").mkdir()
    photo = cv2.imread(str(SAMPLES / "scene-02-felt.jpg"))
    four = LABELS["scene-02-felt.jpg"][0]
    x0, y0, x1, y1 = (round(v) for v in four["box"])
    crop = photo[y0 - 12 : y1 + 12, x0 - 12 : x1 + 12]
    cv2.imwrite(str(split / "4" / "die.png"), crop)
    cv2.imwrite(str(split / "background" / "felt.png"), photo[:40, :40])
    done = convert_class_folders([split], tmp_path / "out", margin=12)
    assert (done.photos, done.dice, done.skipped) == (2, 1, [])
    image = cv2.imread(str(tmp_path / "out" / "images" / "die.png"))
    h, w = crop.shape[:2]
    assert image.shape[:2] == (8 * max(h, w),) * 2
    corner = np.median(np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]]), axis=0)
    assert np.abs(image[0, 0].astype(int) - corner).max() <= 1
    [(value, (bx0, by0, bx1, by1))] = parse_yolo(
        (tmp_path / "out" / "labels" / "die.txt").read_text(), image.shape[1], image.shape[0]
    )
    assert value == 4 and abs((bx1 - bx0) - (x1 - x0)) < 1 and abs((by1 - by0) - (y1 - y0)) < 1
    assert (tmp_path / "out" / "labels" / "felt.txt").read_text() == ""
    [die] = DiceReader().infer(image)
    cx, cy = die.centre()
    assert die.value == 4 and bx0 <= cx <= bx1 and by0 <= cy <= by1


def test_a_ground_truth_manifest_becomes_yolo_labels(tmp_path: Path) -> None:
    """SageMaker Ground Truth lines (boxes in pixels, class names in each line's class-map):
    converted to value - 1 YOLO lines; a photo with a die labelled unclear, one without labels,
    a line that is not JSON, a missing image and a box outside its photo are each named."""
    images = tmp_path / "images"
    images.mkdir()
    for n in ("a", "b", "c", "d", "web"):
        cv2.imwrite(str(images / f"IMG_{n}.jpg"), np.full((100, 200, 3), 90, np.uint8))
    meta = {"class-map": {"0": "one", "1": "two", "5": "six", "6": "unclear"}}

    def line(name: str, boxes: list[tuple[int, int, int, int, int]]) -> str:
        keys = ("class_id", "left", "top", "width", "height")
        ann = [dict(zip(keys, b, strict=True)) for b in boxes]
        doc = {"source-ref": f"s3://bucket/dice/{name}", "job": {"annotations": ann}}
        return json.dumps(doc | {"job-metadata": meta})

    manifest = tmp_path / "output.manifest"
    manifest.write_text(
        "\n".join(
            [
                line("IMG_a.jpg", [(5, 10, 20, 40, 40), (0, 150, 50, 20, 20)]),
                line("IMG_b.jpg", [(6, 10, 10, 30, 30)]),  # unclear
                line("IMG_c.jpg", []),
                "not json",
                line("IMG_gone.jpg", [(1, 10, 10, 10, 10)]),
                line("IMG_d.jpg", [(1, 180, 10, 40, 40)]),  # past the right edge
                line("web.jpg", [(1, 10, 10, 10, 10)]),  # not included
            ]
        )
    )
    done = convert_groundtruth(manifest, images, tmp_path / "out", include=("IMG_",))
    assert (done.photos, done.dice) == (1, 2)
    truth = parse_yolo((tmp_path / "out" / "labels" / "IMG_a.txt").read_text(), 200, 100)
    assert [v for v, _ in truth] == [6, 1]
    assert truth[0][1] == pytest.approx((10.0, 20.0, 50.0, 60.0), abs=0.01)
    reasons = "\n".join(done.skipped)
    assert len(done.skipped) == 5
    for expected in ("IMG_b.jpg: no labels, or a die labelled unclear", "IMG_c.jpg: no labels"):
        assert expected in reasons
    assert "line 4: expected a Ground Truth manifest line" in reasons
    assert "IMG_gone.jpg: missing" in reasons and "IMG_d.jpg: a box lies outside" in reasons


def test_photos_labelled_here_become_yolo_labels(tmp_path: Path) -> None:
    """A labels file of this project's own (pixel boxes, face values) beside a source's
    unlabelled photos: converted to value - 1 YOLO lines; a missing photo, one that does not
    decode and a box outside its photo are each named and skipped."""
    images = tmp_path / "myphotos"
    images.mkdir()
    for n in ("a", "b"):
        cv2.imwrite(str(images / f"{n}.jpg"), np.full((100, 200, 3), 90, np.uint8))
    (images / "broken.jpg").write_bytes(b"not a jpeg")
    labels = tmp_path / "labels.json"
    doc = {
        "a.jpg": [[6, 10, 20, 50, 60], [1, 150, 50, 170, 70]],
        "b.jpg": [[2, 180, 10, 220, 50]],  # past the right edge
        "gone.jpg": [[3, 1, 1, 9, 9]],
        "broken.jpg": [[3, 1, 1, 9, 9]],
    }
    labels.write_text(json.dumps(doc))
    done = convert_own_labels(labels, images, tmp_path / "out")
    assert (done.photos, done.dice) == (1, 2)
    truth = parse_yolo((tmp_path / "out" / "labels" / "a.txt").read_text(), 200, 100)
    assert [v for v, _ in truth] == [6, 1]
    assert truth[0][1] == pytest.approx((10.0, 20.0, 50.0, 60.0), abs=0.01)
    reasons = "\n".join(done.skipped)
    assert len(done.skipped) == 3 and "b.jpg: a box lies outside the 200x100 photo" in reasons
    assert "gone.jpg: missing or does not decode" in reasons
    assert "broken.jpg: missing or does not decode" in reasons


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json", "expected"),
        ("[]", "the top level is not an object"),
        ('{"a.jpg": [[7, 0, 0, 5, 5]]}', "face value 7 is not 1-6"),
        ('{"a.jpg": [[2.0, 0, 0, 5, 5]]}', "face value 2.0 is not 1-6"),
        ('{"a.jpg": [[2, 5, 0, 5, 5]]}', "is empty"),
        ('{"a.jpg": [[2, 0, 0, 5]]}', "expected"),
    ],
)
def test_a_labels_file_that_does_not_parse_is_refused_in_words(
    tmp_path: Path, text: str, says: str
) -> None:
    with pytest.raises(ImageError, match=says) as exc:
        parse_own_labels(text)
    assert "[face value 1-6, x0, y0, x1, y1]" in str(exc.value)
    (tmp_path / "labels.json").write_text(text)
    with pytest.raises(ImageError):
        convert_own_labels(tmp_path / "labels.json", tmp_path, tmp_path / "out")
    with pytest.raises(ImageError, match="cannot read the labels file"):
        convert_own_labels(tmp_path / "none.json", tmp_path, tmp_path / "out")


def test_the_labels_made_here_parse_and_name_each_face_alike() -> None:
    """The cream-carpet labels in the repository: 80 photos, 240 dice, 40 of each face (the
    author photographed each face alike), every box inside a 907 x 1209 photo."""
    source = next(s for s in fetch_data.SOURCES if s.name == "cream-carpet")
    truth = parse_own_labels((Path(fetch_data.__file__).parents[1] / source.labels).read_text())
    faces = [v for dice in truth.values() for v, _ in dice]
    assert len(truth) == 80 and [faces.count(f) for f in range(1, 7)] == [40] * 6
    boxes = [b for dice in truth.values() for _, b in dice]
    assert all(0 <= x0 < x1 <= 907 and 0 <= y0 < y1 <= 1209 for x0, y0, x1, y1 in boxes)


def test_calibrate_unsure_prints_the_grid_and_a_choice_made_on_the_other_sources(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    yolo_folder(tmp_path / "data" / "a")
    yolo_folder(tmp_path / "data" / "b")
    out = tmp_path / "grid.json"
    argv = [
        "--data",
        str(tmp_path / "data"),
        "--scores",
        "0.5",
        "--cuts",
        "0.9",
        "--candidates",
        "0.2",
        "--json",
        str(out),
    ]
    assert calibrate_unsure.main(argv) == 0
    printed = capsys.readouterr().out
    assert "| 0.4 | 0.7 | 0.8 | 0.000 / " in printed and "| 0.2 | 0.5 | 0.9 |" in printed
    doc = json.loads(out.read_text())
    pairs = {"0.5/0.8", "0.5/0.9", "0.7/0.8", "0.7/0.9"}
    assert set(doc["grid"]) == {f"{heat}/{pair}" for heat in ("0.2", "0.4") for pair in pairs}
    assert set(doc["chosen"]) == {"a", "b"} and doc["chosen"]["a"]["unflagged"] == 0.0
    assert set(doc["chosen"]["a"]) >= {"candidates", "score", "cut"}
    assert "- a: chosen on b: candidates " in printed


def test_voc_boxes_take_their_values_from_crops_found_in_the_photo(tmp_path: Path) -> None:
    """labelImg boxes say only "die"; each die's value comes from the crop of it in a class
    folder, found in the photo by template matching. A photo whose crop is not in it, or with
    a box no crop lands in, is left out and named."""
    rng = np.random.default_rng(0)
    photos, crops = tmp_path / "photos", tmp_path / "crops"
    photos.mkdir()
    boxes = {"p1": [(20, 30, 60, 70), (100, 40, 140, 80)], "p2": [(10, 10, 50, 50)]}
    for stem, stem_boxes in boxes.items():
        frame = rng.integers(0, 255, (120, 200, 3), dtype=np.uint8)
        cv2.imwrite(str(photos / f"{stem}.png"), frame)
        objects = "".join(
            f"<object><name>die</name><bndbox><xmin>{x0}</xmin><ymin>{y0}</ymin>"
            f"<xmax>{x1}</xmax><ymax>{y1}</ymax></bndbox></object>"
            for x0, y0, x1, y1 in stem_boxes
        )
        (photos / f"{stem}.xml").write_text(f"<annotation>{objects}</annotation>")
        for n, ((x0, y0, x1, y1), folder) in enumerate(
            zip(stem_boxes, ["five", "two"], strict=False)
        ):
            (crops / folder).mkdir(parents=True, exist_ok=True)
            cut = frame[
                y0 - 3 : y1 + 3, x0 - 8 : x1 + 8
            ]  # a wider cut than the box, as a detector's
            cv2.imwrite(str(crops / folder / f"{stem}-die-{n}.png"), cut)
    # p2's crop comes from another picture: not found in p2
    cv2.imwrite(
        str(crops / "five" / "p2-die-0.png"), rng.integers(0, 255, (46, 56, 3), dtype=np.uint8)
    )
    (photos / "p3.xml").write_text("<annotation>")
    done = convert_voc_with_crops([photos], crops, tmp_path / "out")
    assert (done.photos, done.dice) == (1, 2)
    truth = parse_yolo((tmp_path / "out" / "labels" / "p1.txt").read_text(), 200, 120)
    assert truth == [(5, (20.0, 30.0, 60.0, 70.0)), (2, (100.0, 40.0, 140.0, 80.0))]
    reasons = "\n".join(done.skipped)
    assert "p2.xml: crop p2-die-0.png is not found in the photo" in reasons
    assert "p3.xml: no image of that name" in reasons


def test_calibrate_unsure_reads_a_throw_knowing_its_count_when_asked(tmp_path: Path) -> None:
    folder = yolo_folder(tmp_path / "data" / "a")
    reader = DiceReader()
    asked: list[int | None] = []

    def infer(image: np.ndarray, expect: int | None = None) -> list[Detection]:
        asked.append(expect)
        return reader.infer(image, expect=expect)

    spy = SimpleNamespace(infer=infer, unsure_below=reader.unsure_below)
    plain = calibrate_unsure.read_source(spy, folder)  # type: ignore[arg-type]
    assert asked == [None] * len(plain)
    asked.clear()
    known = calibrate_unsure.read_source(spy, folder, count_known=True)  # type: ignore[arg-type]
    counts = [len(truth) for _, _, truth in known]
    assert asked == [n if 1 <= n <= 6 else None for n in counts] and any(asked)
    got = calibrate_unsure.figures(known, 0.8)
    assert got["slipped"] == 0 and got["unflagged"] == 0.0


def test_calibrate_unsure_keeps_the_doubt_of_a_count_exceeded_at_every_cut() -> None:
    # three dice read where two were thrown: the reader raised each one's own cut to 0.95
    # (doubt_surplus), so the extra die at 0.85 is a "?" whatever unsure cut is swept
    truth = [(5, (0.0, 0.0, 10.0, 10.0)), (2, (20.0, 0.0, 30.0, 10.0))]
    read = [
        Detection(5, (0, 0, 10, 10), 0.99),
        Detection(2, (20, 0, 30, 10), 0.9),
        Detection(4, (40, 0, 50, 10), 0.85),
    ]
    doubted = doubt_surplus(read, 2, 0.95)
    photo = ("p.jpg", calibrate_unsure.raised_cuts(doubted, 0.8), truth)
    for cut in (0.7, 0.8, 0.9):
        got = calibrate_unsure.figures([photo], cut)
        assert got["unflagged"] == 0.0 and got["unsure"] == pytest.approx(2 / 3, abs=1e-4), cut
    plain = ("p.jpg", calibrate_unsure.raised_cuts(read, 0.8), truth)  # not doubted: unflagged
    assert calibrate_unsure.figures([plain], 0.8)["unflagged"] == 1.0
