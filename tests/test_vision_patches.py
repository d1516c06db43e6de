"""The second look's pure parts: patches cut from frames and the decision on their logits."""

from __future__ import annotations

import numpy as np
import pytest

from scorekeeper.vision.detection import Detection
from scorekeeper.vision.overlaps import merge_scales, resolve_overlaps
from scorekeeper.vision.patches import PATCH_CONTEXT, crop_patch, patch_batch, to_bgr
from scorekeeper.vision.second_look import second_look


def test_to_bgr_accepts_grey_bgr_and_bgra() -> None:
    grey = np.arange(12, dtype=np.uint8).reshape(3, 4)
    assert to_bgr(grey).shape == (3, 4, 3) and (to_bgr(grey)[:, :, 2] == grey).all()
    bgra = np.zeros((3, 4, 4), np.uint8)
    bgra[:, :, 3] = 255
    assert to_bgr(bgra).shape == (3, 4, 3) and to_bgr(bgra).max() == 0
    bgr = np.ones((3, 4, 3), np.uint8)
    assert to_bgr(bgr) is bgr


def test_crop_patch_centres_and_scales() -> None:
    img = np.zeros((100, 100, 3), np.uint8)
    img[40:60, 20:40] = (10, 200, 30)  # a 20 px square centred on (30, 50)
    p = crop_patch(img, 30.0, 50.0, 40.0, 20)
    assert p.shape == (20, 20, 3)
    # the square fills the middle half of the patch, in its colour
    assert (p[6:14, 6:14] == (10, 200, 30)).all()
    assert p[:4].max() == 0 and p[:, :4].max() == 0


def test_crop_patch_repeats_edges_outside_the_frame() -> None:
    img = np.zeros((10, 10, 3), np.uint8)
    img[:, 0] = 255
    p = crop_patch(img, 0.0, 5.0, 8.0, 8)
    # left of the frame repeats the white first column
    assert p[:, :4].min() == 255 and p[:, 5:].max() == 0
    # a box wholly outside still gives a patch of the right size
    assert crop_patch(img, -50.0, -50.0, 6.0, 8).shape == (8, 8, 3)


def test_patch_batch_layout_and_range() -> None:
    frame = np.full((60, 80), 128, np.uint8)
    frame[20:30, 40:50] = 255
    batch = patch_batch(frame, [(40, 20, 50, 30), (0, 0, 5, 5)], 16)
    assert batch.shape == (2, 3, 16, 16) and batch.dtype == np.float32
    assert batch.min() >= 0.0 and batch.max() <= 1.0
    side = PATCH_CONTEXT * 10
    inner = round(16 * 10 / side)  # the white square's share of the patch
    mid = batch[
        0, 0, 8 - inner // 2 + 1 : 8 + inner // 2 - 1, 8 - inner // 2 + 1 : 8 + inner // 2 - 1
    ]
    assert np.allclose(mid, 1.0)
    assert np.allclose(batch[1], 128 / 255)


def _cands(n: int) -> list[Detection]:
    return [Detection(1, (10.0 * i, 0.0, 10.0 * i + 9, 9.0), 0.9 - 0.1 * i) for i in range(n)]


def test_second_look_keeps_dice_rereads_faces_and_ranks() -> None:
    logits = np.array(
        [
            [0.0, 0, 0, 0, 0, 0, 8],  # a six, sure
            [8.0, 0, 0, 0, 0, 0, 0],  # not a die
            [0.0, 0, 3, 0, 0, 0, 0],  # a two, less sure
        ],
        np.float32,
    )
    out = second_look(_cands(3), logits, 0.5)
    assert [d.value for d in out] == [6, 2]
    assert out[0].confidence > out[1].confidence
    assert out[1].box == _cands(3)[2].box
    # a stricter threshold drops the less sure die only when its die probability is lower
    assert [d.value for d in second_look(_cands(3), logits, 0.999)] == [6]


def test_second_look_refuses_mismatched_logits() -> None:
    with pytest.raises(ValueError, match="patch logits"):
        second_look(_cands(2), np.zeros((3, 7), np.float32), 0.5)
    assert second_look([], np.zeros((0, 7), np.float32), 0.5) == []


def test_merge_scales_adds_only_what_the_fine_look_missed() -> None:
    fine = [Detection(2, (100, 100, 140, 140), 0.9), Detection(1, (300, 300, 310, 310), 0.8)]
    coarse = [
        Detection(2, (98, 102, 142, 139), 0.7),  # the same die: dropped
        Detection(6, (250, 250, 400, 400), 0.6),  # much bigger, holds the fine "1": kept
        Detection(4, (500, 10, 560, 70), 0.5),  # nowhere near: kept
    ]
    assert [d.value for d in merge_scales(fine, coarse)] == [2, 1, 6, 4]
    assert merge_scales([], coarse) == coarse
    assert merge_scales(fine, []) == fine


def test_resolve_overlaps_keeps_the_most_confident_per_place() -> None:
    big = Detection(6, (250, 250, 400, 400), 0.95)
    pip = Detection(1, (300, 300, 310, 310), 0.8)  # a pip of the big die
    side = Detection(3, (10, 10, 50, 50), 0.7)
    touching = Detection(4, (50, 10, 90, 50), 0.6)  # shares an edge, centre outside: kept
    out = resolve_overlaps([pip, touching, big, side])
    assert out == [big, side, touching]
    # the pip wins when it is more confident: confidence decides, not size
    assert resolve_overlaps([Detection(1, pip.box, 0.99), big])[0].value == 1
    assert resolve_overlaps([]) == []


def test_resolve_overlaps_drops_the_pips_of_a_die_too_big_for_the_fine_look() -> None:
    big = Detection(4, (200, 200, 360, 360), 0.88)  # 160 px: a die close to the camera
    pips = [
        Detection(1, (220, 220, 270, 270), 0.96),  # a pip of its top face, read as a 1
        Detection(2, (290, 220, 345, 275), 0.9),  # two pips read as a 2
        Detection(6, (230, 370, 260, 400), 0.7),  # a side face's pip, outside the top face
    ]
    beside = Detection(3, (600, 200, 760, 360), 0.8)  # a die of its size beside it: kept
    far = Detection(5, (700, 600, 740, 640), 0.9)  # small and far: kept
    dice = [*pips, big, beside, far]
    assert resolve_overlaps(dice, whole_side=150) == [far, big, beside]
    # a die under the fine look's size keeps the old rule: the most confident stays
    assert resolve_overlaps(dice, whole_side=170)[0] == pips[0]
    assert big not in resolve_overlaps(dice, whole_side=170)
    # so does one read unsurely: a false big "die" round two real ones must not hide them
    unsure = Detection(4, big.box, 0.5)
    assert pips[0] in resolve_overlaps([*pips, unsure], whole_side=150)
    # outside its box only a pip-sized one is a part: a neighbour boxed too small stays
    neighbour = Detection(6, (380, 220, 450, 290), 0.9)  # a fifth of its area, beside it
    assert neighbour in resolve_overlaps([big, neighbour], whole_side=150)
    # and a candidate bigger than a quarter of its area is not a part of it
    half = Detection(2, (200, 200, 300, 300), 0.95)
    assert resolve_overlaps([half, big], whole_side=150) == [half]
