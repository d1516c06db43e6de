"""Two second looks or more as one: a two-stage model whose patch logits are the weighted mean
of the models' log-probabilities (the first model's detector and thresholds).

    python -m training.ensemble --folds build/loso-c-s0 --folds build/loso-lite-1500-s0 \
        [--sources wood-stone,catan-table,casino-felt] [--weight 0.5] [--work build/ensemble]

For each source, the ``fold-SOURCE.onnx`` of each folder (each trained without that source,
``training.loso``) are joined and the pair reads the whole source, as read and with the count
known; one Markdown table per source is printed. Two models made the same way on every source
are joined into the shipped file (``make model-joined``):

    python -m training.ensemble --join build/dice-sources.onnx build/lite0-final.onnx \
        --out models/dice.onnx
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scorekeeper.vision.config import MAX_RESCUE_SCALE, is_from_0_to_1, is_rescue_scale
from scorekeeper.vision.evaluate import figures_table
from scorekeeper.vision.features import JOINED_FIRST_LOGITS
from training.eval_sources import DEFAULT_EXTRA, TRAINED_ON, sources_in


def _upstream(graph: Any, output: str) -> list[Any]:
    """The nodes ``output`` depends on, in the graph's order."""
    producer = {o: n for n in graph.node for o in n.output}
    needed: set[int] = set()
    stack, seen = [output], set()
    while stack:
        name = stack.pop()
        if name in seen or name not in producer:
            continue
        seen.add(name)
        node = producer[name]
        needed.add(id(node))
        stack.extend(node.input)
    return [n for n in graph.node if id(n) in needed]


RELOOK_FACE_BELOW = 0.99
"""The joined file's ``relook_face_below``: its dice, read at about 0.96 to 0.99 for the two
looks' averaged log-probabilities, are each read again turned half round."""

RESCUE_SCALE = 1.6
"""The joined file's ``rescue_scale``: a candidate its second look turns down is read again in a
patch 1.6 times as wide (the detector draws some dice's boxes too small)."""

COLOUR_ABOVE = 0.3
"""The joined file's ``colour_above``: a die it reads surely whose colour fills 0.3 more of a
strip above its box than below is marked unsure (a die seen at an angle, its front face boxed;
chosen on the left-out sources, docs/reader-trials.md)."""


MIXES = ("log", "prob")
"""How the second looks' readings are joined: their log-probabilities averaged, or their
probabilities."""


