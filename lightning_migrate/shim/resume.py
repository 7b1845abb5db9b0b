"""``Trainer(resume_from_checkpoint=path)`` on the releases that removed it (2.0), as 1.x read it.

1.5.10 and 1.9.5 keep the path on the checkpoint connector (``resume_from_checkpoint_fit_path``) and read it
in ``fit`` alone: ``ckpt_path = ckpt_path or self.resume_from_checkpoint``; ``resume_end`` forgets it once a
fit (state ``FITTING``) has restored from that very path. So every ``fit`` without a ``ckpt_path`` resumes
from it until one has restored it; a ``fit(ckpt_path=other)`` restores ``other`` and leaves the path for the
next ``fit``; ``validate``/``test``/``predict`` take their own ``ckpt_path``; the tuner (1.x ran it through
``_run`` in state ``TUNING``) never read it; ``trainer.resume_from_checkpoint`` gives it until it is
forgotten. On a release whose ``Trainer.__init__`` lacks the keyword the shim keeps the path on the Trainer
(``ATTRIBUTE``) and its ``fit`` does the same (``fitting``); where the release has it, it is passed on.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from typing import Any

KEYWORD = "resume_from_checkpoint"
ATTRIBUTE = "_shim_resume_from_checkpoint"  # the path the next `fit` resumes from, on the Trainer
FITTING = "fit"  # `TrainerFn.FITTING`, a str enum


@functools.cache
def removed(init: Callable[..., None]) -> bool:
    """Does the installed ``Trainer.__init__`` lack ``resume_from_checkpoint=`` (2.0 and later)?"""
    return KEYWORD not in inspect.signature(init).parameters


def taken(init: Callable[..., None], kwargs: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """``kwargs`` for ``init`` and the path the shim keeps: the keyword taken out where the release lacks
    it (None: nothing to keep)."""
    if KEYWORD not in kwargs or not removed(init):
        return kwargs, None
    rest = dict(kwargs)
    return rest, rest.pop(KEYWORD)


def message(path: Any) -> str:
    return (
        f"`Trainer({KEYWORD}={path!r})` was removed in Lightning 2.0: the runtime shim resumes the first"
        " `fit` from it, as 1.x did. Pass it as `trainer.fit(ckpt_path=...)`."
    )


def fitting(namespace: str, real_fit: Callable[[], Callable[..., Any]]) -> Callable[..., Any]:
    """A ``Trainer.fit`` that resumes from the kept path as 1.x did, calling ``real_fit()``."""

    def fit(self: Any, *args: Any, **kwargs: Any) -> Any:
        original = real_fit()
        pending = getattr(self, ATTRIBUTE, None)
        if pending is None or _called_by_tuner(namespace):
            return original(self, *args, **kwargs)
        try:
            bound = inspect.signature(original).bind(self, *args, **kwargs)
        except TypeError:
            return original(self, *args, **kwargs)  # the real fit raises its own error
        if not bound.arguments.get("ckpt_path"):
            bound.arguments["ckpt_path"] = pending  # `ckpt_path or self.resume_from_checkpoint`
        connector: Any = getattr(self, "_checkpoint_connector", None)
        hooked = callable(getattr(type(connector), "resume_end", None))
        if hooked:
            connector.resume_end = _ForgetOnResumeEnd(self, pending)
        try:
            return original(*bound.args, **bound.kwargs)
        finally:
            if hooked:
                vars(connector).pop("resume_end", None)
            elif getattr(self, ATTRIBUTE, None) is pending:  # a release without the hook: after the fit
                setattr(self, ATTRIBUTE, None)

    fit.__name__ = fit.__qualname__ = "fit"
    return fit


class _ForgetOnResumeEnd:
    """The connector's ``resume_end`` for one ``fit``: 1.x forgot the path there, once a fit had restored from
    it. A plain object (not a closure): a spawn launcher pickles the Trainer with it."""

    def __init__(self, trainer: Any, pending: Any) -> None:
        self.trainer = trainer
        self.pending = pending

    def __call__(self) -> Any:
        connector = self.trainer._checkpoint_connector
        restored = getattr(connector, "_ckpt_path", self.pending)
        if self.trainer.state.fn == FITTING and restored == self.pending:
            setattr(self.trainer, ATTRIBUTE, None)
        return type(connector).resume_end(connector)


def _called_by_tuner(namespace: str) -> bool:
    """Is this ``fit`` run by the release's tuner (2.x's ``Tuner`` runs ``fit``; 1.x's tuner did not read
    the path)?"""
    frame = sys._getframe(2)
    while frame is not None:
        if str(frame.f_globals.get("__name__", "")).startswith(f"{namespace}.tuner"):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def pending_path(self: Any) -> Any:
    """``trainer.resume_from_checkpoint``: the path the next ``fit`` resumes from (None once restored)."""
    return getattr(self, ATTRIBUTE, None)
