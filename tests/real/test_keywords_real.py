"""The keywords beside the model's (LM007) on the real release installed here (the target): a call written
for 1.4 with the keywords Lightning renamed is migrated for this release, and the real Trainer must accept
the migrated call and build what 1.4 built from the old one (no progress bar, no model summary, no
checkpointing, data loaders reloaded every epoch)."""

from __future__ import annotations

import ast
import importlib
import warnings

import harness
import pytest

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.semantics import Version

pytestmark = pytest.mark.real

OLD = (
    "import pytorch_lightning as pl\n\n"
    "pl.Trainer(progress_bar_refresh_rate=0, weights_summary=None, checkpoint_callback=False,"
    " reload_dataloaders_every_epoch=True, logger=False)\n"
)


def _keywords(code: str) -> dict[str, object]:
    call = next(node for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Call))
    return {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg is not None}


def test_renamed_keywords_build_what_the_old_ones_built() -> None:
    version = Version.parse(harness.release())
    result = migrate(OLD, Version(version.major, version.minor))
    flags = _keywords(result.code)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer = harness.lightning().Trainer(**flags)  # (a keyword it rejects: TypeError)
    assert trainer.progress_bar_callback is None
    assert trainer.checkpoint_callback is None
    assert trainer.reload_dataloaders_every_n_epochs == 1
    if "enable_model_summary" in flags:
        summary = importlib.import_module(f"{harness.lightning().__name__}.callbacks").ModelSummary
        assert not any(isinstance(c, summary) for c in trainer.callbacks)
