"""The strategy advisor's advice for the API: attached to a game's current throw, and
``GET /api/suggest``.

The advisor (``advisor()``: ``scorekeeper.strategy.advise``) is called with what the game
knows, one keyword each (``rules``, ``throw``, ``turn_total``, ``banked``, ``on_board``,
``streak``, ``beat``, ``dice_left``, ``cache_dir``). When it fails, a game's ``turn.advice``
is null and the game goes on; without an advisor ``/api/suggest`` answers 503.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from werkzeug.exceptions import ServiceUnavailable

from scorekeeper.cache import LRU
from scorekeeper.errors import ActionError
from scorekeeper.rules import Rules, named_rules
from scorekeeper.scoring import Dice
from scorekeeper.store import CHANGES, Snapshot
from scorekeeper.strategy import advise, advise_pass
from scorekeeper.strategy.model import UNIT
from scorekeeper.web.jobs import in_advice_worker, start_advice_worker
from scorekeeper.web.params import (
    MultiArgs,
    bool_arg,
    faces_arg,
    int_arg,
    opt_int_arg,
    rules_args,
    text_arg,
)

log = logging.getLogger(__name__)

CACHE_SIZE = 512

_lock = threading.Lock()
_cache: LRU[tuple[str, int], Any] = LRU(CACHE_SIZE)  # advice by (game id, version)
_pending: dict[tuple[str, int], Future[None]] = {}
_latest: dict[str, int] = {}
_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sk-advice")


def _child_ready() -> bool:
    """In the worker process: import the advisor now, so the first advice is quick."""
    return advisor() is not None


def start_worker_process() -> None:
    """Start the advisor's worker process in the background (``serve`` calls this at start)."""
    if advisor() is not None:
        start_advice_worker(_child_ready)


def advisor() -> Callable[..., Any] | None:
    """The advisor to call: ``scorekeeper.strategy.advise`` (None would mean no advice)."""
    return advise


def to_jsonable(value: Any) -> Any:
    """The advisor's answer as plain JSON (``to_dict``/``to_json``, dataclasses, lists)."""
    for name in ("to_json", "to_dict"):
        method = getattr(value, name, None)
        if callable(method):
            return to_jsonable(method())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_jsonable(dataclasses.asdict(value))
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, Dice):
        return value.to_list()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


@dataclasses.dataclass(frozen=True)
class AdviceQuery:
    """What the advisor is asked about one throw: the player's state and its cache folder."""

    rules: Rules
    throw: Dice | None  # None: advice on passed dice (``passed``)
    turn_total: int
    banked: int
    on_board: bool
    streak: int
    beat: int | None
    cache_dir: str | None = None
    passed: tuple[int, int] | None = None  # pass_dice: the passed total and dice
    tripled: tuple[int, ...] = ()  # triple_addon: faces kept as triples earlier in the turn


def call_advisor(query: AdviceQuery) -> Any:
    """The advisor's answer to ``query`` as JSON; None without an advisor.

    :raises Exception: whatever the advisor raises (callers decide what to do with it).
    """
    fn = advisor()
    if fn is None:
        return None
    if query.passed is not None or query.throw is None:
        total, dice = query.passed or (0, query.rules.dice)
        passed = advise_pass(
            query.rules,
            total,
            dice,
            banked=query.banked,
            on_board=query.on_board,
            streak=query.streak,
            beat=query.beat,
            cache_dir=query.cache_dir,
        )
        return to_jsonable(passed)
    extra: dict[str, Any] = {"tripled": query.tripled} if query.tripled else {}
    answer = fn(
        **extra,
        rules=query.rules,
        throw=query.throw,
        turn_total=query.turn_total,
        dice_left=len(query.throw),
        banked=query.banked,
        on_board=query.on_board,
        streak=query.streak,
        beat=query.beat,
        cache_dir=query.cache_dir,
    )
    result = to_jsonable(answer)
    json.dumps(result)
    return result


def _compute(key: tuple[str, int], query: AdviceQuery, in_process: bool) -> None:
    """Worker: the advice for one game version, unless the game has moved on meanwhile."""
    try:
        with _lock:
            stale = _latest.get(key[0], -1) > key[1]
        advice = None
        if not stale:
            try:
                advice = (
                    in_advice_worker(call_advisor, query) if in_process else call_advisor(query)
                )
            except Exception:  # advice must never break a game
                log.exception("the advisor failed on game %s version %s", *key)
        with _lock:
            if not stale:
                _cache.put(key, advice)
    finally:
        with _lock:
            _pending.pop(key, None)
    if not stale:
        CHANGES.bump()  # wakes the event streams, which resend the state with its advice


def advisor_score(score: int, rules: Rules) -> int:
    """A score as the advisor counts it, in whole units of 50: a score adjusted by hand off
    the 50s plays as the multiple of 50 below it (exact for the points still needed to reach
    the target), and below 0 as 0 unless the rules' farkle penalty lets scores go negative."""
    units = score - score % UNIT
    return units if units >= 0 or rules.farkle_streak_penalty else 0


def advice_known(game_id: str, version: int) -> bool:
    """Whether the advice for this game version has been worked out (it may be null)."""
    return (game_id, version) in _cache


@dataclasses.dataclass(frozen=True)
class AdviceSettings:
    """Whether to attach advice, how long a request waits for it, the advisor's cache folder."""

    enabled: bool = True
    wait: float = 0.0
    cache_dir: str | None = None
    in_process: bool = False


