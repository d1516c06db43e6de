"""Teaching the camera a table's dice: the crop store, the prototypes and the reader with them."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import numpy as np
import pytest

from scorekeeper.camera.teach_store import TeachStore, teach_dir_for
from scorekeeper.errors import ImageError, TeachStoreError
from scorekeeper.vision import DiceReader, load_image
from scorekeeper.vision.adapt import AdaptConfig, FacePrototypes
from scorekeeper.vision.detection import UNSURE_BELOW, Detection
from scorekeeper.vision.reader import TEACH_CROP_SIDE, teach_crop

SCENES = Path(__file__).resolve().parents[1] / "sample_images"


def crop(shade: int) -> np.ndarray:
    """A 96 x 96 crop of noise (PNG does not squeeze it), told apart by ``shade``."""
    rng = np.random.default_rng(shade)
    return rng.integers(0, 256, (96, 96, 3), dtype=np.uint8)


def test_store_keeps_labels_in_order_and_reads_them_back(tmp_path: Path) -> None:
    store = TeachStore(tmp_path / "t")
    assert store.stats()["crops"] == 0 and store.load() == ([], [])
    assert store.add([(crop(1), 3), (crop(2), 0)]) == 2
    store.add([(crop(3), 6)])
    images, labels = store.load()
    assert labels == [3, 0, 6]
    assert np.array_equal(images[0], crop(1))
    st = store.stats()
    assert st["crops"] == 3 and st["faces"]["3"] == 1 and st["not_dice"] == 1
    assert st["bytes"] == sum(p.stat().st_size for p in (tmp_path / "t").iterdir())


def test_store_drops_the_oldest_beyond_its_count_and_bytes(tmp_path: Path) -> None:
    store = TeachStore(tmp_path, max_count=4)
    for i in range(7):
        store.add([(crop(i), 1 + i % 6)])
    assert store.load()[1] == [4, 5, 6, 1]
    size = store.crops()[0].size
    small = TeachStore(tmp_path / "b", max_bytes=int(size * 2.5))
    for i in range(5):
        small.add([(crop(i), 2)])
    assert len(small.crops()) == 2 and small.stats()["bytes"] <= int(size * 2.5)
    assert [c.seq for c in small.crops()] == [4, 5]


def test_store_bad_labels_and_crops_are_refused_in_words(tmp_path: Path) -> None:
    store = TeachStore(tmp_path)
    with pytest.raises(ValueError, match=r"0 \(not a die\) or a face 1\.\.6"):
        store.add([(crop(1), 7)])
    with pytest.raises(ValueError, match="uint8 image"):
        store.add([(np.zeros((4, 4), np.float32), 1)])
    assert store.crops() == []


def test_store_write_is_atomic_and_a_crash_leaves_no_half_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = TeachStore(tmp_path)
    store.add([(crop(1), 2)])
    real_replace = os.replace

    def crash(src: str, dst: str) -> None:
        raise OSError(errno.EIO, "I/O error (the machine lost power)")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(TeachStoreError, match="Play goes on"):
        store.add([(crop(2), 5)])
    monkeypatch.setattr(os, "replace", real_replace)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["00000001-2.png"]
    # a temporary file left by a real crash (the process killed mid-write) is never read, and
    # the store removes it when it opens
    (tmp_path / "00000002-5.png.part").write_bytes(b"\x89PNG half")
    assert [c.label for c in TeachStore(tmp_path).crops()] == [2]
    assert not (tmp_path / "00000002-5.png.part").exists()


def test_full_disk_gives_words_and_keeps_what_was_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = TeachStore(tmp_path)
    store.add([(crop(1), 4)])

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(TeachStoreError, match=r"the disk is full.*Play goes on") as err:
        store.add([(crop(2), 1), (crop(3), 1)])
    assert isinstance(err.value, ValueError)
    assert [p.name for p in tmp_path.iterdir()] == ["00000001-4.png"]


def test_clear_removes_every_crop(tmp_path: Path) -> None:
    store = TeachStore(tmp_path)
    store.add([(crop(i), 1) for i in range(3)])
    (tmp_path / "notes.txt").write_text("not a crop")
    assert store.clear() == 3
    assert store.crops() == [] and (tmp_path / "notes.txt").exists()
    assert teach_dir_for(tmp_path / "games.sqlite3") == tmp_path / "games-teach"


def test_prototypes_score_the_nearest_examples_and_fill_untaught_labels() -> None:
    feats = np.array([[1.0, 0, 0], [0.9, 0.1, 0], [0, 1.0, 0]])
    fp = FacePrototypes(feats, np.array([2, 2, 5]), AdaptConfig(top=1))
    assert fp.taught == [2, 5] and len(fp) == 3
    s = fp.scores(np.array([[0.0, 1.0, 0.0]]))[0]
    assert s[5] == pytest.approx(1.0) and s[2] < 0.2 and s[1] == s[2]
    with pytest.raises(ImageError, match=r"0 \(not a die\) or a face"):
        FacePrototypes(feats, np.array([2, 2, 9]))
    with pytest.raises(ImageError, match="3 feature rows for 2 labels"):
        FacePrototypes(feats, np.array([2, 2]))


def test_prototypes_overrule_or_flag_the_network() -> None:
    dice = [Detection(3, (0, 0, 10, 10), 0.95)]
    logits = np.log(np.array([[0.02, 0.01, 0.01, 0.92, 0.02, 0.01, 0.01]]))
    feats = np.array([[0.0, 1.0]])
    taught = (np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([4, 3]))  # it looks like a 4
    flag = FacePrototypes(*taught, AdaptConfig(weight=0.0))
    (d,) = flag.adjust(dice, logits, feats, 0.7)
    assert d.value == 3 and d.confidence < UNSURE_BELOW
    strong = FacePrototypes(*taught, AdaptConfig(weight=1.0))
    assert strong.adjust(dice, logits, feats, 0.7)[0].value == 4
    quiet = FacePrototypes(*taught, AdaptConfig(weight=0.0, mark_disagreement=False))
    assert quiet.adjust(dice, logits, feats, 0.7) == dice  # marks only, and no mark: as read
    assert flag.adjust(dice, None, feats, 0.7)[0].unsure  # marks need no readings
    with pytest.raises(ImageError, match="needs the network's readings"):
        strong.adjust(dice, None, feats, 0.7)
    lighter = FacePrototypes(*taught, AdaptConfig(weight=1e-9, mark_disagreement=False))
    assert lighter.adjust(dice, logits, feats, 0.7)[0].confidence == pytest.approx(0.92, abs=1e-6)
    not_die = FacePrototypes(taught[0], np.array([0, 3]), AdaptConfig(weight=1.0))
    assert not_die.adjust(dice, logits, feats, 0.7) == []


def test_only_a_die_of_a_taught_face_is_marked_for_disagreeing() -> None:
    logits = np.log(np.array([[0.02, 0.01, 0.01, 0.92, 0.02, 0.01, 0.01]]))
    dice, feats = [Detection(3, (0, 0, 10, 10), 0.92)], np.array([[0.0, 1.0]])
    only_fours = FacePrototypes(np.array([[0.0, 1.0]]), np.array([4]), AdaptConfig(weight=0.0))
    assert not only_fours.adjust(dice, logits, feats, 0.7)[0].unsure  # 3s were never taught
    both = FacePrototypes(
        np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([4, 3]), AdaptConfig(weight=0.0)
    )
    assert both.adjust(dice, logits, feats, 0.7)[0].unsure
    # a die that looks like a thing the table said is not a die (a token it removed)
    token = FacePrototypes(
        np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([0, 3]), AdaptConfig(weight=0.0)
    )
    (d,) = token.adjust(dice, logits, feats, 0.7)
    assert d.unsure and d.value == 3 and d.box == dice[0].box  # marked, kept, as read


def test_keeping_the_reading_changes_only_how_sure_a_die_is() -> None:
    logits = np.log(np.array([[0.1, 0.01, 0.01, 0.7, 0.16, 0.01, 0.01]]))
    dice, feats = [Detection(3, (0, 0, 10, 10), 0.7)], np.array([[0.0, 1.0]])
    keep = AdaptConfig(weight=1.0, keep_reading=True, mark_disagreement=False)
    like_a_3 = FacePrototypes(np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([3, 4]), keep)
    (d,) = like_a_3.adjust(dice, logits, feats, 0.95)  # never dropped, whatever the threshold
    assert d.value == 3 and 0.8 < d.confidence <= 0.9  # surer, never above the die probability
    like_a_4 = FacePrototypes(np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([4, 3]), keep)
    (d,) = like_a_4.adjust(dice, logits, feats, 0.7)
    assert d.value == 3 and d.unsure  # the combined reading says 4: the 3 is marked, not changed
    not_a_die = FacePrototypes(np.array([[0.0, 1.0]]), np.array([0]), keep)
    assert not_a_die.adjust(dice, logits, feats, 0.7)[0].value == 3


def test_reader_taught_its_own_crops_reads_with_them() -> None:
    reader = DiceReader()
    frames = [load_image(p) for p in sorted(SCENES.glob("scene-*.jpg"))]
    before = [reader.infer(f) for f in frames]
    crops = [teach_crop(f, d.box) for f, dice in zip(frames, before, strict=True) for d in dice]
    assert len(crops) >= 12 and crops[0].shape == (TEACH_CROP_SIDE, TEACH_CROP_SIDE, 3)
    # taught that every one of those dice shows one more pip than the network reads
    values = [d.value for dice in before for d in dice]
    assert len(set(values)) == 6
    wrong = [v % 6 + 1 for v in values]

    def read_all() -> list[list[Detection]]:
        return [sorted(reader.infer(f), key=lambda d: d.box) for f in frames]

    ordered = [sorted(dice, key=lambda d: d.box) for dice in before]
    reader.teach(crops, wrong, AdaptConfig(weight=0.0, top=1))
    flagged = read_all()
    assert [[d.value for d in x] for x in flagged] == [[d.value for d in x] for x in ordered]
    assert all(d.unsure for x in flagged for d in x)
    reader.teach(crops, wrong, AdaptConfig(weight=3.0, top=1))
    moved = read_all()
    assert [[d.value for d in x] for x in moved] == [[d.value % 6 + 1 for d in x] for x in ordered]
    reader.teach([], [])
    assert reader.prototypes is None
    assert read_all() == ordered


def test_cli_lists_and_clears_the_taught_dice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from scorekeeper.cli import main

    db = tmp_path / "games.sqlite3"
    TeachStore(teach_dir_for(db)).add([(crop(1), 2), (crop(2), 2), (crop(3), 0)])
    assert main(["camera-teach", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "3 crops" in out and "2s: 2" in out and "not dice: 1" in out
    assert main(["camera-teach", "--db", str(db), "--list", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["crops"] == 3 and [c["label"] for c in doc["list"]] == [2, 2, 0]
    assert main(["camera-teach", "--db", str(db), "--clear"]) == 0
    assert "forgot 3 taught dice" in capsys.readouterr().out
    assert TeachStore(teach_dir_for(db)).crops() == []


def test_cli_bad_input_exits_2_with_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from scorekeeper.cli import main

    a_file = tmp_path / "x.txt"
    a_file.write_text("")
    assert main(["camera-teach", "--dir", str(a_file)]) == 2
    assert "is not a folder; --dir names the teach folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["camera-teach", "--list", "--clear"])
    assert exc.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_the_simulation_prints_taught_against_untaught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_vision_cli import yolo_folder

    from training.eval_teach import main as eval_teach

    yolo_folder(tmp_path / "data" / "scenes" / "all")
    assert eval_teach(["--data", str(tmp_path / "data"), "--k", "1,3", "--draws", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()[2:]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    assert [(r[1], r[3]) for r in rows[:4]] == [
        ("1", "untaught"),
        ("1", "prototypes"),
        ("1", "prototypes, no marks"),
        ("1", "marks only"),
    ]
    untaught = [float(x) for x in rows[0][4:8]]
    assert untaught[2] == 1.0  # the sample scenes read right untaught: value accuracy 1
    assert all(0.0 <= float(x) <= 1.0 for r in rows for x in r[4:])
    assert eval_teach(["--data", str(tmp_path / "nowhere")]) == 2
    assert "eval_teach: error:" in capsys.readouterr().err
