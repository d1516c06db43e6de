"""Background solves for the web app: the win-probability tables and the advisor's worker.

A rules value's table is solved once, in a worker process (or a thread: ``kind="thread"``),
and written to the disk cache; ``ensure_solved`` starts that solve and reports when it is
done. The advisor may run in a worker process of its own (``in_advice_worker``). Worker
processes exit as soon as the server that started them is gone.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, TypeVar

from scorekeeper.errors import SolverBusyError
from scorekeeper.rules import Rules
from scorekeeper.winprob import WinTable, cached_winprob, check_supported, solve_winprob

GAME = 0
"""Priority of a solve a game in play asks for (its own rules): before any other."""
ASKED = 1
"""Priority of a solve asked for by rules alone (``/api/winprob?set=...``, the setup page)."""
MAX_WAITING = 8
"""The most rule sets waiting behind the one being solved."""
MAX_WAITING_ASKED = 2
"""Of those, the most asked for by rules alone (not by a game in play)."""

_lock = threading.RLock()
_running: dict[str, Future[None]] = {}  # solving or waiting, by rules key
_waiting: dict[str, tuple[Future[None], dict[str, Any], str | None, str, int]] = {}
_queue: list[tuple[int, int, str]] = []  # (priority, order, rules key), a heap
_order = itertools.count()
_busy = [False]  # a solve is running (one at a time, whichever its worker)
_failed: dict[str, str] = {}
_executors: dict[str, Executor] = {}
_advice_pool: ProcessPoolExecutor | None = None

A = TypeVar("A")
R = TypeVar("R")


def _watch_parent(parent: int) -> None:
    """In the worker process: exit as soon as the server that started it is gone."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def exit_with_parent(parent: int) -> None:
    """A process pool's initializer: the worker exits when the process ``parent`` is gone."""
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def worker_process() -> ProcessPoolExecutor:
    """A new one-worker process pool (spawned) whose worker exits with this process."""
    return ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=exit_with_parent,
        initargs=(os.getpid(),),
    )


def in_advice_worker(fn: Callable[[A], R], arg: A) -> R:
    """``fn(arg)`` in the advisor's worker process (no GIL contention with the server).

    ``fn`` and ``arg`` must pickle. A worker that died is replaced on the next call.
    """
    global _advice_pool
    try:
        return _advice_worker().submit(fn, arg).result()
    except BrokenProcessPool:
        _advice_pool = None
        raise


def start_advice_worker(warm_up: Callable[[], object]) -> None:
    """Start the advisor's worker process now, running ``warm_up`` in it (not waited for)."""
    _advice_worker().submit(warm_up)


def _advice_worker() -> ProcessPoolExecutor:
    global _advice_pool
    if _advice_pool is None:
        _advice_pool = worker_process()
    return _advice_pool


def _solve(rules_dict: dict[str, Any], folder: str | None) -> None:
    """Worker: solve the rules and write the table to the disk cache."""
    solve_winprob(Rules.from_dict(rules_dict), folder)


def _executor(kind: str) -> Executor:
    found = _executors.get(kind)
    if found is None:
        if kind == "thread":
            found = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sk-winprob")
        else:
            found = worker_process()
        _executors[kind] = found
    return found


def solving(rules: Rules) -> bool:
    """Whether a background solve of ``rules`` has been started or queued, not collected yet."""
    with _lock:
        return rules.content_key() in _running


def _dispatch() -> None:
    """Start the first waiting solve, by priority then order, unless one is running."""
    with _lock:
        while not _busy[0] and _queue:
            _, _, key = heapq.heappop(_queue)
            item = _waiting.pop(key, None)
            if item is None:  # queued again at a higher priority, and started from there
                continue
            outer, rules_dict, where, kind, _priority = item
            _busy[0] = True
            inner = _executor(kind).submit(_solve, rules_dict, where)
            inner.add_done_callback(functools.partial(_finished, outer=outer))


def _finished(inner: Future[None], *, outer: Future[None]) -> None:
    """A solve ended: pass its outcome on and start the next one."""
    error = RuntimeError("the solve was stopped") if inner.cancelled() else inner.exception()
    if not outer.done():
        if error is None:
            outer.set_result(None)
        else:
            outer.set_exception(error)
    with _lock:
        _busy[0] = False
    _dispatch()


def _enqueue(key: str, rules: Rules, where: str | None, kind: str, priority: int) -> None:
    """Queue a solve of ``rules`` (``_lock`` held).

    :raises SolverBusyError: when :data:`MAX_WAITING` rule sets wait already (or
        :data:`MAX_WAITING_ASKED` asked for without a game).
    """
    asked = sum(1 for item in _waiting.values() if item[4] == ASKED)
    if len(_waiting) >= MAX_WAITING or (priority == ASKED and asked >= MAX_WAITING_ASKED):
        raise SolverBusyError(
            f"{len(_waiting)} rule sets are waiting for the win-chance solver already"
            " (each takes a minute or so); ask again in a few minutes. A game in play"
            " has its own rules solved first."
        )
    outer: Future[None] = Future()
    _running[key] = outer
    _waiting[key] = (outer, rules.to_dict(), where, kind, priority)
    heapq.heappush(_queue, (priority, next(_order), key))


def ensure_solved(
    rules: Rules,
    folder: Path | None,
    kind: str = "process",
    start: bool = True,
    priority: int = ASKED,
) -> WinTable | None:
    """The solved table when ready; otherwise queue (or keep) a background solve, None.

    ``folder``: the disk cache (None: the user cache folder); ``kind``: ``"process"`` or
    ``"thread"``, where the solve runs. ``start=False`` only looks: no new solve is started.
    One solve runs at a time; the others wait, a game's own rules (``priority=GAME``)
    before rules asked for alone (``ASKED``); a waiting solve asked for again by a game
    moves ahead.

    :raises UnsupportedRulesError: for rules the solver cannot play.
    :raises RuntimeError: when the solve of these rules failed (it is not tried again).
    :raises SolverBusyError: when too many solves wait already.
    """
    check_supported(rules)
    table = cached_winprob(rules, folder)
    if table is not None:
        return table
    key = rules.content_key()
    with _lock:
        if not start and key not in _running:
            return None
        if key in _failed:
            raise RuntimeError(_failed[key])
        job = _running.get(key)
        if job is not None and job.done():
            _running.pop(key)
            error = job.exception()
            if error is not None:
                _failed[key] = f"the win-probability solve failed: {error}"
                raise RuntimeError(_failed[key])
            return cached_winprob(rules, folder)
        if job is None:
            _enqueue(key, rules, str(folder) if folder else None, kind, priority)
        elif key in _waiting and priority < _waiting[key][4]:
            outer, rules_dict, where, kind_of, _ = _waiting[key]
            _waiting[key] = (outer, rules_dict, where, kind_of, priority)
            heapq.heappush(_queue, (priority, next(_order), key))
    _dispatch()
    return None


def stop_background_solves() -> None:
    """Stop the running background solves at once (a server shutting down calls this).

    A process pool otherwise waits at interpreter exit for a solve of a minute or more.
    """
    with _lock:
        executors = list(_executors.values())
        _executors.clear()
        _running.clear()
        _waiting.clear()
        _queue.clear()
        _busy[0] = False
    for executor in executors:
        if isinstance(executor, ProcessPoolExecutor):
            # No public API stops a running task; terminating the workers is the only way.
            for proc in list((getattr(executor, "_processes", None) or {}).values()):
                proc.terminate()
        executor.shutdown(wait=False, cancel_futures=True)
