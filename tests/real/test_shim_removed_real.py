"""The removed Trainer keywords the shim takes (`lightning_migrate/shim/removed.py`) on a real release: the
callbacks and keywords the Trainer gets, and a real single-process CPU training of a tiny model.

From 1.5 the same tests run on the release itself (1.5 and 1.6 take the keywords; 1.7-1.9 lack most of them,
2.0 the rest): what the shim builds where the release lacks a keyword must be what 1.5.10 and 1.6.5 built
themselves. 1.4 (no `ModelSummary` callback, no `enable_*` flags) is skipped.
"""

from __future__ import annotations

import contextlib
import importlib
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import harness
import pytest

from lightning_migrate.semantics import Hardware, Version

pytestmark = pytest.mark.real

SHIM_MODULE = (
    "lightning_migrate.shim.lightning" if harness.ROOT == "lightning.pytorch" else "lightning_migrate.shim"
)
RELEASE = Version.parse(harness.release())
GONE_1_7 = Version(1, 7) <= RELEASE  # checkpoint_callback, progress_bar_refresh_rate, weights_summary, ...
GONE_2_0 = Version(2, 0) <= RELEASE  # move_metrics_to_cpu
SWA_LRS_REQUIRED = Version(1, 7) <= RELEASE
SHIM_WARNING = "the runtime shim reads it as Lightning 1.5 did"

if Version(1, 5) > RELEASE:
    pytest.skip("1.4 has no ModelSummary callback and no `enable_*` flags", allow_module_level=True)


def shim() -> Any:
    return importlib.import_module(SHIM_MODULE)


def callbacks() -> Any:
    return importlib.import_module(f"{harness.ROOT}.callbacks")


def misconfiguration() -> type[BaseException]:
    exceptions = importlib.import_module(f"{harness.ROOT}.utilities.exceptions")
    cls: type[BaseException] = exceptions.MisconfigurationException
    return cls


def module() -> Any:
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    pl = harness.lightning()

    class Tiny(pl.LightningModule):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(0)
            self.layer = nn.Linear(4, 1)

        def training_step(self, batch: Any, batch_idx: int) -> Any:
            x, y = batch
            loss = nn.functional.mse_loss(self.layer(x), y)
            self.log("loss", loss)
            return loss

        def configure_optimizers(self) -> Any:
            return torch.optim.SGD(self.parameters(), lr=0.1)

        def train_dataloader(self) -> Any:
            generator = torch.Generator().manual_seed(0)
            data = TensorDataset(
                torch.randn(48, 4, generator=generator), torch.randn(48, 1, generator=generator)
            )
            return DataLoader(data, batch_size=8)

    return Tiny()


@contextlib.contextmanager
def _quietly() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def build(root: Path, cls: Any = None, **flags: Any) -> tuple[Any, list[str]]:
    """The Trainer and the shim's warnings."""
    flags.setdefault("logger", False)
    with harness.simulated(Hardware()), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer = (cls or shim().Trainer)(default_root_dir=str(root), max_steps=6, **flags)
    return trainer, [str(w.message) for w in caught if SHIM_WARNING in str(w.message)]


def fit(trainer: Any) -> None:
    with harness.simulated(Hardware()), _quietly():
        trainer.fit(module())
    assert trainer.global_step == 6


def of(trainer: Any, name: str) -> list[Any]:
    cls = getattr(callbacks(), name)
    return [c for c in trainer.callbacks if isinstance(c, cls)]


def test_full_summary_a_bar_s_rate_and_no_checkpointing(tmp_path: Path) -> None:
    trainer, said = build(
        tmp_path, weights_summary="full", progress_bar_refresh_rate=10, checkpoint_callback=False
    )
    (summary,) = of(trainer, "ModelSummary")
    assert summary._max_depth == -1
    (bar,) = of(trainer, "TQDMProgressBar")
    assert type(bar) is callbacks().TQDMProgressBar
    assert bar.refresh_rate == 10
    assert not of(trainer, "ModelCheckpoint")
    assert len(said) == (3 if GONE_1_7 else 0), said  # (1.5/1.6: the release's own warnings)
    fit(trainer)
    assert not list(tmp_path.rglob("*.ckpt"))


