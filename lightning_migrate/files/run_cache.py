"""What a run remembers of the files it reads, by path: forgotten when the next run starts.

A run reads each file once, and a few of its answers about a file or a folder are asked for again and again
(a Hydra composition, a script's parser, a folder's configs), so they are remembered by path. Between runs
in one process (an API user, a test, an editor's integration) the files may change: a cache made with
``per_run`` is cleared by ``forget()``, which ``run.runner.process_each`` calls as each run starts. (Answers
remembered by the text they are made of, such as Hydra's loaded configs, stay: nothing to forget.)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_CACHES: list[functools._lru_cache_wrapper[Any]] = []


def per_run(maxsize: int) -> Callable[[Callable[..., T]], functools._lru_cache_wrapper[T]]:
    """``functools.lru_cache(maxsize)``, forgotten by ``forget()``."""

    def decorate(function: Callable[..., T]) -> functools._lru_cache_wrapper[T]:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        _CACHES.append(cached)
        return cached

    return decorate


def forget() -> None:
    """Forget what every ``per_run`` cache remembers (the files may have changed since)."""
    for cache in _CACHES:
        cache.cache_clear()
