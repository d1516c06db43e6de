"""The second looks re-normalised on a table's own patches (AdaBN), a trial of test-time adaptation.

    python -m training.adapt_norm --model build/joined-folds/joined-wood-stone.onnx \\
        --known ../shared/dice-data --known ../dice-extra/catan-table \\
        --table ../dice-extra/wood-stone --half first build/adapt/wood-stone

Every convolution of the second looks was followed by batch normalisation in training, folded
into its weights on export, so its output channels are standardised on the training patches.
Patches of another table shift those statistics. Without labels, the patches the reader cuts on
one half of the table's photos (``--half``, the photos dealt to the halves in turn, as
``training.self_labels --turn-about`` does) stand in for the training ones: each convolution's
output, in graph order, is moved by an affine map per channel from its mean and spread on the
table's patches to those on the ``--known`` sources' patches (``--share`` of the way), the maps
of earlier convolutions already applied (Li et al. 2016, "Revisiting batch normalization for
practical domain adaptation"); with ``--depth N`` only each look's first N convolutions move.
The adapted file goes to ``OUT/adapted.onnx`` and the other half, with its own labels, to
``OUT/true-OTHER/all`` to be read by ``scorekeeper eval-reader`` (docs/reader-trials.md, "The
second looks re-normalised on the table's patches").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

from scorekeeper.errors import ImageError
from scorekeeper.vision import DiceReader, ReaderConfig
from scorekeeper.vision.evaluate import labelled_folders, list_labelled
from scorekeeper.vision.imageio import load_image
from scorekeeper.vision.onnx_model import PATCH_INPUT
from training.args import parse_count, parse_share
from training.self_labels import HALVES, lay_out, split_halves

LOOKS = ("/patch/", "/b/patch/")
"""Name prefixes of the second looks' nodes in a joined file (the fine-tuned look, the Lite0)."""
BATCH = 256
"""Patches run through the look at a time while taking statistics."""


def look_convs(model: onnx.ModelProto) -> list[onnx.NodeProto]:
    """The second looks' convolutions, in graph order."""
    return [n for n in model.graph.node if n.op_type == "Conv" and n.name.startswith(LOOKS)]


def look_layers(
    model: onnx.ModelProto, depth_limit: int | None = None
) -> list[list[onnx.NodeProto]]:
    """The looks' convolutions grouped by depth (the k-th of each look together; those of one
    depth do not feed each other), the first ``depth_limit`` depths or all."""
    convs = look_convs(model)
    depth: dict[int, list[onnx.NodeProto]] = {}
    for look in LOOKS:
        for k, conv in enumerate(c for c in convs if c.name.startswith(look)):
            if depth_limit is None or k < depth_limit:
                depth.setdefault(k, []).append(conv)
    return [depth[k] for k in sorted(depth)]


def check_float_looks(model: onnx.ModelProto, path: Path, depth_limit: int | None = None) -> None:
    """Refuse a file without second looks or whose looks' weights (of the first
    ``depth_limit`` convolutions, or all) are not plain float tensors.

    :raises ImageError: naming the file and what it needs.
    """
    layers = look_layers(model, depth_limit)
    inits = {i.name for i in model.graph.initializer}
    if not layers:
        raise ImageError(f"{path} has no second look to re-normalise")
    if any(c.input[1] not in inits for layer in layers for c in layer):
        raise ImageError(
            f"{path}: those convolutions of its looks are int8; give a float joined file"
            " (build/joined-*) or a smaller --depth"
        )


