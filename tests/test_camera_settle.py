"""Settled-throw detection: motion, voting, one proposal per settle, the throwing area."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from helpers.camera import PipReader, scene

from scorekeeper.camera import Area, CameraService, Die, MotionDetector, SettleConfig, Settler
from scorekeeper.camera.settle import count_message, split_by_area
from scorekeeper.errors import CameraError

THROW = [(1, 100, 120), (5, 220, 260), (5, 330, 140), (3, 450, 300)]


def moving_frames(n: int, seed: int = 1) -> list[np.ndarray]:
    """Frames of the same dice tumbling: each frame at new random places."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        dice = [(v, int(rng.integers(20, 560)), int(rng.integers(20, 400))) for v, _, _ in THROW]
        out.append(scene(dice))
    return out


def still_frames(n: int, seed: int = 2) -> list[np.ndarray]:
    """The dice at rest, with a little sensor noise on each frame."""
    rng = np.random.default_rng(seed)
    base = scene(THROW).astype(np.int16)
    return [
        np.clip(base + rng.integers(-3, 4, base.shape), 0, 255).astype(np.uint8) for _ in range(n)
    ]


FPS = 15.0


def run(frames: list[np.ndarray], svc: CameraService) -> list[tuple[int, tuple[int, ...]]]:
    """Feed frames taken at 15 a second; the frame numbers at which a new proposal appeared,
    with its dice."""
    seen: list[tuple[int, tuple[int, ...]]] = []
    last = None
    for i, f in enumerate(frames):
        r = svc.process(f, i + 1, captured=i / FPS)
        if r.proposal is not None and r.proposal.id != last:
            last = r.proposal.id
            seen.append((i, r.proposal.dice))
    return seen


def test_moving_then_still_proposes_exactly_once_after_the_dice_stop() -> None:
    reader = PipReader()
    svc = CameraService("none", reader_factory=lambda: reader)
    frames = moving_frames(12) + still_frames(30)
    proposals = run(frames, svc)
    assert len(proposals) == 1
    at, dice = proposals[0]
    assert dice == (1, 3, 5, 5)
    cfg = SettleConfig()
    # after the stop: not before frame 12, and by the still time and the votes later
    assert 12 <= at <= 12 + math.ceil(cfg.still_s * FPS) + cfg.vote_reads
    # the reader runs only on still frames
    assert reader.calls <= 30


def test_the_reader_rests_once_a_still_throw_is_proposed() -> None:
    """Dice lying still after their proposal are not read again (a Raspberry Pi's core stays
    free); every frame still carries the proposal's dice for the overlay; the next motion
    wakes the reader."""
    reader = PipReader()
    svc = CameraService("none", reader_factory=lambda: reader)
    cfg = SettleConfig()
    readings = [svc.process(f, i + 1, captured=i / FPS) for i, f in enumerate(still_frames(60))]
    proposed = next(i for i, r in enumerate(readings) if r.proposal is not None)
    assert reader.calls == cfg.vote_reads  # the votes, then no more reads
    for r in readings[proposed:]:
        assert r.proposal is readings[proposed].proposal
        assert sorted(d.value for d in r.dice) == [1, 3, 5, 5]
    frames = moving_frames(3) + still_frames(20, seed=5)
    assert len(run(frames, svc)) == 1 and reader.calls == 2 * cfg.vote_reads


def test_a_new_throw_after_motion_proposes_again() -> None:
    svc = CameraService("none", reader_factory=PipReader)
    frames = moving_frames(6) + still_frames(15) + moving_frames(6, seed=5) + still_frames(15)
    proposals = run(frames, svc)
    assert [d for _, d in proposals] == [(1, 3, 5, 5), (1, 3, 5, 5)]
    assert proposals[1][0] >= 27


def test_no_proposal_while_moving_or_without_dice() -> None:
    svc = CameraService("none", reader_factory=PipReader)
    assert run(moving_frames(40), svc) == []
    empty = [scene([]) for _ in range(20)]
    assert run(empty, CameraService("none", reader_factory=PipReader)) == []


def test_low_confidence_or_disagreement_gives_no_proposal() -> None:
    svc = CameraService("none", reader_factory=lambda: PipReader(confidence=0.3))
    assert run(still_frames(20), svc) == []
    settler = Settler(SettleConfig(still_s=0))
    results = []
    for i in range(10):
        settler.motion(False, i / FPS)
        value = 1 + i % 3  # the reader flips between three readings
        results.append(settler.vote([Die(value, (0, 0, 10, 10), 0.9)]))
    assert all(r is None for r in results)


