"""The shipped model's two second looks in one file (``training.ensemble``): how it reads, how it
is taught a table's dice, and the command that joins two models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path, load_image
from scorekeeper.vision.adapt import AdaptConfig
from scorekeeper.vision.reader import teach_crop

ROOT = Path(__file__).resolve().parents[1]
SCENES = ROOT / "sample_images"

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
    import onnx
    import onnxruntime as ort

    from scorekeeper.vision.features import add_feature_output
    from scorekeeper.vision.onnx_model import DiceModel

    path = default_model_path()
    model = DiceModel(path, 1, features=features)
    proto = onnx.load(str(path))
    if features:
        add_feature_output(proto, "patch_logits", path)
    graph = proto.SerializeToString()
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


def test_a_detector_of_fixed_size_is_read_at_its_size_and_a_wrong_one_refused(
    tmp_path: Path,
) -> None:
    # the inputs, outputs and fixed size come from the file's graph, not from a session
    import onnx
    from onnx.utils import Extractor

    from scorekeeper.errors import ImageError

    base = Extractor(onnx.load(str(default_model_path())))

    def detector(name: str, dims: list[int | str], outputs: list[str]) -> Path:
        proto = base.extract_model(["image"], outputs)
        shape = proto.graph.input[0].type.tensor_type.shape
        del shape.dim[:]
        for d in dims:
            dim = shape.dim.add()
            if isinstance(d, int):
                dim.dim_value = d
            else:
                dim.dim_param = d
        path = tmp_path / name
        onnx.save(proto, str(path))
        return path

    maps = ["heat", "value", "size"]
    fixed = DiceReader(detector("fixed.onnx", [1, 1, 384, 512], maps), ReaderConfig(threads=1))
    assert fixed.model.fixed_side == 512 and fixed.long_side == 512
    assert fixed.coarse_side is None  # a fixed input is read at its one size
    frame = load_image(sorted(SCENES.glob("scene-*.jpg"))[2])
    assert fixed.look_sides(frame) == [512] and fixed.infer(frame)
    varying = DiceReader(detector("any.onnx", ["n", 1, "h", "w"], maps), ReaderConfig(threads=1))
    assert varying.model.fixed_side is None
    with pytest.raises(ImageError, match=r"expected an \(N, 1, H, W\) 'image' input"):
        DiceReader(detector("flat.onnx", [1, "h", "w"], maps))
    with pytest.raises(ImageError, match=r"lacks outputs \['size'\]"):
        DiceReader(detector("no-size.onnx", [1, 1, "h", "w"], maps[:2]))


def _float_look(path: Path) -> None:
    """A tiny float second look (one convolution, a mean, a linear layer) as a model file."""
    import numpy as np
    import onnx
    from onnx import helper

    rng = np.random.default_rng(0)
    weights = {
        "w": rng.normal(0, 0.3, (4, 3, 3, 3)),
        "b": rng.normal(0, 0.1, 4),
        "g": rng.normal(0, 0.5, (7, 4)),
        "h": rng.normal(0, 0.1, 7),
    }
    nodes = [
        helper.make_node(
            "Conv", ["patches", "w", "b"], ["c"], name="/patch/conv/Conv", pads=[1] * 4
        ),
        helper.make_node("Relu", ["c"], ["r"], name="/patch/relu/Relu"),
        helper.make_node(
            "ReduceMean", ["r"], ["m"], name="/patch/ReduceMean", axes=[2, 3], keepdims=0
        ),
        helper.make_node(
            "Gemm", ["m", "g", "h"], ["patch_logits"], name="/patch/head/Gemm", transB=1
        ),
    ]
    onnx.save(look_model(nodes, weights), str(path))


def look_model(nodes: list[Any], weights: dict[str, Any], side: int = 48) -> Any:
    """A float second look of ``nodes`` and ``weights``, from ``patches`` to ``patch_logits``."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        nodes,
        "look",
        [helper.make_tensor_value_info("patches", TensorProto.FLOAT, ["n", 3, side, side])],
        [helper.make_tensor_value_info("patch_logits", TensorProto.FLOAT, ["n", 7])],
        [numpy_helper.from_array(a.astype(np.float32), k) for k, a in weights.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_only_a_joined_files_float_look_is_quantized(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # make model-joined quantizes the joined file's Lite0 look (its /b/patch/ nodes) and leaves
    # the rest, int8 already, as it is; the shipped file has no float look left to try it on
    import numpy as np
    import onnx
    from onnx import numpy_helper

    from training.quantize import main as quantize

    look, joined, out = tmp_path / "look.onnx", tmp_path / "joined.onnx", tmp_path / "int8.onnx"
    _float_look(look)
    join_second_looks(BASE_MODEL, look, joined)
    data = tmp_path / "data"
    for folder in ("webcam-table/Train", "dice-tray/train"):
        for part in ("images", "labels"):
            (data / folder / part).mkdir(parents=True)
        for scene in sorted(SCENES.glob("scene-*.jpg"))[:5]:
            (data / folder / "images" / scene.name).write_bytes(scene.read_bytes())
            (data / folder / "labels" / f"{scene.stem}.txt").write_text("")
    args = ["--model", str(joined), "--data", str(data), "--only", "/b/patch/", "--per-channel"]
    args += ["--keep", "/b/patch/conv/"]  # its first convolution stays float, as Lite0's does
    assert quantize([*args, "--out", str(out)]) == 0
    before, after = onnx.load(str(joined)).graph, onnx.load(str(out)).graph
    quantized = {n.name for n in after.node if n.op_type == "QuantizeLinear"}
    added = quantized - {n.name for n in before.node}
    assert added and all(name.startswith("b/") for name in added)
    untouched = {i.name: numpy_helper.to_array(i) for i in before.initializer if i.name[:2] != "b/"}
    kept = {i.name: numpy_helper.to_array(i) for i in after.initializer}
    assert all(np.array_equal(kept[name], a) for name, a in untouched.items())
    read = {i for n in after.node for i in n.input}
    assert all(i.name in read for i in after.initializer)  # nothing left for onnxruntime to drop
    frame = load_image(sorted(SCENES.glob("scene-*.jpg"))[0])
    boxes = [(100.0, 80.0, 140.0, 120.0), (10.0, 10.0, 60.0, 60.0)]
    float_reader, int8_reader = (DiceReader(m, ReaderConfig(threads=1)) for m in (joined, out))
    want = float_reader.patch_logits(frame, boxes)
    assert np.allclose(int8_reader.patch_logits(frame, boxes), want, atol=0.1)
    with pytest.raises(SystemExit) as refused:  # quantized there already, or nothing there
        quantize([*args[2:], "--model", str(out), "--out", str(tmp_path / "again.onnx")])
    assert refused.value.code == 2 and "under /b/patch/ already" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        quantize(["--model", str(joined), "--only", "/c/", "--out", str(tmp_path / "c.onnx")])
    assert "no node" in capsys.readouterr().err
