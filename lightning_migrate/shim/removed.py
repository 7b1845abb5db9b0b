"""The Trainer keywords 1.7 and 2.0 removed that had a run-time meaning, on the releases that lack them, as
Lightning 1.5.10 (the shim's reference release) read them.

``semantics.removed.SHIM_TAKES`` lists them (the codemod hands them to the shim where the shim builds the
Trainer); ``resume_from_checkpoint=`` is ``resume``'s. On a release whose ``Trainer.__init__`` has a keyword
it goes to the release itself; where the release lacks it, ``taken`` turns it into the keywords and callbacks
that build what 1.5.10 built (1.5.10 ``CallbackConnector.on_trainer_init``, in its order: checkpointing, SWA,
the progress bar, the model summary; ``LoggerConnector.on_trainer_init`` for the flushing):

- ``checkpoint_callback=c``: ``enable_checkpointing = c and enable_checkpointing``; 1.5.10 added a default
  ``ModelCheckpoint`` only where that ``is True`` and raised only where it ``is False`` (with a
  ``ModelCheckpoint`` in ``callbacks``, the very message 2.x raises), so any other value is checkpointing
  exactly where ``callbacks`` holds a ``ModelCheckpoint``. An object passed here was not used (1.5
  checkpointed with a default ``ModelCheckpoint``).
- ``progress_bar_refresh_rate=n``, ``process_position=p`` (with ``enable_progress_bar`` true): a progress bar
  in ``callbacks`` is used and both are ignored; else ``n`` (None: 20 where ``COLAB_GPU`` is set, else 1)
  above 0 appends ``TQDMProgressBar(refresh_rate=n, process_position=p)``, and any other adds no bar:
  ``enable_progress_bar=False``.
- ``weights_summary=w``: None adds no summary whatever ``enable_model_summary`` says
  (``enable_model_summary=False``); with ``enable_model_summary`` true and no ``ModelSummary`` in
  ``callbacks``, "full" appends ``ModelSummary(max_depth=-1)`` (``RichModelSummary`` where the bar is a
  ``RichProgressBar``), and a value neither "top" nor "full" raises 1.5.10's ``MisconfigurationException``.
- ``flush_logs_every_n_steps=n``: 1.5.10 called ``logger.save()`` on global rank zero after each training
  batch whose ``(global_step + 1) % n == 0`` (its ``global_step`` before that batch's increment: 2.x's
  ``_batches_that_stepped``), besides the saves 2.x makes too (after logging metrics, when stopping): a
  callback (``FlushLogs``) does it at the end of such a batch.
- ``stochastic_weight_avg=True``: prepends ``StochasticWeightAveraging()`` where ``callbacks`` holds none, on
  a release whose callback has a default ``swa_lrs`` (1.5, 1.6); 1.7 and later require it: the shim raises the
  reason (``SHIM_REFUSES``).
- ``move_metrics_to_cpu=True``: raises the reason (``SHIM_REFUSES``).

A keyword at its 1.x default (``keywords.KEYWORDS``: ``weights_summary="top"``, ``checkpoint_callback=None``,
``flush_logs_every_n_steps=100``, ...) is dropped, as the codemod drops it. Each other one warns once per
Trainer (rank zero), naming the modern spelling.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from typing import Any

from lightning_migrate.semantics.keywords import KEYWORDS
from lightning_migrate.semantics.removed import SHIM_REFUSES, SHIM_TAKES
from lightning_migrate.shim import runtime

RESUME = "resume_from_checkpoint"  # (``resume``'s)
KEYWORDS_TAKEN = frozenset(SHIM_TAKES) - {RESUME}
_PROGRESS = ("progress_bar_refresh_rate", "process_position")
COLAB_RATE = 20  # 1.5.10 `configure_progress_bar`: the rate where `COLAB_GPU` is set and none is given


@functools.cache
def _parameters(init: Callable[..., None]) -> frozenset[str]:
    return frozenset(inspect.signature(init).parameters)


def removed(init: Callable[..., None]) -> frozenset[str]:
    """The keywords of ``KEYWORDS_TAKEN`` the installed ``Trainer.__init__`` lacks."""
    return KEYWORDS_TAKEN - _parameters(init)


def at_default(keyword: str, value: Any) -> bool:
    return any(type(value) is type(d) and value == d for d in KEYWORDS[keyword][2])


def message(keyword: str, value: Any) -> str:
    """The warning for ``keyword=value`` taken by the shim: the release that removed it, the modern
    spelling."""
    gone = KEYWORDS[keyword][1]
    assert gone is not None
    return (
        f"`Trainer({keyword}={value!r})` was removed in Lightning {gone.major}.{gone.minor}: the runtime shim"
        f" reads it as Lightning 1.5 did. Use {SHIM_TAKES[keyword]} instead."
    )


def refused(keyword: str, value: Any, namespace: str) -> BaseException:
    """The installed release's ``MisconfigurationException`` for a value the shim cannot build."""
    gone = KEYWORDS[keyword][1]
    assert gone is not None
    said = (
        f"`Trainer({keyword}={value!r})` was removed in Lightning {gone.major}.{gone.minor}, and the runtime"
        f" shim cannot build what Lightning 1.5 built from it: {SHIM_REFUSES[keyword]}. Use"
        f" {SHIM_TAKES[keyword]} instead."
    )
    cls: type[BaseException] = runtime.load(namespace).utilities.exceptions.MisconfigurationException
    return cls(said)