def test_throwing_area_ignores_dice_set_aside() -> None:
    svc = CameraService("none", reader_factory=PipReader)
    svc.set_area(Area(0.3, 0.0, 1.0, 1.0))  # the throw: right of x=192
    frames = moving_frames(3) + still_frames(12)
    proposals = run(frames, svc)
    assert [d for _, d in proposals] == [(3, 5, 5)]  # the 1 at x=100 is set aside
    reading = svc.latest()
    assert reading is not None
    assert [d.value for d in reading.ignored] == [1]
    message = reading.to_dict(dice_left=4)["proposal"]["message"]
    assert message == "I see 3 dice, 4 are left to throw"


def test_motion_detector_scores_change_in_the_area_only() -> None:
    md = MotionDetector()
    a = scene(THROW)
    assert md.update(a) == 1.0
    assert md.update(a.copy()) == 0.0
    b = scene([(6, 10, 10), *THROW[1:]])  # the die on the left moved
    assert md.update(b) > 0.003
    md2 = MotionDetector()
    right = Area(0.5, 0.0, 1.0, 1.0)
    md2.update(a, right)
    assert md2.update(b, right) == 0.0


def test_area_parse_and_split() -> None:
    area = Area.parse({"x0": 0.9, "y0": 0.1, "x1": 0.2, "y1": 0.8})
    assert (area.x0, area.x1) == (0.2, 0.9)
    inside, outside = split_by_area(
        [Die(2, (0, 0, 10, 10), 1.0), Die(3, (300, 200, 310, 210), 1.0)], area, 640, 480
    )
    assert [d.value for d in inside] == [3] and [d.value for d in outside] == [2]
    bads = ([1, 2], {"x0": 0, "y0": 0, "x1": 2, "y1": 1}, {"x0": 0, "y0": 0, "x1": 0.01, "y1": 1})
    for bad in bads:
        with pytest.raises(CameraError):
            Area.parse(bad)


def test_count_message() -> None:
    assert count_message(5, 4) == "I see 5 dice, 4 are left to throw"
    assert count_message(3, 1) == "I see 3 dice, 1 is left to throw"
    assert count_message(6, None) == "I see 6 dice"


def test_overlay_marks_dice_the_reader_is_unsure_of() -> None:
    from scorekeeper.camera.overlay import GREEN, GREY, YELLOW, draw_overlay

    frame = np.full((240, 320, 3), 90, np.uint8)
    sure, unsure = Die(3, (40, 60, 100, 120), 0.95), Die(5, (180, 60, 240, 120), 0.55)
    aside = Die(2, (260, 150, 300, 190), 0.4)  # set aside: grey whatever its confidence
    img = draw_overlay(frame, [sure, unsure], [aside], stable=True, proposal=(3, 5))
    assert tuple(img[90, 40]) == GREEN  # the left edge of each box
    assert tuple(img[90, 180]) == YELLOW
    assert tuple(img[170, 260]) == GREY


class FillingReader(PipReader):
    """Reads pips, and makes up a short count with a 6 at (600, 40), unsure, where allowed."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[int] = []

    def meet_count(self, frame: Any, dice: Any, count: int, where: Any = None) -> list[Any]:
        counted = [d for d in dice if where is None or where(d)]
        if len(counted) >= count:
            return list(dice)
        self.asked.append(count - len(counted))
        die = Die(6, (590.0, 30.0, 610.0, 50.0), 0.5)
        return [*dice, die] if where is None or where(die) else list(dice)


def test_a_throw_the_game_waits_for_is_made_up_to_its_count_with_unsure_dice() -> None:
    reader = FillingReader()
    svc = CameraService("none", reader_factory=lambda: reader)
    assert [d for _, d in run(moving_frames(3) + still_frames(12), svc)] == [(1, 3, 5, 5)]
    assert reader.asked == []  # no throw asked for: nothing made up
    svc.ask_throw(5, "game-1:v3")
    proposals = run(moving_frames(3, seed=5) + still_frames(12), svc)
    assert [d for _, d in proposals] == [(1, 3, 5, 5, 6)] and set(reader.asked) == {1}
    reading = svc.latest()
    assert reading is not None and reading.proposal is not None
    assert reading.proposal.to_dict(dice_left=5)["unsure"] == [False, False, False, False, True]
    # with the throwing area on the left, the made-up die (right, top) is not offered
    svc.set_area(Area(0.0, 0.0, 0.85, 1.0))
    proposals = run(moving_frames(3, seed=6) + still_frames(12), svc)
    assert [d for _, d in proposals] == [(1, 3, 5, 5)]