def table_patches(reader: DiceReader, photos: Iterable[Path]) -> np.ndarray:
    """Every patch the reader gives its second look while reading ``photos``, as read."""
    seen: list[np.ndarray] = []
    model = reader.model
    classify, classify_features = model.classify, model.classify_features

    def keep(patches: np.ndarray) -> np.ndarray:
        seen.append(patches.copy())
        return classify(patches)

    def keep_features(patches: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        seen.append(patches.copy())
        return classify_features(patches)

    vars(model).update(classify=keep, classify_features=keep_features)
    try:
        for photo in photos:
            reader.infer(load_image(photo))
    finally:
        del vars(model)["classify"], vars(model)["classify_features"]
    side = reader.patch_size
    return np.concatenate(seen) if seen else np.zeros((0, 3, side, side), np.float32)


def channel_stats(
    model: onnx.ModelProto, outputs: Sequence[str], patches: np.ndarray
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each output's mean and spread per channel over ``patches`` (all batches and positions)."""
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    names = {o.name for o in probe.graph.output}
    for name in outputs:
        if name not in names:
            probe.graph.output.append(onnx.helper.make_empty_tensor_value_info(name))
    sess = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name for i in sess.get_inputs()}
    sums: dict[str, np.ndarray] = {}
    squares: dict[str, np.ndarray] = {}
    counts: dict[str, int] = {}
    for start in range(0, len(patches), BATCH):
        batch = patches[start : start + BATCH]
        feed = {PATCH_INPUT: batch}
        if "image" in feeds:
            feed["image"] = np.zeros((1, 1, 16, 16), np.float32)
        got = sess.run(list(outputs), feed)
        for name, value in zip(outputs, got, strict=True):
            v = value.astype(np.float64)
            sums[name] = sums.get(name, 0) + v.sum(axis=(0, 2, 3))
            squares[name] = squares.get(name, 0) + (v * v).sum(axis=(0, 2, 3))
            counts[name] = counts.get(name, 0) + v.shape[0] * v.shape[2] * v.shape[3]
    stats = {}
    for name in outputs:
        mean = sums[name] / counts[name]
        spread = np.sqrt(np.maximum(squares[name] / counts[name] - mean * mean, 1e-10))
        stats[name] = (mean, spread)
    return stats


def adapt(
    model: onnx.ModelProto,
    known: np.ndarray,
    table: np.ndarray,
    share: float = 1.0,
    depth_limit: int | None = None,
) -> onnx.ModelProto:
    """``model`` with each look convolution's output (the first ``depth_limit`` of each look, or
    all) moved from its statistics on ``table``'s patches to those on ``known``'s, earlier
    convolutions' moves applied first."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    layers = look_layers(out, depth_limit)
    target = channel_stats(out, [c.output[0] for layer in layers for c in layer], known)
    inits = {i.name: i for i in out.graph.initializer}
    for layer in layers:
        here = channel_stats(out, [c.output[0] for c in layer], table)
        for conv in layer:
            mean_t, spread_t = here[conv.output[0]]
            mean_k, spread_k = target[conv.output[0]]
            mean_t = share * mean_t + (1 - share) * mean_k
            spread_t = share * spread_t + (1 - share) * spread_k
            scale = spread_k / spread_t
            shift = mean_k - scale * mean_t
            weight = numpy_helper.to_array(inits[conv.input[1]]).astype(np.float64)
            inits[conv.input[1]].CopyFrom(
                numpy_helper.from_array(
                    (weight * scale.reshape(-1, *[1] * (weight.ndim - 1))).astype(np.float32),
                    conv.input[1],
                )
            )
            if len(conv.input) > 2 and conv.input[2]:
                bias = numpy_helper.to_array(inits[conv.input[2]]).astype(np.float64)
                inits[conv.input[2]].CopyFrom(
                    numpy_helper.from_array(
                        (bias * scale + shift).astype(np.float32), conv.input[2]
                    )
                )
            else:
                name = conv.name + "/adapted_bias"
                out.graph.initializer.append(
                    numpy_helper.from_array(shift.astype(np.float32), name)
                )
                if len(conv.input) == 2:
                    conv.input.append(name)
                else:
                    conv.input[2] = name
    return out


def photos_of(folders: Sequence[Path], per_source: int) -> list[Path]:
    """Up to ``per_source`` photos of each folder's labelled photos, evenly spread by name."""
    chosen: list[Path] = []
    for root in folders:
        photos = sorted(
            (img for f in labelled_folders(root) for img, _ in list_labelled(f)),
            key=lambda p: p.name,
        )
        step = max(1, len(photos) // per_source)
        chosen += photos[::step][:per_source]
    return chosen


def main(argv: list[str] | None = None) -> int:
    """Write the adapted file and the other half; print the patch counts as JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--model", type=Path, required=True, help="a joined file (float, or int8 with --depth 1)"
    )
    ap.add_argument(
        "--known", type=Path, action="append", required=True, help="a source trained on"
    )
    ap.add_argument(
        "--per-source", type=parse_count, default=60, help="photos read of each --known source"
    )
    ap.add_argument("--table", type=Path, required=True, help="the source left out")
    ap.add_argument("--half", choices=HALVES, required=True, help="the half adapted on")
    ap.add_argument("--share", type=parse_share, default=1.0, help="how far to move the statistics")
    ap.add_argument(
        "--depth", type=parse_count, help="adapt only each look's first DEPTH convolutions"
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("out", type=Path)
    args = ap.parse_args(argv)
    try:
        reader = DiceReader(args.model, ReaderConfig(threads=args.threads))
        model = onnx.load(str(args.model))
        check_float_looks(model, args.model, args.depth)
        halves = split_halves(args.table, turn_about=True)
        known = table_patches(reader, photos_of(args.known, args.per_source))
        table = table_patches(reader, [img for img, _ in halves[args.half]])
        if not len(known) or not len(table):
            raise ImageError("no candidate found on the --known photos or the table's half")
    except (ImageError, ValueError) as err:
        print(f"adapt_norm: {err}", file=sys.stderr)
        return 2
    adapted = adapt(model, known, table, args.share, args.depth)
    args.out.mkdir(parents=True, exist_ok=True)
    onnx.save(adapted, str(args.out / "adapted.onnx"))
    other = HALVES[1 - HALVES.index(args.half)]
    lay_out(halves[other], args.out / f"true-{other}" / "all")
    print(json.dumps({"known_patches": len(known), "table_patches": len(table)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