def with_advice(snap: Snapshot, settings: AdviceSettings) -> dict[str, Any]:
    """The snapshot's state with ``turn.advice`` for its throw, and ``turn.advice_pending``.

    Advice is worked out by one background thread (an advisor may take seconds to solve a
    new situation); this waits at most ``settings.wait`` seconds for it, and not at all when
    the worker is busy with other advice. When it is not ready the
    state says ``advice_pending: true``, and the event stream sends the state again once it
    is. Never raises because of the advisor: a failure leaves ``advice`` null (and is logged).
    """
    state = snap.state
    turn = state["turn"]
    wait, cache_dir = settings.wait, settings.cache_dir
    passed = turn.get("passed")
    asks = turn["throw"] is not None or passed is not None
    if not settings.enabled or not asks or state["over"] or advisor() is None:
        return {**state, "turn": {**turn, "advice": None, "advice_pending": False}}
    key = (snap.id, snap.version)
    future: Future[None] | None = None
    with _lock:
        found = key in _cache
        if not found:
            _latest[snap.id] = max(_latest.get(snap.id, -1), snap.version)
            future = _pending.get(key)
            if future is None:
                player = state["players"][state["current"]]
                query = AdviceQuery(
                    snap.rules,
                    None if passed else Dice(turn["throw"]),
                    turn["total"],
                    # starting points (a handicap) off the board: the advisor's model has
                    # no banked points before the board, so it plays them as 0
                    advisor_score(
                        player["score"] if player["on_board"] else min(player["score"], 0),
                        snap.rules,
                    ),
                    player["on_board"],
                    player["farkle_streak"],
                    advisor_score(state["to_beat"], snap.rules) if state["final_round"] else None,
                    cache_dir,
                    (passed["total"], passed["dice"]) if passed else None,
                    tuple(turn.get("tripled") or ()),
                )
                if _pending:  # the worker is busy: waiting would only add latency
                    wait = 0.0
                future = _pending[key] = _executor.submit(_compute, key, query, settings.in_process)
    if future is not None and wait > 0:
        with contextlib.suppress(FutureTimeout):
            future.result(timeout=wait)
    with _lock:
        found = key in _cache
        advice = _cache.get(key)
    return {**state, "turn": {**turn, "advice": advice, "advice_pending": not found}}


SUGGEST_MOST = 10_000_000
"""The largest turn total, banked score or score to beat ``/api/suggest`` accepts."""


def suggest(args: MultiArgs, cache_dir: str | None = None) -> dict[str, Any]:
    """The advisor's ranked options for ``?dice=..&rules=..&set=..&turn_total=..&banked=..
    &on_board=..&streak=..&beat=..``.

    :raises RequestFieldError: on a bad number or flag.
    :raises ServiceUnavailable: when the advisor is not installed.
    """
    name, rules = named_rules(*rules_args(args))
    if args.get("passed") not in (None, ""):
        return _suggest_pass(args, name, rules, cache_dir)
    throw = Dice.parse(text_arg(args, "dice", "", 40))
    most = SUGGEST_MOST
    query = AdviceQuery(
        rules,
        throw,
        opt_int_arg(args, "turn_total", 0, most) or 0,
        opt_int_arg(args, "banked", -most, most) or 0,
        bool_arg(args, "on_board", True),
        opt_int_arg(args, "streak", 0, 1000) or 0,
        opt_int_arg(args, "beat", -most, most),
        cache_dir or None,
        tripled=faces_arg(args, "tripled", "6,4"),
    )
    if advisor() is None:
        raise ServiceUnavailable("the strategy advisor is not installed in this build")
    return {"dice": throw.to_list(), "rules": name, "advice": _asked(query)}


SUGGEST_AT_ONCE = 2
"""``/api/suggest`` questions worked out at once: new rules cost the advisor a solve (about
0.2 s of CPU each), so a flood of distinct rules must not take every server thread."""
suggest_slots = threading.BoundedSemaphore(SUGGEST_AT_ONCE)
"""The turns of ``/api/suggest`` questions (a test holds them to see the 503)."""


def _asked(query: AdviceQuery) -> Any:
    """The advisor's answer to a ``/api/suggest`` question, at most
    :data:`SUGGEST_AT_ONCE` at a time (waiting up to a second for a turn).

    :raises ServiceUnavailable: when no turn comes within the second.
    """
    if not suggest_slots.acquire(timeout=1.0):
        exc = ServiceUnavailable(
            f"the advisor is busy with {SUGGEST_AT_ONCE} other questions; ask again in a second"
        )
        exc.retry_after = 1
        raise exc
    try:
        return call_advisor(query)
    finally:
        suggest_slots.release()


def _suggest_pass(
    args: MultiArgs, name: str, rules: Rules, cache_dir: str | None
) -> dict[str, Any]:
    """``/api/suggest?passed=T&passed_dice=N&..``: take over passed dice, or throw fresh."""
    if not rules.pass_dice:
        raise ActionError("these rules do not pass dice; add set=pass_dice=true")
    if args.get("dice") not in (None, ""):
        raise ActionError("give either dice (a throw) or passed and passed_dice, not both")
    most = SUGGEST_MOST
    query = AdviceQuery(
        rules,
        None,
        0,
        opt_int_arg(args, "banked", -most, most) or 0,
        bool_arg(args, "on_board", True),
        opt_int_arg(args, "streak", 0, 1000) or 0,
        opt_int_arg(args, "beat", -most, most),
        cache_dir or None,
        (int_arg(args, "passed", 0, 0, most), int_arg(args, "passed_dice", rules.dice, 1, 6)),
    )
    if advisor() is None:
        raise ServiceUnavailable("the strategy advisor is not installed in this build")
    return {"passed": query.passed, "rules": name, "advice": _asked(query)}