def test_no_summary_no_bar(tmp_path: Path) -> None:
    trainer, _ = build(tmp_path, weights_summary=None, progress_bar_refresh_rate=0)
    assert not of(trainer, "ModelSummary")
    assert not [c for c in trainer.callbacks if "ProgressBar" in type(c).__name__]
    fit(trainer)
    assert list(tmp_path.rglob("*.ckpt"))  # (checkpointing as by default)


def test_a_bar_given_is_used_and_the_rate_ignored(tmp_path: Path) -> None:
    given = callbacks().TQDMProgressBar(refresh_rate=7)
    trainer, _ = build(tmp_path, progress_bar_refresh_rate=0, callbacks=[given])
    (bar,) = of(trainer, "TQDMProgressBar")
    assert bar is given
    assert bar.refresh_rate == 7
    fit(trainer)


def test_an_object_in_checkpoint_callback_only_turns_checkpointing_on(tmp_path: Path) -> None:
    given = callbacks().ModelCheckpoint(dirpath=str(tmp_path / "given"))
    trainer, _ = build(tmp_path, checkpoint_callback=given)
    (checkpoint,) = of(trainer, "ModelCheckpoint")
    assert checkpoint is not given  # (1.5: a default ModelCheckpoint, the object unused)


def test_installed_and_from_argparse_args(tmp_path: Path) -> None:
    pl = harness.lightning()
    with shim().installed():
        trainer, _ = build(tmp_path, pl.Trainer, weights_summary="full")
    (summary,) = of(trainer, "ModelSummary")
    assert summary._max_depth == -1
    parser = shim().add_argparse_args(__import__("argparse").ArgumentParser())
    args = parser.parse_args(["--progress_bar_refresh_rate", "4", "--max_steps", "6"])
    with harness.simulated(Hardware()), _quietly():
        trainer = shim().from_argparse_args(pl.Trainer, args, logger=False, default_root_dir=str(tmp_path))
    (bar,) = of(trainer, "TQDMProgressBar")
    assert bar.refresh_rate == 4
    assert len(of(trainer, "ModelSummary")) == 1  # (`--weights_summary` at its default: the default one)


def test_flushing_saves_the_logger_as_1_5_did(tmp_path: Path) -> None:
    """1.5.10 saved the logger after each batch whose `(global_step + 1) % n == 0`: with n=2, 3 more saves
    over 6 steps than without (its default, 100, saves none of them); 2.x saves after logging too."""
    loggers = importlib.import_module(f"{harness.ROOT}.loggers")

    class Counting(loggers.CSVLogger):  # type: ignore[misc,name-defined]
        saves = 0

        def save(self) -> None:
            type(self).saves += 1
            super().save()

    counts = []
    for flags in ({}, {"flush_logs_every_n_steps": 2}):
        Counting.saves = 0
        logger = Counting(str(tmp_path / str(len(counts))))
        trainer, _ = build(tmp_path, logger=logger, log_every_n_steps=50, **flags)
        fit(trainer)
        counts.append(Counting.saves)
    assert counts[1] - counts[0] == 3, counts


def test_swa(tmp_path: Path) -> None:
    if SWA_LRS_REQUIRED:
        with pytest.raises(misconfiguration(), match="no tool can know before the run"):
            build(tmp_path, stochastic_weight_avg=True)
    else:  # (1.5/1.6: the release, whose `swa_lrs` has a default)
        trainer, _ = build(tmp_path, stochastic_weight_avg=True)
        assert type(trainer.callbacks[0]).__name__ == "StochasticWeightAveraging"
    given = callbacks().StochasticWeightAveraging(swa_lrs=0.05)
    trainer, _ = build(tmp_path, stochastic_weight_avg=True, callbacks=[given])
    assert of(trainer, "StochasticWeightAveraging") == [given]


def test_metrics_moved_to_the_cpu(tmp_path: Path) -> None:
    if GONE_2_0:
        with pytest.raises(misconfiguration(), match="no callback can reach"):
            build(tmp_path, move_metrics_to_cpu=True)
    else:
        trainer, _ = build(tmp_path, move_metrics_to_cpu=True)
        assert trainer.move_metrics_to_cpu is True
    trainer, said = build(tmp_path, move_metrics_to_cpu=False, stochastic_weight_avg=False)
    assert not said
    fit(trainer)
