"""One before/after example per rule, copied from the golden fixtures (which are not in the wheel) so that
``lightning-migrate explain`` can show them; ``tests/test_explain.py`` proves each equals its fixture pair and
that the codemod really reports the rule on it. For a rule the codemod does not fix, the example shows what
to do: the run with a flag that fixes it (``flags``), or the code a person writes instead, then migrated
(``edited``); the tests run the command line on each."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Example:
    fixture: str  # fixtures/<folder>/<case>, without ".py"; "" for an example that is not a fixture
    target: str  # the release it is migrated to
    before: str
    after: str | None  # None: the codemod leaves the code as it is and reports why
    flags: tuple[str, ...] = ()  # the options of the run that gives ``after`` (what to do about a finding)
    edited: str | None = None  # what a person writes instead of ``before``, which the codemod migrates


EXAMPLES: dict[str, Example] = {
    "LM001": Example(
        "accelerator_training_type/alias_import",
        "1.5",
        """\
from pytorch_lightning import Trainer as T

T(accelerator="dp", gpus=2)
""",
        """\
from pytorch_lightning import Trainer as T

T(strategy="dp", gpus=2)
""",
    ),
    "LM002": Example(
        "distributed_backend/dp_gpus",
        "1.5",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(distributed_backend="dp", gpus=2)
""",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(strategy="dp", gpus=2)
""",
    ),
    "LM003": Example(
        "strategy_in_plugins/plugin_string",
        "1.6",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(gpus=2, plugins="ddp_sharded")
""",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(gpus=2, strategy="ddp_sharded")
""",
    ),
    "LM004": Example(
        "namespaces/lightning_L",
        "1.9",
        """\
import lightning as L

trainer = L.Trainer(gpus=2)
""",
        """\
import lightning as L

trainer = L.Trainer(accelerator="cuda", devices=2)
""",
    ),
    "LM005": Example(
        "strategy_in_plugins/plugin_object",
        "1.6",
        """\
import pytorch_lightning as pl
from pytorch_lightning.plugins import DDPPlugin

trainer = pl.Trainer(gpus=4, plugins=DDPPlugin(find_unused_parameters=False))
""",
        """\
import pytorch_lightning as pl
from pytorch_lightning.strategies import DDPStrategy

trainer = pl.Trainer(gpus=4, strategy=DDPStrategy(find_unused_parameters=False))
""",
    ),
    "LM006": Example(
        "accelerator_training_type/conflict_equal_names",
        "2.6",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(accelerator="ddp", strategy="ddp", gpus=2)
""",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(strategy="ddp_find_unused_parameters_true", accelerator="cuda", devices=2)
""",
    ),
    "LM007": Example(
        "removed_keywords/renamed_keywords",
        "2.6",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(
    gpus=2,
    replace_sampler_ddp=False,
    progress_bar_refresh_rate=0,
    weights_summary=None,
)
""",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(
    accelerator="cuda",
    devices=2,
    strategy="ddp_spawn_find_unused_parameters_true",
    use_distributed_sampler=False,
    enable_progress_bar=False,
    enable_model_summary=False,
)
""",
    ),
    "LM008": Example(
        "cli_api/moved_import",
        "2.6",
        """\
from pytorch_lightning.utilities.cli import LightningCLI

from comer.datamodule import CROHMEDatamodule
from comer.lit_comer import LitCoMER

cli = LightningCLI(
    LitCoMER,
    CROHMEDatamodule,
    save_config_overwrite=True,
)
""",
        """\
from pytorch_lightning.cli import LightningCLI

from comer.datamodule import CROHMEDatamodule
from comer.lit_comer import LitCoMER

cli = LightningCLI(
    LitCoMER,
    CROHMEDatamodule,
    save_config_kwargs={"overwrite": True},
)
""",
    ),
    "LM100": Example(
        "distributed_backend/upper_case",
        "2.6",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(distributed_backend="DDP", gpus=2)
""",
        None,
    ),
    "LM101": Example(
        "negatives/runtime_values",
        "2.6",
        """\
import pytorch_lightning as pl


def main(args):
    return pl.Trainer(accelerator=args.accelerator, gpus=args.gpus)
""",
        """\
import pytorch_lightning as pl
import lightning_migrate.shim


def main(args):
    return lightning_migrate.shim.Trainer(accelerator=args.accelerator, gpus=args.gpus)
""",
        flags=("--shim",),
    ),
    "LM102": Example(
        "refusals/gpus_string_ambiguous",
        "2.6",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(gpus="2")
""",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(accelerator="cuda", devices=2, strategy="ddp_spawn_find_unused_parameters_true")
""",
        flags=("--source-version", "1.5"),
    ),
    "LM103": Example(
        "refusals/gpus_all_for_2x",
        "2.6",
        """\
import pytorch_lightning as pl
from utils import *

trainer = pl.Trainer(gpus=-1)
""",
        """\
import pytorch_lightning as pl
from utils import *

trainer = pl.Trainer(accelerator="cuda", devices=-1)
""",
        flags=("--unsafe-fixes",),
    ),
    "LM104": Example(
        "refusals/num_nodes_none_1x",
        "2.6",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(accelerator="ddp", gpus=2, num_nodes=None)
""",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(strategy="ddp_find_unused_parameters_true", accelerator="cuda", devices=2, num_nodes=1)
""",
        edited="""\
import pytorch_lightning as pl

trainer = pl.Trainer(accelerator="ddp", gpus=2, num_nodes=1)
""",
    ),
    "LM105": Example(
        "argparse_namespaces/parse_argparser",
        "2.6",
        """\
import argparse

from pytorch_lightning import Trainer

parser = argparse.ArgumentParser()
parser = Trainer.add_argparse_args(parser)
args = Trainer.parse_argparser(parser)
trainer = Trainer.from_argparse_args(args)
""",
        """\
import argparse

from pytorch_lightning import Trainer
import lightning_migrate.shim

parser = argparse.ArgumentParser()
parser = lightning_migrate.shim.add_argparse_args(parser)
args = lightning_migrate.shim.parse_argparser(parser)
trainer = lightning_migrate.shim.from_argparse_args(Trainer, args)
""",
        flags=("--shim",),
    ),
    "LM900": Example(
        "",
        "2.6",
        """\
import pytorch_lightning as pl

trainer = pl.Trainer(max_epochs=3)  # noqa: LM004
""",
        None,
    ),
}
