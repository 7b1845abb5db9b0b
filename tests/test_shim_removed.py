"""The removed Trainer keywords the shim takes (`lightning_migrate/shim/removed.py`), against 1.5.10's rules
(`CallbackConnector.on_trainer_init`, `LoggerConnector.on_trainer_init`), on a fake Lightning namespace: the
keywords and callbacks the installed release gets. `tests/real/test_shim_removed_real.py` trains with real
releases."""

from __future__ import annotations

import pickle
import sys
import types
from typing import Any

import pytest

from lightning_migrate.semantics.keywords import KEYWORDS
from lightning_migrate.semantics.removed import SHIM_REFUSES, SHIM_TAKES
from lightning_migrate.shim import removed

NAMESPACE = "pytorch_lightning"


class Callback:
    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({vars(self)})"


class ModelCheckpoint(Callback):
    pass


class ProgressBar(Callback):  # 2.x's base (1.x: ProgressBarBase)
    pass


class TQDMProgressBar(ProgressBar):
    def __init__(self, refresh_rate: int = 1, process_position: int = 0) -> None:
        self.refresh_rate = refresh_rate
        self.process_position = process_position


class RichProgressBar(ProgressBar):
    pass


class ModelSummary(Callback):
    def __init__(self, max_depth: int = 1) -> None:
        self.max_depth = max_depth


class RichModelSummary(ModelSummary):
    pass


class StochasticWeightAveraging(Callback):  # 1.7 and later: `swa_lrs` required
    def __init__(self, swa_lrs: float, swa_epoch_start: float = 0.8) -> None:
        self.swa_lrs = swa_lrs


class OptionalSWA(Callback):  # 1.5's: `swa_lrs=None`
    def __init__(self, swa_lrs: float | None = None) -> None:
        self.swa_lrs = swa_lrs


class MisconfigurationException(Exception):
    pass


