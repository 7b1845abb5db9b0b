"""A run's temporary folder (copies of Hydra config folders with migrated files in place, to compose them
again): made by the process that drives the run before it forks its workers, which write into it, and
removed with everything in it by that process when the run ends. A forked pool worker never runs ``atexit``
handlers (it leaves with ``os._exit``), so a folder a worker made for itself would be left behind, on every
run, in the system's temporary folder."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

PREFIX = "lightning-migrate-"
_runs: list[str] = []  # the folders of the runs at work in this process (inherited by its forked workers)


@contextmanager
def for_run() -> Iterator[str]:
    """The folder of a run: ``folder()`` while the run lasts, removed when it ends (or fails), or when the
    process exits with the run unfinished (a run is a generator: one left suspended by an interrupt whose
    traceback holds it is not closed before the interpreter ends)."""
    made = tempfile.mkdtemp(prefix=PREFIX)
    remove = functools.partial(shutil.rmtree, made, True)  # (its own object: unregistered alone)
    atexit.register(remove)
    _runs.append(made)
    try:
        yield made
    finally:
        _runs.remove(made)
        remove()
        atexit.unregister(remove)


def folder() -> str:
    """The folder of the run at work; outside a run (an API caller composing by itself), one for this
    process, removed when it exits."""
    if not _runs:
        _runs.append(tempfile.mkdtemp(prefix=PREFIX))
        atexit.register(shutil.rmtree, _runs[0], True)
    return _runs[-1]
