"""Background solves for the web app: the win-probability tables and the advisor's worker.

A rules value's table is solved once, in a worker process (or a thread: ``kind="thread"``),
and written to the disk cache; ``ensure_solved`` starts that solve and reports when it is
done. The advisor may run in a worker process of its own (``in_advice_worker``). Worker
processes exit as soon as the server that started them is gone.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, TypeVar

from scorekeeper.rules import Rules
from scorekeeper.winprob import WinTable, cached_winprob, check_supported, solve_winprob

_lock = threading.Lock()
_running: dict[str, Future[None]] = {}
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
    """Whether a background solve of ``rules`` has been started and not collected yet."""
    with _lock:
        return rules.content_key() in _running


def ensure_solved(
    rules: Rules, folder: Path | None, kind: str = "process", start: bool = True
) -> WinTable | None:
    """The solved table when ready; otherwise start (or keep) a background solve, None.

    ``folder``: the disk cache (None: the user cache folder); ``kind``: ``"process"`` or
    ``"thread"``, where the solve runs. ``start=False`` only looks: no new solve is started.

    :raises UnsupportedRulesError: for rules the solver cannot play.
    :raises RuntimeError: when the solve of these rules failed (it is not tried again).
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
            where = str(folder) if folder else None
            _running[key] = _executor(kind).submit(_solve, rules.to_dict(), where)
    return None


def stop_background_solves() -> None:
    """Stop the running background solves at once (a server shutting down calls this).

    A process pool otherwise waits at interpreter exit for a solve of a minute or more.
    """
    with _lock:
        executors = list(_executors.values())
        _executors.clear()
        _running.clear()
    for executor in executors:
        if isinstance(executor, ProcessPoolExecutor):
            # No public API stops a running task; terminating the workers is the only way.
            for proc in list((getattr(executor, "_processes", None) or {}).values()):
                proc.terminate()
        executor.shutdown(wait=False, cancel_futures=True)