@pytest.fixture(autouse=True)
def lightning(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A fake `pytorch_lightning` with the callbacks the shim builds and checks."""
    module = types.ModuleType(NAMESPACE)
    module.callbacks = types.SimpleNamespace(  # type: ignore[attr-defined]
        Callback=Callback,
        ModelCheckpoint=ModelCheckpoint,
        ProgressBar=ProgressBar,
        TQDMProgressBar=TQDMProgressBar,
        RichProgressBar=RichProgressBar,
        ModelSummary=ModelSummary,
        RichModelSummary=RichModelSummary,
        StochasticWeightAveraging=StochasticWeightAveraging,
    )
    exceptions = types.SimpleNamespace(MisconfigurationException=MisconfigurationException)
    module.utilities = types.SimpleNamespace(exceptions=exceptions)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, NAMESPACE, module)
    monkeypatch.delenv("COLAB_GPU", raising=False)
    return module


def init_2x(
    self,
    logger=True,
    callbacks=None,
    enable_checkpointing=True,
    enable_progress_bar=True,
    enable_model_summary=True,
):  # type: ignore[no-untyped-def]
    pass


def init_15(
    self, callbacks=None, checkpoint_callback=None, progress_bar_refresh_rate=None, weights_summary="top"
):  # type: ignore[no-untyped-def]
    pass


def taken(**kwargs: Any) -> dict[str, Any]:
    return removed.taken(NAMESPACE, init_2x, kwargs)[0]


MC, BAR, RICH = ModelCheckpoint(), TQDMProgressBar(refresh_rate=5), RichProgressBar()

# (the call, what the 2.x release gets): 1.5.10's reading
CASES = [
    # checkpoint_callback: `enable_checkpointing = checkpoint_callback and enable_checkpointing`
    ({"checkpoint_callback": False}, {"enable_checkpointing": False}),
    ({"checkpoint_callback": False, "callbacks": [MC]}, {"enable_checkpointing": False, "callbacks": [MC]}),
    ({"checkpoint_callback": True, "enable_checkpointing": False}, {"enable_checkpointing": False}),
    ({"checkpoint_callback": MC}, {"enable_checkpointing": True}),  # (the object unused: a default one)
    ({"checkpoint_callback": 0}, {"enable_checkpointing": False}),  # (neither added nor raised)
    ({"checkpoint_callback": 0, "callbacks": [MC]}, {"enable_checkpointing": True, "callbacks": [MC]}),
    ({"checkpoint_callback": None}, {}),  # (at its default)
    # (2.x's `enable_*=None`, which `from_argparse_args` passes, is True, as 1.5's default)
    ({"checkpoint_callback": 1, "enable_checkpointing": None}, {"enable_checkpointing": True}),
    (
        {"progress_bar_refresh_rate": 2, "enable_progress_bar": None},
        {"enable_progress_bar": None, "callbacks": [TQDMProgressBar(2)]},
    ),
    (
        {"weights_summary": "full", "enable_model_summary": None},
        {"enable_model_summary": None, "callbacks": [ModelSummary(-1)]},
    ),
    # progress_bar_refresh_rate / process_position
    ({"progress_bar_refresh_rate": 10}, {"callbacks": [TQDMProgressBar(10)]}),
    ({"progress_bar_refresh_rate": 10, "process_position": 2}, {"callbacks": [TQDMProgressBar(10, 2)]}),
    ({"process_position": 1}, {"callbacks": [TQDMProgressBar(1, 1)]}),
    ({"progress_bar_refresh_rate": 0}, {"enable_progress_bar": False}),
    ({"progress_bar_refresh_rate": 0, "callbacks": [BAR]}, {"callbacks": [BAR]}),  # (the bar given: used)
    ({"progress_bar_refresh_rate": 10, "callbacks": BAR}, {"callbacks": BAR}),
    (
        {"progress_bar_refresh_rate": 10, "enable_progress_bar": False},
        {"enable_progress_bar": False},
    ),
    ({"progress_bar_refresh_rate": None}, {}),
    # weights_summary
    ({"weights_summary": None}, {"enable_model_summary": False}),
    ({"weights_summary": None, "enable_model_summary": True}, {"enable_model_summary": False}),
    ({"weights_summary": "full"}, {"callbacks": [ModelSummary(-1)]}),
    ({"weights_summary": "full", "callbacks": [RICH]}, {"callbacks": [RICH, RichModelSummary(-1)]}),
    ({"weights_summary": "full", "callbacks": [ModelSummary(2)]}, {"callbacks": [ModelSummary(2)]}),
    ({"weights_summary": "full", "enable_model_summary": False}, {"enable_model_summary": False}),
    ({"weights_summary": "top"}, {}),
    # both: the summary after the bar, the bar's class read (1.5.10's order)
    (
        {"weights_summary": "full", "progress_bar_refresh_rate": 3},
        {"callbacks": [TQDMProgressBar(3), ModelSummary(-1)]},
    ),
    # stochastic_weight_avg / move_metrics_to_cpu at their defaults, or an SWA given
    ({"stochastic_weight_avg": False, "move_metrics_to_cpu": False}, {}),
    (
        {"stochastic_weight_avg": True, "callbacks": [StochasticWeightAveraging(0.1)]},
        {"callbacks": [StochasticWeightAveraging(0.1)]},
    ),
    ({"flush_logs_every_n_steps": 100}, {}),
]


@pytest.mark.parametrize(("call", "gets"), CASES, ids=[repr(c) for c, _ in CASES])
def test_what_the_release_gets(call: dict[str, Any], gets: dict[str, Any]) -> None:
    assert taken(**call) == gets


def test_the_callbacks_given_are_not_changed() -> None:
    given = [MC]
    taken(weights_summary="full", callbacks=given)
    assert given == [MC]


def test_colab_without_a_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLAB_GPU", "1")
    assert taken(process_position=1) == {"callbacks": [TQDMProgressBar(20, 1)]}
    assert taken(progress_bar_refresh_rate=4) == {"callbacks": [TQDMProgressBar(4)]}


def test_a_release_with_the_keyword_gets_it() -> None:
    kwargs = {"checkpoint_callback": False, "weights_summary": None, "progress_bar_refresh_rate": 0}
    assert removed.taken(NAMESPACE, init_15, kwargs) == (kwargs, [])
    assert removed.removed(init_15) == removed.KEYWORDS_TAKEN - {
        "checkpoint_callback",
        "progress_bar_refresh_rate",
        "weights_summary",
    }


def test_one_warning_per_keyword_not_at_its_default() -> None:
    kwargs = {"weights_summary": "full", "process_position": 0, "checkpoint_callback": False}
    _, said = removed.taken(NAMESPACE, init_2x, kwargs)
    assert said == [removed.message("weights_summary", "full"), removed.message("checkpoint_callback", False)]
    assert said[0] == (
        "`Trainer(weights_summary='full')` was removed in Lightning 1.7: the runtime shim reads it as"
        " Lightning 1.5 did. Use `ModelSummary(max_depth=...)` in `callbacks=`, or"
        " `enable_model_summary=False` instead."
    )


def test_an_unknown_summary_mode_raises_as_1_5_did() -> None:
    with pytest.raises(MisconfigurationException) as raised:
        taken(weights_summary="deep")
    assert raised.value.args == ("`weights_summary` can be None, top, full", " but got deep")


def test_swa_where_the_release_requires_swa_lrs_raises_the_reason(lightning: types.ModuleType) -> None:
    with pytest.raises(MisconfigurationException, match="no tool can know before the run"):
        taken(stochastic_weight_avg=True)
    lightning.callbacks.StochasticWeightAveraging = OptionalSWA
    # (1.5.10: prepended where `callbacks` holds none)
    assert taken(stochastic_weight_avg=True, callbacks=[MC]) == {"callbacks": [OptionalSWA(), MC]}


def test_metrics_moved_to_the_cpu_raise_the_reason() -> None:
    with pytest.raises(MisconfigurationException, match=r"removed in Lightning 2\.0, and the runtime shim"):
        taken(move_metrics_to_cpu=True)


class Logger:
    def __init__(self) -> None:
        self.saves = 0

    def save(self) -> None:
        self.saves += 1


def test_flushing_saves_the_loggers_every_n_batches_that_stepped() -> None:
    (flush,) = taken(flush_logs_every_n_steps=3)["callbacks"]
    assert isinstance(flush, Callback)
    assert flush.every_n_steps == 3
    logger = Logger()
    loop = types.SimpleNamespace(_batches_that_stepped=0)
    trainer = types.SimpleNamespace(
        fit_loop=types.SimpleNamespace(epoch_loop=loop), is_global_zero=True, loggers=[logger]
    )
    saved = []
    for step in range(9):  # (1.5.10: `(global_step + 1) % n == 0`, before the batch's increment)
        loop._batches_that_stepped = step
        flush.on_train_batch_end(trainer, None, None, None, step)
        saved.append(logger.saves)
    assert saved == [0, 0, 1, 1, 1, 2, 2, 2, 3]
    trainer.is_global_zero = False
    loop._batches_that_stepped = 2
    flush.on_train_batch_end(trainer, None, None, None, 2)
    assert logger.saves == 3
    # (a spawn launcher pickles the Trainer's callbacks: the class is found by its module's name)
    assert pickle.loads(pickle.dumps(flush)).every_n_steps == 3


def test_the_table_is_the_releases() -> None:
    for keyword in SHIM_TAKES:  # (each removed by 2.0, with a default the shim drops)
        _, gone, defaults = KEYWORDS[keyword]
        assert gone is not None
        assert defaults
    assert set(SHIM_REFUSES) <= set(SHIM_TAKES)
    assert set(SHIM_TAKES) - {"resume_from_checkpoint"} == removed.KEYWORDS_TAKEN