def taken(
    namespace: str, init: Callable[..., None], kwargs: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """``kwargs`` for ``init`` with the removed keywords it lacks turned into what builds 1.5.10's setup, and
    the warnings to give (one per keyword not at its default). Raises where the shim cannot build it."""
    gone = removed(init) & kwargs.keys()
    if not gone:
        return kwargs, []
    rest = {k: v for k, v in kwargs.items() if k not in gone}
    given = {k: kwargs[k] for k in kwargs if k in gone and not at_default(k, kwargs[k])}
    if not given:
        return rest, []
    callbacks = rest.get("callbacks")
    lightning = runtime.load(namespace).callbacks
    items = (
        []
        if callbacks is None
        else [callbacks]
        if isinstance(callbacks, lightning.Callback)
        else list(callbacks)
    )
    first: list[Any] = []
    last: list[Any] = []
    if given.get("move_metrics_to_cpu"):
        raise refused("move_metrics_to_cpu", given["move_metrics_to_cpu"], namespace)
    if "checkpoint_callback" in given:
        _checkpointing(rest, given["checkpoint_callback"], items, lightning)
    if given.get("stochastic_weight_avg"):
        swa = lightning.StochasticWeightAveraging
        if not any(isinstance(c, swa) for c in items):
            if inspect.signature(swa).parameters["swa_lrs"].default is inspect.Parameter.empty:
                raise refused("stochastic_weight_avg", given["stochastic_weight_avg"], namespace)
            first.append(swa())
    bar = _progress_bar(rest, kwargs, given, items, last, lightning)
    if "weights_summary" in given:
        _model_summary(rest, given["weights_summary"], items, bar, last, lightning, namespace)
    if "flush_logs_every_n_steps" in given:
        last.append(flush_logs(namespace)(given["flush_logs_every_n_steps"]))
    if first or last:
        rest["callbacks"] = [*first, *items, *last]
    return rest, [message(k, v) for k, v in given.items()]


def _enabled(rest: dict[str, Any], flag: str) -> Any:
    """An `enable_*` flag of the call: 1.5.10's default True where not given, and where None (2.x's
    `Optional[bool] = None`, which it reads as True, and `from_argparse_args` passes)."""
    value = rest.get(flag)
    return True if value is None else value


def _checkpointing(rest: dict[str, Any], value: Any, items: list[Any], lightning: Any) -> None:
    """1.5.10 `_configure_checkpoint_callbacks`: `enable_checkpointing = checkpoint_callback and
    enable_checkpointing`, a default `ModelCheckpoint` added where it `is True`, a raise where it `is
    False`."""
    enabled = value and _enabled(rest, "enable_checkpointing")
    if not isinstance(enabled, bool):  # (neither added nor raised: the `ModelCheckpoint`s given, if any)
        enabled = any(isinstance(c, lightning.ModelCheckpoint) for c in items)
    rest["enable_checkpointing"] = enabled


def _progress_bar(
    rest: dict[str, Any],
    kwargs: dict[str, Any],
    given: dict[str, Any],
    items: list[Any],
    last: list[Any],
    lightning: Any,
) -> Any:
    """1.5.10 `configure_progress_bar` where a progress keyword is given; the bar 1.5.10 used (for the
    summary's class), or None."""
    if not _enabled(rest, "enable_progress_bar"):
        return None
    base = getattr(lightning, "ProgressBarBase", None) or lightning.ProgressBar  # (1.x / 2.x)
    bars = [c for c in items if isinstance(c, base)]
    if bars or not any(k in given for k in _PROGRESS):
        return bars[0] if len(bars) == 1 else None  # (several: the release raises 1.5.10's error)
    rate = kwargs.get("progress_bar_refresh_rate")
    if os.getenv("COLAB_GPU") and rate is None:
        rate = COLAB_RATE
    rate = 1 if rate is None else rate
    if rate > 0:
        bar = lightning.TQDMProgressBar(refresh_rate=rate, process_position=kwargs.get("process_position", 0))
        last.append(bar)
        return bar
    rest["enable_progress_bar"] = False
    return None


SUMMARY_MODES = {"top": 1, "full": -1}  # 1.5.10 `ModelSummaryMode.get_max_depth`


def _model_summary(
    rest: dict[str, Any],
    value: Any,
    items: list[Any],
    bar: Any,
    last: list[Any],
    lightning: Any,
    namespace: str,
) -> None:
    """1.5.10 `_configure_model_summary_callback`."""
    if value is None:
        rest["enable_model_summary"] = False
        return
    if not _enabled(rest, "enable_model_summary") or any(
        isinstance(c, lightning.ModelSummary) for c in items
    ):
        return
    if value not in SUMMARY_MODES:
        exceptions = runtime.load(namespace).utilities.exceptions
        # (1.5.10 passes its message in two parts)
        raise exceptions.MisconfigurationException(
            f"`weights_summary` can be None, {', '.join(SUMMARY_MODES)}", f" but got {value}"
        )
    rich = isinstance(bar, lightning.RichProgressBar)
    summary = lightning.RichModelSummary if rich else lightning.ModelSummary
    last.append(summary(max_depth=SUMMARY_MODES[value]))


# --- `flush_logs_every_n_steps=`: a callback of the installed release's namespace -------------------------

_FLUSH = {"pytorch_lightning": "FlushLogs", "lightning.pytorch": "FlushLogsLightning"}
_flush_classes: dict[str, type] = {}


def flush_logs(namespace: str) -> type:
    """The callback class that saves the loggers as 1.5.10's ``flush_logs_every_n_steps`` did, for
    ``namespace`` (a module attribute of this module, so that a spawn launcher can pickle it)."""
    callback: Any = runtime.load(namespace).callbacks.Callback
    if namespace not in _flush_classes or _flush_classes[namespace].__bases__ != (callback,):
        name = _FLUSH[namespace]

        def __init__(self: Any, every_n_steps: int) -> None:
            callback.__init__(self)
            self.every_n_steps = every_n_steps

        def on_train_batch_end(self: Any, trainer: Any, *args: Any, **kwargs: Any) -> None:
            loop = trainer.fit_loop.epoch_loop  # (1.5.10's `global_step` here)
            step = (
                loop._batches_that_stepped if hasattr(loop, "_batches_that_stepped") else trainer.global_step
            )
            if (step + 1) % self.every_n_steps == 0 and trainer.is_global_zero:
                for logger in trainer.loggers:
                    logger.save()

        methods = {"__init__": __init__, "on_train_batch_end": on_train_batch_end, "__module__": __name__}
        _flush_classes[namespace] = type(name, (callback,), {**methods, "__qualname__": name})
    return _flush_classes[namespace]


def __getattr__(name: str) -> Any:
    for namespace, class_name in _FLUSH.items():
        if name == class_name:
            return flush_logs(namespace)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