def join_second_looks(
    first: Path,
    second: Path,
    out: Path,
    weight: float | None = None,
    relook_face_below: float = RELOOK_FACE_BELOW,
    rescue_scale: float = RESCUE_SCALE,
    mix: str = "log",
    more: Sequence[Path] = (),
    colour_above: float = COLOUR_ABOVE,
) -> None:
    """Write ``first`` with its ``patch_logits`` replaced by ``weight`` × its log-probabilities
    plus (1 - ``weight``) × those of ``second``'s second look (which reads the same patches),
    and ``relook_face_below``, ``rescue_scale`` and ``colour_above`` in its metadata (0: none).
    ``more`` second looks share the (1 - ``weight``) with ``second`` equally; no ``weight``:
    every look an equal share. With ``mix`` ``"prob"`` the probabilities are averaged instead
    (the log of their weighted mean), which leaves a die the looks read differently less sure.

    :raises ValueError: ``weight``, ``relook_face_below`` or ``colour_above`` outside [0, 1], a
        ``rescue_scale`` neither 0 nor over 1 up to 3, a ``mix`` neither ``"log"`` nor
        ``"prob"``, a file that is not ONNX, a model without ``patch_logits``, or one joined
        already.
    """
    import onnx
    from onnx import helper, numpy_helper

    paths = [first, second, *more]
    if weight is None:
        weight = 1.0 / len(paths)
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight must be in [0, 1], not {weight}")
    if not 0.0 <= relook_face_below < 1.0:
        raise ValueError(f"relook_face_below must be from 0 up to 1, not {relook_face_below}")
    if not is_rescue_scale(rescue_scale):
        raise ValueError(
            f"rescue_scale must be 0 (none) or over 1 up to {MAX_RESCUE_SCALE:g},"
            f" not {rescue_scale}"
        )
    if not is_from_0_to_1(colour_above):
        raise ValueError(f"colour_above must be from 0 (none) up to 1, not {colour_above}")
    if mix not in MIXES:
        raise ValueError(f"mix must be one of {', '.join(MIXES)}, not {mix!r}")
    models = []
    for path in paths:
        try:
            model = onnx.load(str(path))
        except Exception as exc:  # onnx raises protobuf's decode errors
            raise ValueError(f"not an ONNX model ({path}): {exc}") from None
        if "patch_logits" not in {o.name for o in model.graph.output}:
            raise ValueError(f"{path}: no second look (no patch_logits output)")
        if any(JOINED_FIRST_LOGITS in node.output for node in model.graph.node):
            raise ValueError(f"{path}: joined already; join the models it was made from")
        models.append(model)
    a = models[0]
    for node in a.graph.node:
        node.output[:] = [JOINED_FIRST_LOGITS if o == "patch_logits" else o for o in node.output]
    per_look = "LogSoftmax" if mix == "log" else "Softmax"
    shares = [weight] + [(1.0 - weight) / (len(paths) - 1)] * (len(paths) - 1)
    terms = []
    for k, (model, share) in enumerate(zip(models, shares, strict=True)):
        tag = "ab"[k] if k < 2 else f"b{k}"
        logits = JOINED_FIRST_LOGITS if k == 0 else _copy_look(model, a, tag)
        a.graph.initializer.append(
            numpy_helper.from_array(np.array(share, np.float32), f"join/w{tag}")
        )
        a.graph.node.extend(
            [
                helper.make_node(per_look, [logits], [f"join/l{tag}"], axis=1),
                helper.make_node("Mul", [f"join/l{tag}", f"join/w{tag}"], [f"join/m{tag}"]),
            ]
        )
        terms.append(f"join/m{tag}")
    summed = "patch_logits" if mix == "log" else "join/mean"
    a.graph.node.append(helper.make_node("Sum", terms, [summed]))
    if mix == "prob":
        a.graph.node.append(helper.make_node("Log", ["join/mean"], ["patch_logits"]))
    seen = set().union(*(sources_in(m.metadata_props) for m in models))
    helper.set_model_props(
        a,
        {p.key: p.value for p in a.metadata_props}
        | {
            "joined_second_look": ", ".join(
                f"{p.name} at {w:g}" for p, w in zip(paths[1:], shares[1:], strict=True)
            )
        }
        | ({"joined_mix": mix} if mix != "log" else {})
        | ({"relook_face_below": f"{relook_face_below:g}"} if relook_face_below else {})
        | ({"rescue_scale": f"{rescue_scale:g}"} if rescue_scale else {})
        | ({"colour_above": f"{colour_above:g}"} if colour_above else {})
        | ({TRAINED_ON: ",".join(sorted(seen))} if seen else {}),
    )
    onnx.checker.check_model(a)
    onnx.save(a, str(out))


def _copy_look(model: Any, into: Any, tag: str) -> str:
    """Copy ``model``'s second look (the nodes ``patch_logits`` needs, with their weights) into
    the graph of ``into``, each name prefixed ``tag/``; returns its logits' name there."""
    import onnx

    nodes = _upstream(model.graph, "patch_logits")
    inits = {i.name: i for i in model.graph.initializer}

    def renamed(name: str) -> str:
        return name if name in ("patches", "") else f"{tag}/{name}"

    used = {name for node in nodes for name in node.input}
    for node in nodes:
        node.input[:] = [renamed(t) for t in node.input]
        node.output[:] = [renamed(t) for t in node.output]
        node.name = f"/{tag}{node.name}"
    for name in sorted(used & inits.keys()):
        tensor = onnx.TensorProto()
        tensor.CopyFrom(inits[name])
        tensor.name = renamed(name)
        into.graph.initializer.append(tensor)
    into.graph.node.extend(nodes)
    return renamed("patch_logits")


def _fold_row(folds: Path, source: str, pairs: list[tuple[Path, Path]]) -> dict[str, Any]:
    """A fold's figures on its left-out source as ``training.loso`` recorded them
    (``loso.json``), measured only where there is no such record."""
    from training.loso import figures

    record_path = folds / "loso.json"
    record = json.loads(record_path.read_text()) if record_path.exists() else {}
    row: dict[str, Any] | None = record.get(source, {}).get("fold (float)")
    return row if row is not None else figures(folds / f"fold-{source}.onnx", pairs)


