"""Background win-chance solves wait in a bounded queue, a game's own rules first (issue 31,
item 11): nobody can queue unlimited solves ahead of a real game."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from scorekeeper.errors import SolverBusyError
from scorekeeper.rules import Rules, named_rules
from scorekeeper.web import jobs


def _rules(target: int) -> Rules:
    return named_rules("standard", [f"target={target}"])[1]


class FakeSolver:
    """Stands in for the solver: each solve waits until released; the order is kept."""

    def __init__(self) -> None:
        self.order: list[int] = []
        self.release = threading.Semaphore(0)

    def __call__(self, rules_dict: dict[str, Any], folder: str | None) -> None:
        self.order.append(int(rules_dict["target"]))
        assert self.release.acquire(timeout=10)


@pytest.fixture
def solver(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeSolver]:
    fake = FakeSolver()
    monkeypatch.setattr(jobs, "_solve", fake)
    jobs.stop_background_solves()
    yield fake
    for _ in range(20):
        fake.release.release()
    jobs.stop_background_solves()


def _wait_for(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 5
    while not check() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert check()


def test_asked_solves_are_bounded_and_a_game_goes_first(solver: FakeSolver, tmp_path: Path) -> None:
    def ask(target: int, priority: int = jobs.ASKED) -> None:
        assert jobs.ensure_solved(_rules(target), tmp_path, "thread", True, priority) is None

    ask(3000)  # runs
    _wait_for(lambda: solver.order == [3000])
    ask(3050)
    ask(3100)  # two asked solves wait
    with pytest.raises(SolverBusyError, match="waiting for the win-chance solver"):
        ask(3150)
    ask(3150, jobs.GAME)  # a game in play is still queued, ahead of the asked ones
    ask(3050, jobs.GAME)  # a waiting solve that a game asks for moves ahead too
    assert jobs.solving(_rules(3100))
    for _ in range(4):
        solver.release.release()
    _wait_for(lambda: len(solver.order) == 4)
    assert solver.order == [3000, 3150, 3050, 3100]


def test_the_api_answers_503_in_words_when_the_queue_is_full(
    solver: FakeSolver, make_app: Callable[..., Flask]
) -> None:
    client = make_app(WINPROB_WORKER="thread").test_client()
    answers = [client.get(f"/api/winprob?set=target={t}") for t in (4000, 4050, 4100, 4150)]
    assert [r.json["status"] for r in answers[:3]] == ["solving"] * 3
    busy = answers[3]
    assert busy.status_code == 503 and busy.json["error"] == "solver_busy"
    assert "a few minutes" in busy.json["message"] and busy.headers["Retry-After"]
