"""A run's temporary folder (copies of Hydra config folders with migrated files in place, to compose them
again): made by the process that drives the run before it forks its workers, which write into it, and
removed with everything in it by that process when the run ends. A forked pool worker never runs ``atexit``
handlers (it leaves with ``os._exit``), so a folder a worker made for itself would be left behind, on every
run, in the system's temporary folder.

A run ended by SIGTERM removes it too: while a run is at work, the driving process leaves on SIGTERM through
the normal path (``SystemExit``: ``finally`` clauses, then the ``atexit`` handlers) and only then dies of
the signal, as its default action would have killed it (``_terminated``)."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

PREFIX = "lightning-migrate-"
_runs: list[str] = []  # the folders of the runs at work in this process (inherited by its forked workers)
_owner: list[int] = []  # the process that set ``leave_on_sigterm`` as SIGTERM's handler
_terminated: list[int] = []  # the signal that ended the run: the process dies of it after its exit handlers


@contextmanager
def for_run() -> Iterator[str]:
    """The folder of a run: ``folder()`` while the run lasts, removed when it ends (or fails), or when the
    process exits with the run unfinished (a run is a generator: one left suspended by an interrupt whose
    traceback holds it is not closed before the interpreter ends), or is ended by SIGTERM."""
    made = tempfile.mkdtemp(prefix=PREFIX)
    remove = functools.partial(shutil.rmtree, made, True)  # (its own object: unregistered alone)
    atexit.register(remove)
    _runs.append(made)
    installed = _on_sigterm()
    try:
        yield made
    finally:
        if installed:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            _owner.clear()
        _runs.remove(made)
        remove()
        atexit.unregister(remove)


def _on_sigterm() -> bool:
    """Make SIGTERM leave through the normal path (``leave_on_sigterm``) where it has its default action and
    this is the main thread (the only one that can set a handler); whether it did. A handler of the
    embedding program's own, or the one an outer run set, is left as it is."""
    if threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return False
    _owner[:] = [os.getpid()]
    signal.signal(signal.SIGTERM, leave_on_sigterm)
    return True


def leave_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """SIGTERM's handler while a run is at work: ``SystemExit`` in the driving process (the run's folder is
    removed on the way out); in a worker forked with it, the default action, as before the run."""
    if _owner != [os.getpid()]:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    _terminated.append(signum)
    raise SystemExit(128 + signum)


def sets_sigterm(handler: Callable[[int, FrameType | None], object] | int | None) -> bool:
    """Is ``handler`` (what ``signal.getsignal`` gives) the one a run sets?"""
    return handler is leave_on_sigterm


@atexit.register  # (first of this module's handlers: it runs after those of every run, which come later)
def _die_of_the_signal() -> None:
    """After the exit handlers, a process a run's SIGTERM ended dies of it, as the default action does (its
    parent sees a process killed by SIGTERM)."""
    if _terminated:
        signal.signal(_terminated[0], signal.SIG_DFL)
        os.kill(os.getpid(), _terminated[0])


def folder() -> str:
    """The folder of the run at work; outside a run (an API caller composing by itself), one for this
    process, removed when it exits."""
    if not _runs:
        _runs.append(tempfile.mkdtemp(prefix=PREFIX))
        atexit.register(shutil.rmtree, _runs[0], True)
    return _runs[-1]
