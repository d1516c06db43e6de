"""The shipped model's two second looks in one file (``training.ensemble``): how it reads, how it
is taught a table's dice, and the command that joins two models."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path, load_image
from scorekeeper.vision.adapt import AdaptConfig
from scorekeeper.vision.reader import teach_crop

ROOT = Path(__file__).resolve().parents[1]
SCENES = ROOT / "sample_images"
sys.path.insert(0, str(ROOT))

from training.ensemble import join_second_looks  # noqa: E402
from training.ensemble import main as ensemble  # noqa: E402
from training.sets import BASE_MODEL  # noqa: E402


def test_a_joined_model_reads_as_its_looks_and_is_taught_on_its_first(tmp_path: Path) -> None:
    # the shipped file joins two second looks (training.ensemble); the base joined with itself
    # at half weight averages two equal log-probabilities, so it reads just as the base does
    # (with no die read again turned half round and no wider look, as the base reads)
    joined = tmp_path / "joined.onnx"
    join_second_looks(
        BASE_MODEL,
        BASE_MODEL,
        joined,
        weight=0.5,
        relook_face_below=0.0,
        rescue_scale=0.0,
        colour_above=0.0,
    )
    base = DiceReader(BASE_MODEL, ReaderConfig(threads=1))
    both = DiceReader(joined, ReaderConfig(threads=1))
    frames = [load_image(p) for p in sorted(SCENES.glob("scene-*.jpg"))]
    read = [both.infer(f) for f in frames]
    for dice, frame in zip(read, frames, strict=True):
        alone = base.infer(frame)
        assert [(d.value, d.box) for d in dice] == [(d.value, d.box) for d in alone]
        sure = [d.confidence for d in alone]
        assert [d.confidence for d in dice] == pytest.approx(sure, abs=1e-4)
    # taught on the first look's features: told each die shows one pip more, it reads so
    crops = [teach_crop(f, d.box) for f, dice in zip(frames, read, strict=True) for d in dice]
    wrong = [d.value % 6 + 1 for dice in read for d in dice]
    both.teach(crops, wrong, AdaptConfig(weight=3.0, top=1))
    moved = [sorted(both.infer(f), key=lambda d: d.box) for f in frames]
    ordered = [sorted(dice, key=lambda d: d.box) for dice in read]
    assert [[d.value for d in x] for x in moved] == [[d.value % 6 + 1 for d in x] for x in ordered]
    with pytest.raises(ValueError, match="joined already"):
        join_second_looks(joined, BASE_MODEL, tmp_path / "again.onnx")


def _patch_log_probs(model: Path, patches: object) -> object:
    import numpy as np
    import onnxruntime as ort

    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    image = np.zeros((1, 1, 64, 64), np.float32)
    logits = session.run(["patch_logits"], {"image": image, "patches": patches})[0]
    return logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))


def test_more_looks_and_the_probability_mix_join_as_their_weights_say(tmp_path: Path) -> None:
    import numpy as np
    import onnx

    patches = np.random.default_rng(0).random((6, 3, 48, 48), np.float32)
    alone = _patch_log_probs(BASE_MODEL, patches)
    three, mixed = tmp_path / "three.onnx", tmp_path / "mixed.onnx"
    # three copies of one look, the first at 0.5 and the others at 0.25 each: one reading
    join_second_looks(BASE_MODEL, BASE_MODEL, three, weight=0.5, more=[BASE_MODEL])
    assert _patch_log_probs(three, patches) == pytest.approx(alone, abs=1e-4)
    props = {p.key: p.value for p in onnx.load(str(three)).metadata_props}
    assert props["joined_second_look"] == "dice-base.onnx at 0.25, dice-base.onnx at 0.25"
    # the mean of two equal distributions is that distribution, whichever mean
    join_second_looks(BASE_MODEL, BASE_MODEL, mixed, mix="prob")
    assert _patch_log_probs(mixed, patches) == pytest.approx(alone, abs=1e-4)
    assert {p.key: p.value for p in onnx.load(str(mixed)).metadata_props}["joined_mix"] == "prob"
    with pytest.raises(ValueError, match="mix must be one of log, prob"):
        join_second_looks(BASE_MODEL, BASE_MODEL, mixed, mix="max")


def test_the_shipped_file_is_the_base_joined_with_a_second_look() -> None:
    import onnx

    model = onnx.load(str(default_model_path()))
    props = {p.key: p.value for p in model.metadata_props}
    assert "joined_second_look" in props and props["extra_sources"].count(",") >= 4
    assert float(props["relook_face_below"]) == 0.99
    assert DiceReader(default_model_path()).relook_face_below == 0.99
    assert DiceReader(BASE_MODEL).relook_face_below == 0.0
    assert float(props["rescue_scale"]) == 1.6
    assert DiceReader(default_model_path()).rescue_scale == 1.6
    assert DiceReader(BASE_MODEL).rescue_scale == 0.0
    assert float(props["colour_above"]) == 0.3
    assert DiceReader(default_model_path()).colour_above == 0.3
    assert DiceReader(BASE_MODEL).colour_above == 0.0
    assert BASE_MODEL.is_file() and default_model_path() != BASE_MODEL
    assert default_model_path().stat().st_size <= 10_000_000  # issue 26: a file of 10 MB at most


def test_join_command_writes_the_model_and_refuses_bad_input_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "joined.onnx"
    assert ensemble(["--join", str(BASE_MODEL), str(BASE_MODEL), "--out", str(out)]) == 0
    joined = DiceReader(out, ReaderConfig(threads=1))
    assert joined.infer(load_image(SCENES / "scene-01-wood.jpg"))
    assert joined.relook_face_below == 0.99  # the joined file's own, from its metadata
    assert DiceReader(out, ReaderConfig(relook_face_below=0.5)).relook_face_below == 0.5
    assert joined.rescue_scale == 1.6
    assert DiceReader(out, ReaderConfig(rescue_scale=0.0)).rescue_scale == 0.0
    assert joined.colour_above == 0.3
    assert DiceReader(out, ReaderConfig(colour_above=0.0)).colour_above == 0.0
    junk = tmp_path / "junk.onnx"
    junk.write_text("not a model")
    base, again = str(BASE_MODEL), str(tmp_path / "again.onnx")
    for argv, words in [
        (["--join", base, base], "needs --out"),
        (["--join", base, "--out", again], "two models or more"),
        (["--join", str(tmp_path / "none.onnx"), base, "--out", again], "no model"),
        (["--join", str(junk), base, "--out", again], "not an ONNX model"),
        (["--join", base, base, "--out", again, "--weight", "2"], "[0, 1]"),
        (["--join", base, base, "--out", again, "--relook-face-below", "1"], "from 0 up to 1"),
        (["--join", base, base, "--out", again, "--rescue-scale", "0.8"], "over 1 up to 3"),
        (["--join", base, base, "--out", again, "--colour-above", "2"], "from 0 (none) up to 1"),
        (["--join", str(out), base, "--out", again], "joined already"),
    ]:
        capsys.readouterr()
        assert ensemble(argv) == 2, argv
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, err
    with pytest.raises(SystemExit) as exit_:
        ensemble(["--join", base, base, "--out", again, "--mix", "max"])
    assert exit_.value.code == 2 and "invalid choice: 'max'" in capsys.readouterr().err


def test_eval_sources_marks_the_sources_a_model_trained_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.test_vision_cli import yolo_folder
    from training.eval_sources import main as eval_sources

    yolo_folder(tmp_path / "data" / "wood-stone" / "all")
    yolo_folder(tmp_path / "data" / "elsewhere" / "all")
    shared = tmp_path / "shared"
    yolo_folder(shared / "webcam-table" / "Valid")
    yolo_folder(shared / "dice-tray" / "train")
    argv = ["--data", str(tmp_path / "data"), "--shared", str(shared)]
    assert eval_sources(argv) == 0  # the shipped file: trained on wood-stone, not "elsewhere"
    table = capsys.readouterr().out
    assert "| wood-stone/all (trained on) |" in table
    assert "| elsewhere/all (never trained on) |" in table
    assert eval_sources([*argv, "--model", str(BASE_MODEL)]) == 0
    assert "| wood-stone/all (never trained on) |" in capsys.readouterr().out
    assert eval_sources([*argv, "--model", str(tmp_path / "none.onnx")]) == 2
    assert "no dice model at" in capsys.readouterr().err


@pytest.mark.parametrize("features", [False, True])
def test_each_head_runs_alone_and_gives_what_the_whole_graph_gives(features: bool) -> None:
    # DiceModel runs the detector and the second look each in a session of its own; the whole
    # graph, fed both inputs, must give the same numbers to the last bit
    import numpy as np
    import onnxruntime as ort

    from scorekeeper.vision.features import with_feature_output
    from scorekeeper.vision.onnx_model import DiceModel

    path = default_model_path()
    model = DiceModel(path, 1, features=features)
    graph = with_feature_output(path, "patch_logits") if features else str(path)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    whole = ort.InferenceSession(graph, opts, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(3)
    image = rng.random((1, 1, 96, 128), dtype=np.float32)
    patches = rng.random((5, 3, model.patch_size, model.patch_size), dtype=np.float32)
    names = ["heat", "value", "size", "patch_logits"] + (["patch_features"] if features else [])
    heat, values, sizes, logits, *feats = whole.run(names, {"image": image, "patches": patches})
    got = model.detect(image)
    assert all(
        np.array_equal(a, b) for a, b in zip(got, (heat[0, 0], values[0], sizes[0]), strict=True)
    )
    assert np.array_equal(model.classify(patches), logits)
    if features:
        assert np.array_equal(model.classify_features(patches)[1], feats[0].reshape(5, -1))


def test_a_detector_alone_reads_and_refuses_a_second_look_in_words(tmp_path: Path) -> None:
    import numpy as np
    import onnx
    from onnx.utils import Extractor

    from scorekeeper.errors import ImageError

    alone = tmp_path / "detector.onnx"
    graph = Extractor(onnx.load(str(default_model_path())))
    onnx.save(graph.extract_model(["image"], ["heat", "value", "size"]), str(alone))
    reader = DiceReader(alone, ReaderConfig(threads=1))
    both = DiceReader(default_model_path(), ReaderConfig(threads=1))
    frame = load_image(sorted(SCENES.glob("scene-*.jpg"))[2])
    assert not reader.two_stage and both.two_stage
    assert sorted(d.value for d in reader.infer(frame)) == sorted(
        d.value for d in both.infer(frame)
    )
    with pytest.raises(ImageError, match="has no second-look head"):
        reader.model.classify(np.zeros((1, 3, 48, 48), np.float32))
