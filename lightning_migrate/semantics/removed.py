"""The Trainer keywords the model does not interpret that a release deprecates or removes, and what Lightning
says to use instead: one row per keyword (spec: each release's `rank_zero_deprecation` texts and CHANGELOG).
At the end, LightningCLI's own API that a release moved or removed (its module, registries and keywords).
Which releases accept a keyword is ``keywords.KEYWORDS`` (read from the wheels); the hardware keywords are
``signature.TRAINER_FLAGS``'s and are judged by the model, not here, but for the deprecation of three of them
that the planner leaves be (``DEPRECATED_MODELLED``: `auto_select_gpus=` and the apex flags in 1.8/1.9).

A row may name *renames*: a value of the old keyword that a keyword of the target takes with a value Lightning
documents as the same (``reload_dataloaders_every_epoch=True`` is ``reload_dataloaders_every_n_epochs=1``, the
very conversion 1.4/1.5 made). Each was checked against the releases' source; ``unless`` lists the keywords
whose presence in the same call changes what it means (1.5 checkpoints only if `checkpoint_callback and
enable_checkpointing`), and the rename is then left to the user. Every other use is reported as work left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lightning_migrate.semantics.keywords import KEYWORDS
from lightning_migrate.semantics.model import Value, Version, v


@dataclass(frozen=True)
class Rename:
    """``old=value`` means ``keyword=new`` in every release that has ``keyword`` (None: the keyword goes)."""

    value: Value
    keyword: str | None
    new: Value = None
    unless: tuple[str, ...] = ()  # keywords of the call that stop the rename (they change its meaning)


@dataclass(frozen=True)
class Gone:
    keyword: str
    deprecated: Version | None  # the release line that first warns for it (None: removed without a warning)
    advice: str  # what to do instead, in the release's own words where they are short
    renames: tuple[Rename, ...] = ()
    # where only some values are old (`max_steps=None`): those values, and the release line that rejects them
    values: tuple[Value, ...] = ()
    rejected: Version | None = None

    @property
    def removed(self) -> Version | None:
        """The first release line whose Trainer rejects it."""
        return self.rejected if self.values else KEYWORDS[self.keyword][1]

    def rename(self, value: Value) -> Rename | None:
        return next((r for r in self.renames if _same(r.value, value)), None)


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


_PROGRESS_BAR = "pass `TQDMProgressBar(refresh_rate=...)` in `callbacks=`, or `enable_progress_bar=False`"

GONE: tuple[Gone, ...] = (
    Gone(
        "checkpoint_callback",
        v("1.5"),
        '"Please consider using `Trainer(enable_checkpointing=...)`" (1.5)',
        # 1.5/1.6: `enable_checkpointing = checkpoint_callback and enable_checkpointing` (default True)
        (
            Rename(True, "enable_checkpointing", True, ("enable_checkpointing",)),
            Rename(False, "enable_checkpointing", False, ("enable_checkpointing",)),
        ),
    ),
    Gone(
        "progress_bar_refresh_rate",
        v("1.5"),
        _PROGRESS_BAR,
        # 0 adds no progress bar (1.4-1.6); `enable_progress_bar=False` neither, but raises where `callbacks`
        # hold one, which refresh rate 0 kept
        (Rename(0, "enable_progress_bar", False, ("enable_progress_bar", "callbacks")),),
    ),
    Gone(
        "process_position",
        v("1.5"),
        "pass `TQDMProgressBar(process_position=...)` in `callbacks=`",
    ),
    Gone(
        "weights_summary",
        v("1.5"),
        '"Please set `Trainer(enable_model_summary=False)`" for None, else pass'
        " `ModelSummary(max_depth=...)` in `callbacks=`",
        # 1.5/1.6 return before adding a summary for None, as they do for `enable_model_summary=False`
        (Rename(None, "enable_model_summary", False, ("enable_model_summary",)),),
    ),
    Gone(
        "reload_dataloaders_every_epoch",
        v("1.4"),
        '"Please use `reload_dataloaders_every_n_epochs` in Trainer" (1.4)',
        # 1.4/1.5: `reload_dataloaders_every_n_epochs = int(reload_dataloaders_every_epoch)` when it is true
        (Rename(True, "reload_dataloaders_every_n_epochs", 1, ("reload_dataloaders_every_n_epochs",)),),
    ),
    Gone(
        "resume_from_checkpoint",
        v("1.5"),
        '"Please pass `Trainer.fit(ckpt_path=)` directly instead" (1.5)',
    ),
    Gone(
        "flush_logs_every_n_steps",
        v("1.5"),
        '"Please configure flushing in the logger instead" (1.5): the logger\'s `flush_logs_every_n_steps`',
    ),
    Gone(
        "log_gpu_memory",
        v("1.5"),
        '"Please monitor GPU stats with the `DeviceStatsMonitor` callback directly instead" (1.5)',
    ),
    Gone(
        "terminate_on_nan",
        v("1.5"),
        '"Please use `Trainer(detect_anomaly=True)` instead" (1.5; it checks the backward pass, not the'
        " loss)",
    ),
    Gone(
        "stochastic_weight_avg",
        v("1.5"),
        '"Please pass `StochasticWeightAveraging` directly to the Trainer\'s `callbacks` argument instead"'
        " (1.5)",
    ),
    Gone(
        "prepare_data_per_node",
        v("1.5"),
        '"Please set `prepare_data_per_node` in `LightningDataModule` and/or `LightningModule`" (1.5)',
    ),
    Gone(
        "weights_save_path",
        v("1.6"),
        '"Please pass ``dirpath`` directly to the `ModelCheckpoint` callback" (1.6)',
    ),
    Gone(
        "truncated_bptt_steps",
        v("1.3"),
        '"Set truncated_bptt_steps directly on the LightningModule instead" (1.3)',
    ),
    Gone(
        "move_metrics_to_cpu",
        None,
        "2.0 keeps logged metrics on their device; move them to the CPU in your LightningModule if needed",
    ),
    Gone(
        "multiple_trainloader_mode",
        None,
        "return `CombinedLoader(loaders, mode=...)` from `train_dataloader()` (2.0)",
    ),
    Gone(
        "track_grad_norm",
        None,
        "override `on_before_optimizer_step` and log `lightning.pytorch.utilities.grad_norm(self, norm_type)`"
        " (2.0)",
    ),
    Gone("auto_lr_find", None, "use `Tuner(trainer).lr_find(model)` (2.0)"),
    Gone("auto_scale_batch_size", None, "use `Tuner(trainer).scale_batch_size(model)` (2.0)"),
    Gone(
        "max_steps",
        v("1.5"),
        '"Use `max_steps = -1` instead" (1.5; with neither `max_epochs` nor `max_steps`, 1.4 stopped after'
        " 1000 epochs and 1.5/1.6 with `max_steps=None` never did: set `max_epochs` too)",
        values=(None,),
        rejected=v("1.7"),
    ),
)

# Hardware keywords the model reads whose deprecation the planner leaves be (it keeps them as written where it
# rewrites a call): the releases that deprecate them warn for every value the user sets (1.9.5's
# `AcceleratorConnector`: `auto_select_gpus is not None`, `amp_type is not None`, `amp_level is not None`;
# 1.8.6's for `amp_level is not None`), and 2.0 removes them, where the planner drops or reports them. Until
# then they are reported here like the rows above, never fixed: a value at an older release's default
# (`auto_select_gpus=False`, `amp_backend="native"`, `amp_level="O2"`: what a config of every flag lists) is
# passed over, as a deprecated keyword at its default is.
DEPRECATED_MODELLED: tuple[Gone, ...] = (
    Gone(
        "auto_select_gpus",
        v("1.9"),
        '"Please use the function `pytorch_lightning.accelerators.find_usable_cuda_devices` instead" (1.9):'
        " `devices=find_usable_cuda_devices(n)` in place of `gpus=n, auto_select_gpus=True`",
    ),
    Gone(
        "amp_backend",
        v("1.9"),
        '"The NVIDIA/apex AMP implementation has been deprecated upstream" (1.9): without `amp_backend=`,'
        " 1.9 trains with PyTorch's native AMP, and 2.0 has no apex",
    ),
    Gone(
        "amp_level",
        v("1.8"),
        '"Please set it inside the specific precision plugin and pass it to the `Trainer`" (1.8):'
        " `plugins=ApexMixedPrecisionPlugin(amp_level=...)`, which 1.9 deprecates too (2.0 has no apex)",
    ),
)

BY_KEYWORD: dict[str, Gone] = {row.keyword: row for row in (*GONE, *DEPRECATED_MODELLED)}


# Keywords of the Trainer of Lightning 0.x that no release the model knows (1.4 on) takes: a call that passes
# one raises TypeError on every one of them, whatever else it passes. Each with what replaced it (the 0.x
# changelogs' renames); reported, never fixed (the code was written for a release the model does not know).
ANCIENT: dict[str, str] = {
    "early_stop_callback": "pass `EarlyStopping(...)` in `callbacks=`",
    "row_log_interval": "it was renamed `log_every_n_steps`",
    "log_save_interval": "it was renamed `flush_logs_every_n_steps` (gone in 1.7)",
    "val_percent_check": "it was renamed `limit_val_batches`",
    "train_percent_check": "it was renamed `limit_train_batches`",
    "test_percent_check": "it was renamed `limit_test_batches`",
    "overfit_pct": "it was renamed `overfit_batches`",
    "max_nb_epochs": "it was renamed `max_epochs`",
    "min_nb_epochs": "it was renamed `min_epochs`",
    "nb_sanity_val_steps": "it was renamed `num_sanity_val_steps`",
    "nb_gpu_nodes": "it was renamed `num_nodes`",
    "num_tpu_cores": "it was renamed `tpu_cores`",
    "default_save_path": "it was renamed `default_root_dir`",
    "show_progress_bar": "use `enable_progress_bar=` (1.5 on)",
    "use_amp": "pass `precision=16`",
    "gradient_clip": "it was renamed `gradient_clip_val`",
    "enable_pl_optimizer": "remove it (the optimizer is always wrapped)",
    "automatic_optimization": "set `automatic_optimization` on the LightningModule",
}


# --- LightningCLI's own API ---------------------------------------------------------------------------------
# Read from the wheels (1.4.9 to 2.6.6, lightning 2.6.6: `utilities/cli.py`, `cli.py`, `_graveyard/cli.py`);
# `tests/test_cli_api.py` checks the rows against each other, `tests/real/test_cli_api_real.py` against
# the installed release. The module that builds a LightningCLI, `<root>.utilities.cli` (1.3), moved to
# `<root>.cli` in 1.7; 1.7 and 1.8 keep the old one as deprecated aliases ("Use the equivalent class in
# `pytorch_lightning.cli.<name>` instead"), 1.9 keeps only stubs of its four classes that raise
# NotImplementedError when used ("no longer supported as of v1.9.0"), 2.0 has no such module.
OLD_CLI_MODULE = "utilities.cli"
CLI_MODULE = "cli"
CLI_MODULE_SINCE = v(
    "1.7"
)  # the first release line with `<root>.cli`, and the first to deprecate the old one
OLD_CLI_MODULE_REMOVED = v("1.9")  # the first whose old module fails where it is used

# A public name of the old module -> the module (under the package root) that holds the same object in every
# release line from `CLI_MODULE_SINCE` on: the four that 1.7 aliased to `cli`, the ReduceLROnPlateau subclass
# 1.6 defined there (moved to `cli` with them), and the LR scheduler types 1.5/1.6 imported from
# `utilities.types` (which still defines them in 2.6).
CLI_MOVED: dict[str, str] = {
    "LightningCLI": CLI_MODULE,
    "LightningArgumentParser": CLI_MODULE,
    "SaveConfigCallback": CLI_MODULE,
    "instantiate_class": CLI_MODULE,
    "ReduceLROnPlateau": CLI_MODULE,
    "LRSchedulerType": "utilities.types",
    "LRSchedulerTypeTuple": "utilities.types",
    "LRSchedulerTypeUnion": "utilities.types",
}

# LightningCLI's registries (1.5; LOGGER_REGISTRY 1.6), deprecated in 1.7 with nothing in their place and gone
# from 1.9 (the name no longer imports): "Now any imported subclass is automatically available by name in
# `LightningCLI` without any need to explicitly register it" (1.7).
CLI_REGISTRIES: dict[str, Version] = {
    "OPTIMIZER_REGISTRY": v("1.5"),
    "LR_SCHEDULER_REGISTRY": v("1.5"),
    "CALLBACK_REGISTRY": v("1.5"),
    "MODEL_REGISTRY": v("1.5"),
    "DATAMODULE_REGISTRY": v("1.5"),
    "LOGGER_REGISTRY": v("1.6"),
}
REGISTRIES_DEPRECATED = v("1.7")
REGISTRIES_ADVICE = (
    "drop it: since 1.7 any subclass the script imports is available by name in `LightningCLI` (`--model"
    " MyModel`, `class_path:`) without registering it"
)

# The parameters of `LightningCLI.__init__`, release line by release line: keyword -> (first line with it,
# first line without it).
CLI_PARAMETERS: dict[str, tuple[Version, Version | None]] = {
    "model_class": (v("1.4"), None),
    "datamodule_class": (v("1.4"), None),
    "save_config_callback": (v("1.4"), None),
    "save_config_filename": (v("1.4"), v("1.8")),
    "save_config_overwrite": (v("1.4"), v("1.8")),
    "save_config_multifile": (v("1.5"), v("1.8")),
    "save_config_kwargs": (v("1.8"), None),
    "trainer_class": (v("1.4"), None),
    "trainer_defaults": (v("1.4"), None),
    "seed_everything_default": (v("1.4"), None),
    "description": (v("1.4"), v("1.9")),
    "env_prefix": (v("1.4"), v("1.9")),
    "env_parse": (v("1.4"), v("1.9")),
    "parser_kwargs": (v("1.4"), None),
    "subclass_mode_model": (v("1.4"), None),
    "subclass_mode_data": (v("1.4"), None),
    "args": (v("1.8"), None),
    "run": (v("1.5"), None),
    "auto_registry": (v("1.6"), v("1.9")),
    "auto_configure_optimizers": (v("1.9"), None),
    "parser_class": (v("2.5"), None),
    "load_from_checkpoint_support": (v("2.5"), None),
}
# 1.8 and 1.9 take more through `**kwargs`, each with a deprecation (`_handle_deprecated_params`), and raise
# ValueError("Unexpected keyword parameters") for any other keyword; no other release takes `**kwargs`.
CLI_KWARGS: tuple[Version, Version] = (v("1.8"), v("2.0"))


@dataclass(frozen=True)
class CLIKeyword:
    """A keyword of `LightningCLI(...)` that a release deprecates and a later one rejects, and where its value
    goes instead: the key `key` of the dict keyword `into`, exactly as the releases that deprecate it move it
    there themselves (`self.save_config_kwargs[key] = value`, `self.parser_kwargs[key] = value`); or, where
    `into` is empty, nowhere (the keyword has no effect left to keep)."""

    keyword: str
    deprecated: Version
    removed: Version  # the first release line whose LightningCLI raises for it
    into: str = ""
    key: str = ""
    advice: str = ""

    @property
    def since(self) -> Version:
        """The first release line that takes `into`."""
        return CLI_PARAMETERS[self.into][0] if self.into else self.removed


CLI_KEYWORDS: tuple[CLIKeyword, ...] = (
    CLIKeyword("save_config_filename", v("1.8"), v("2.0"), "save_config_kwargs", "config_filename"),
    CLIKeyword("save_config_overwrite", v("1.8"), v("2.0"), "save_config_kwargs", "overwrite"),
    CLIKeyword("save_config_multifile", v("1.8"), v("2.0"), "save_config_kwargs", "multifile"),
    CLIKeyword("description", v("1.9"), v("2.0"), "parser_kwargs", "description"),
    CLIKeyword("env_prefix", v("1.9"), v("2.0"), "parser_kwargs", "env_prefix"),
    CLIKeyword("env_parse", v("1.9"), v("2.0"), "parser_kwargs", "default_env"),
    CLIKeyword(
        "auto_registry",
        v("1.7"),
        v("1.9"),
        advice="it only filled the registries; since 1.7 any imported subclass is available by name",
    ),
)
CLI_KEYWORD: dict[str, CLIKeyword] = {row.keyword: row for row in CLI_KEYWORDS}


def cli_accepts(keyword: str, version: Version) -> bool:
    """``LightningCLI(keyword=...)`` does not raise for the keyword in ``version``."""
    since, until = CLI_PARAMETERS.get(keyword, (None, None))
    if since is not None and since <= version and (until is None or version < until):
        return True
    row = CLI_KEYWORD.get(keyword)
    return row is not None and CLI_KWARGS[0] <= version < min(row.removed, CLI_KWARGS[1])


_OLD_MODULE_WORDS = re.compile(r"utilities\s*\.\s*cli\b|utilities\s+import\b[^\n]*\bcli\b")
_CLI_KEYWORD_WORDS = re.compile(r"\b(?:" + "|".join(row.keyword for row in CLI_KEYWORDS) + r")\b")


def mentions_cli_api(text: str) -> bool:
    """Whether ``text`` may use LightningCLI's API that a release moved or removed: it names the old module,
    or names LightningCLI and one of the keywords of ``CLI_KEYWORDS`` (the prefilter's word test)."""
    if _OLD_MODULE_WORDS.search(text):
        return True
    return "LightningCLI" in text and _CLI_KEYWORD_WORDS.search(text) is not None


# --- the removed keywords the runtime shim's Trainer takes --------------------------------------------------
# The Trainer keywords 1.7 and 2.0 removed that had a run-time meaning, which the runtime shim's Trainer takes
# on a release that lacks them and reads as 1.5.10 did (`lightning_migrate.shim.removed`, from 1.5.10's
# `CallbackConnector.on_trainer_init` and `LoggerConnector.on_trainer_init`): each with the modern spelling
# its warning names. A value at the keyword's 1.x default (``keywords.KEYWORDS``) is dropped, as the codemod
# drops it: 1.5 built with it what the target builds without it.
SHIM_TAKES: dict[str, str] = {
    "resume_from_checkpoint": "`trainer.fit(ckpt_path=...)`",
    "checkpoint_callback": "`Trainer(enable_checkpointing=...)`",
    "progress_bar_refresh_rate": "`TQDMProgressBar(refresh_rate=...)` in `callbacks=`, or"
    " `enable_progress_bar=False`",
    "process_position": "`TQDMProgressBar(process_position=...)` in `callbacks=`",
    "weights_summary": "`ModelSummary(max_depth=...)` in `callbacks=`, or `enable_model_summary=False`",
    "flush_logs_every_n_steps": "the logger's own flushing (`CSVLogger(flush_logs_every_n_steps=...)`)",
    "stochastic_weight_avg": "`StochasticWeightAveraging(swa_lrs=...)` in `callbacks=`",
    "move_metrics_to_cpu": "`.cpu()` on the metrics in your LightningModule",
}
# Those of them whose true value has no faithful equivalent on the releases that removed them: the shim raises
# this reason for such a value (with a release that can build it, it builds it), and the codemod's finding
# says that no tool can do it. `stochastic_weight_avg=True`: 1.5.10 prepended `StochasticWeightAveraging()`,
# whose `swa_lrs=None` took each parameter group's learning rate when averaging began; 1.7.0 and later require
# `swa_lrs`, which no tool can know before the run. `move_metrics_to_cpu=True`: 1.5.10's loops moved the
# logged results to the CPU right after each training and evaluation step (`trainer._results.cpu()`); 2.0's
# loops have no such step, and no hook of a callback runs at that point.
SHIM_REFUSES: dict[str, str] = {
    "stochastic_weight_avg": "1.5's `StochasticWeightAveraging()` took `swa_lrs` from the optimizer when"
    " averaging began, and 1.7 and later require `swa_lrs`, which no tool can know before the run",
    "move_metrics_to_cpu": "1.5 moved the logged metrics to the CPU right after each step, a point of its"
    " loops 2.0 no longer has and no callback can reach",
}
