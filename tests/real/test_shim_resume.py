"""`Trainer(resume_from_checkpoint=path)` through the shim on a real release: what 1.x did, on every release.

1.x (1.5.10 and 1.9.5 `_fit_impl`: ``ckpt_path = ckpt_path or self.resume_from_checkpoint``; `resume_end`
forgets the path once a fit restored from it) resumes each `fit` without a ``ckpt_path=`` from the path until
one has restored it. 2.0 removed the keyword; the shim keeps it (`lightning_migrate/shim/resume.py`). On a
1.x release the keyword goes to the release itself: the same tests check that the shim's reading is 1.x's.
Real single-process CPU training of a tiny model; the step a `fit` starts from says where it resumed.
"""

from __future__ import annotations

import argparse
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
REMOVED = Version(2, 0) <= RELEASE
FIT_CKPT_PATH = Version(1, 5) <= RELEASE  # `fit(ckpt_path=)` and `trainer.resume_from_checkpoint` came in 1.5
SHIM_WARNING = "`Trainer(resume_from_checkpoint="


def resumed(steps: int) -> int:
    """The global step a fit restored from the checkpoint saved after ``steps`` steps starts at: 1.4.9 and
    1.5.10 saved a finished run's step plus one (`CheckpointConnector.dump_checkpoint`: ``global_step += 1``),
    1.6.5 the step itself."""
    return steps + 1 if Version(1, 6) > RELEASE else steps


def shim() -> Any:
    return importlib.import_module(SHIM_MODULE)


def quiet() -> dict[str, Any]:
    if Version(1, 5) > RELEASE:
        return {"checkpoint_callback": False, "weights_summary": None, "progress_bar_refresh_rate": 0}
    return {"enable_checkpointing": False, "enable_model_summary": False, "enable_progress_bar": False}


def module(seed: int) -> Any:
    """A tiny LightningModule whose ``started`` is the global step its last `fit` started training from."""
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    pl = harness.lightning()

    class Tiny(pl.LightningModule):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(seed)
            self.layer = nn.Linear(4, 1)
            self.started: int | None = None

        def training_step(self, batch: Any, batch_idx: int) -> Any:
            x, y = batch
            return nn.functional.mse_loss(self.layer(x), y)

        def configure_optimizers(self) -> Any:
            return torch.optim.SGD(self.parameters(), lr=0.1)

        def train_dataloader(self) -> Any:
            generator = torch.Generator().manual_seed(0)
            data = TensorDataset(
                torch.randn(64, 4, generator=generator), torch.randn(64, 1, generator=generator)
            )
            return DataLoader(data, batch_size=8)

        def forward(self, x: Any) -> Any:
            return self.layer(x)

        def predict_step(self, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> Any:
            return self(batch[0])

        def on_train_start(self) -> None:
            self.started = self.trainer.global_step

    return Tiny()


def weights(model: Any) -> list[float]:
    return [float(v) for v in model.layer.weight.detach().flatten()]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[int, str]:
    """Checkpoints after 2 and after 3 training steps (a real Trainer of the release, no shim)."""
    root = tmp_path_factory.mktemp("resume")
    out = {}
    for steps in (2, 3):
        trainer = _trainer(harness.lightning().Trainer, root, max_steps=steps)
        with _quietly():
            trainer.fit(module(seed=steps))
        path = root / f"step{steps}.ckpt"
        trainer.save_checkpoint(str(path))
        out[steps] = str(path)
    return out


def _trainer(cls: Any, root: Path, **flags: Any) -> Any:
    with harness.simulated(Hardware()), _quietly():
        return cls(default_root_dir=str(root), logger=False, **quiet(), **flags)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path


@contextlib.contextmanager
def _quietly() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def fit(trainer: Any, model: Any, **kwargs: Any) -> int | None:
    with harness.simulated(Hardware()), _quietly():
        trainer.fit(model, **kwargs)
    started: int | None = model.started
    return started


def test_the_first_fit_resumes_from_the_path_and_a_second_does_not(
    root: Path, checkpoints: dict[int, str]
) -> None:
    with harness.simulated(Hardware()), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer = shim().Trainer(
            resume_from_checkpoint=checkpoints[2],
            max_steps=4,
            default_root_dir=str(root),
            logger=False,
            **quiet(),
        )
    said = [str(w.message) for w in caught if str(w.message).startswith(SHIM_WARNING)]
    assert len(said) == (1 if REMOVED else 0), said  # (1.x: the release's own warning, from 1.5)
    if REMOVED:
        assert "trainer.fit(ckpt_path=...)" in said[0]
        assert caught[[str(w.message) for w in caught].index(said[0])].filename == __file__
    assert fit(trainer, module(seed=10)) == resumed(2)
    assert trainer.global_step == 4
    if FIT_CKPT_PATH:  # (1.4 has no `trainer.resume_from_checkpoint`)
        with _quietly():
            assert trainer.resume_from_checkpoint is None  # restored: forgotten
    again = module(seed=11)
    before = weights(again)
    fit(trainer, again)  # max_steps reached: no step; and no restore either
    assert weights(again) == before


@pytest.mark.skipif(not FIT_CKPT_PATH, reason="fit(ckpt_path=) came in 1.5")
def test_fit_ckpt_path_wins_and_leaves_the_path_for_the_next_fit(
    root: Path, checkpoints: dict[int, str]
) -> None:
    trainer = _trainer(shim().Trainer, root, resume_from_checkpoint=checkpoints[2], max_steps=6)
    assert fit(trainer, module(seed=10), ckpt_path=checkpoints[3]) == resumed(3)
    with _quietly():
        assert trainer.resume_from_checkpoint == checkpoints[2]
    assert fit(trainer, module(seed=11)) == resumed(2)  # 1.x: the path still resumes the next fit
    with _quietly():
        assert trainer.resume_from_checkpoint is None


@pytest.mark.skipif(not FIT_CKPT_PATH, reason="1.4 forgot the path at the end of any run, predict's too")
def test_predict_does_not_read_the_path(root: Path, checkpoints: dict[int, str]) -> None:
    trainer = _trainer(shim().Trainer, root, resume_from_checkpoint=checkpoints[2], max_steps=4)
    model = module(seed=10)
    before = weights(model)
    with harness.simulated(Hardware()), _quietly():
        trainer.predict(model, dataloaders=model.train_dataloader())
    assert weights(model) == before
    with _quietly():
        assert trainer.resume_from_checkpoint == checkpoints[2]
    assert fit(trainer, model) == resumed(2)


def test_installed_the_release_trainer_takes_it_and_uninstall_restores_the_class(
    root: Path, checkpoints: dict[int, str]
) -> None:
    pl = harness.lightning()
    before = dict(vars(pl.Trainer))
    with shim().installed():
        trainer = _trainer(pl.Trainer, root, resume_from_checkpoint=checkpoints[2], max_steps=4)
        assert type(trainer) is pl.Trainer
        assert fit(trainer, module(seed=10)) == resumed(2)
    assert dict(vars(pl.Trainer)) == before


def test_the_shims_command_line_takes_it(root: Path, checkpoints: dict[int, str]) -> None:
    parser = shim().add_argparse_args(argparse.ArgumentParser())
    words = ["--resume_from_checkpoint", checkpoints[2], "--max_steps", "4", "--default_root_dir", str(root)]
    args = shim().parse_argparser(parser.parse_args(words))
    with harness.simulated(Hardware()), _quietly():
        trainer = shim().from_argparse_args(harness.lightning().Trainer, args, logger=False, **quiet())
    assert fit(trainer, module(seed=10)) == resumed(2)