def _join_models(
    looks: list[Path],
    out: Path | None,
    weight: float | None,
    relook_face_below: float,
    rescue_scale: float,
    mix: str,
    colour_above: float,
) -> int:
    """``--join``: write the joined model; returns the exit code."""
    if out is None:
        print("ensemble: error: --join needs --out, the joined model to write", file=sys.stderr)
        return 2
    if len(looks) < 2:
        print("ensemble: error: --join needs two models or more", file=sys.stderr)
        return 2
    missing = [str(p) for p in looks if not p.is_file()]
    if missing:
        print(f"ensemble: error: no model {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        join_second_looks(
            looks[0],
            looks[1],
            out,
            weight,
            relook_face_below,
            rescue_scale,
            mix,
            looks[2:],
            colour_above,
        )
    except ValueError as e:
        print(f"ensemble: error: {e}", file=sys.stderr)
        return 2
    others = ", ".join(str(p) for p in looks[1:])
    print(f"ensemble: {out} ({out.stat().st_size / 1e6:.2f} MB): {looks[0]} joined with {others}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Join each source's folds and print their figures; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", type=Path, action="append", default=[], help="twice or more")
    ap.add_argument(
        "--join", type=Path, nargs="+", metavar="MODEL", help="join two models or more, no folds"
    )
    ap.add_argument("--out", type=Path, help="with --join: the joined model")
    ap.add_argument("--extra", type=Path, default=DEFAULT_EXTRA)
    ap.add_argument("--sources", default="wood-stone,catan-table,casino-felt")
    ap.add_argument(
        "--weight", type=float, help="the first fold's share (default: all an equal share)"
    )
    ap.add_argument("--work", type=Path, default=Path("build") / "ensemble")
    ap.add_argument(
        "--relook-face-below",
        type=float,
        default=RELOOK_FACE_BELOW,
        help="the joined file's metadata relook_face_below (0: none)",
    )
    ap.add_argument(
        "--rescue-scale",
        type=float,
        default=RESCUE_SCALE,
        help="the joined file's metadata rescue_scale (0: none)",
    )
    ap.add_argument(
        "--colour-above",
        type=float,
        default=COLOUR_ABOVE,
        help="the joined file's metadata colour_above (0: none)",
    )
    ap.add_argument(
        "--mix",
        choices=MIXES,
        default="log",
        help="average the looks' log-probabilities (log) or their probabilities (prob)",
    )
    args = ap.parse_args(argv)
    if args.join:
        return _join_models(
            args.join,
            args.out,
            args.weight,
            args.relook_face_below,
            args.rescue_scale,
            args.mix,
            args.colour_above,
        )
    if len(args.folds) < 2:
        ap.error(
            "give --folds twice or more (the loso work folders to join), or --join FIRST SECOND"
        )
    from training.loso import extra_sets, figures  # the train extra: not needed to --join

    sets = extra_sets(args.extra) if args.extra.is_dir() else {}
    args.work.mkdir(parents=True, exist_ok=True)
    for source in args.sources.split(","):
        paths = [d / f"fold-{source}.onnx" for d in args.folds]
        missing = [str(p) for p in paths if not p.exists()]
        if source not in sets:
            print(f"ensemble: error: no source {source} in {args.extra}", file=sys.stderr)
            return 2
        if missing:
            print(f"ensemble: error: no fold {', '.join(missing)} (run loso)", file=sys.stderr)
            return 2
        out = args.work / f"joined-{source}.onnx"
        try:
            join_second_looks(
                paths[0],
                paths[1],
                out,
                args.weight,
                args.relook_face_below,
                args.rescue_scale,
                args.mix,
                paths[2:],
                args.colour_above,
            )
        except ValueError as e:
            print(f"ensemble: error: {e}", file=sys.stderr)
            return 2
        rows = {d.name: _fold_row(d, source, sets[source]) for d in args.folds}
        rows["joined"] = figures(out, sets[source])
        rows["joined, count known"] = figures(out, sets[source], count_known=True)
        print(f"\n### {source} left out\n", flush=True)
        print(figures_table(rows), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
