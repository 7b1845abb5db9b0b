"""The rule registry: one row per finding code. Drives findings, docs and tests."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    title: str
    deprecated_in: str = ""
    removed_in: str = ""
    link: str = ""
    fixable: bool = True
    todo: str = ""  # what to do about a finding the codemod does not fix (``explain``)

    def dates(self, release: str = "") -> str:
        """When the form went: ``deprecated in 1.5, removed in 1.7`` (``release``: a word before the first
        version), or the part of it the rule has."""
        said = [f"deprecated in {self.deprecated_in}"] if self.deprecated_in else []
        said += [f"removed in {self.removed_in}"] if self.removed_in else []
        return ", ".join(said).replace(" in ", f" in {release}", 1)


_CHANGELOG = "https://github.com/Lightning-AI/pytorch-lightning/pull/"

RULES: tuple[Rule, ...] = (
    Rule(
        "LM001",
        "accelerator-training-type",
        "training type passed as `accelerator=`; it belongs in `strategy=`",
        "1.5",
        "1.7",
        _CHANGELOG + "12696",
    ),
    Rule(
        "LM002",
        "distributed-backend",
        "`distributed_backend=` was replaced by `accelerator=` (1.4) and `strategy=` (1.5)",
        "1.4",
        "1.5",
        _CHANGELOG + "10017",
    ),
    Rule(
        "LM003",
        "strategy-in-plugins",
        "strategy passed in `plugins=`; it belongs in `strategy=`",
        "1.5",
        "1.7",
        _CHANGELOG + "12700",
    ),
    Rule(
        "LM004",
        "device-count-flags",
        "`gpus=`/`tpu_cores=`/`ipus=`/`num_processes=` were replaced by `accelerator=` + `devices=`",
        "1.7",
        "2.0",
        _CHANGELOG + "16171",
    ),
    Rule(
        "LM005",
        "plugin-classes",
        "training-type `*Plugin` classes were renamed `*Strategy`",
        "1.6",
        "1.8",
        _CHANGELOG + "14011",
    ),
    Rule(
        "LM006",
        "strategy-spelling",
        "the strategy or hardware is spelled differently in the target release (renamed, or a default that"
        " changed)",
    ),
    Rule(
        "LM007",
        "removed-keywords",
        "a keyword the target's Trainer does not accept, or deprecates (`replace_sampler_ddp=`, the apex"
        " flags, `progress_bar_refresh_rate=`, `weights_summary=`, `resume_from_checkpoint=`, ...): renamed"
        " where Lightning documents the same meaning under another keyword, dropped at its default, reported"
        " otherwise (with `--shim`, those the runtime shim takes are handed to it); the keys of a"
        " LightningCLI's `trainer_defaults` are judged as keywords",
        "",
        "",
        _CHANGELOG + "16829",
    ),
    Rule(
        "LM008",
        "lightning-cli-api",
        "LightningCLI's own API the target moved or removed: `pytorch_lightning.utilities.cli` is"
        " `pytorch_lightning.cli` (1.7), its registries and `auto_registry=` went (1.9), the `save_config_*`"
        " and `description`/`env_*` keywords moved into `save_config_kwargs`/`parser_kwargs` (2.0)",
        "1.7",
        "1.9",
        _CHANGELOG + "16116",
        fixable=True,
        todo="import the name from `pytorch_lightning.cli` (or the module the finding names); drop the"
        " registries and their decorators: since 1.7 any subclass the script imports is available by name in"
        " `LightningCLI`; pass a keyword the call cannot move by hand, in the dict the finding names",
    ),
    Rule("LM100", "rejected-call", "the target release rejects this call as written", fixable=False),
    Rule(
        "LM101",
        "runtime-value",
        "a flag's value is only known at run time",
        fixable=False,
        todo="run with `--shim`: the call then builds the runtime shim's Trainer, which migrates the values"
        " it gets when the Trainer is built, on every release from 1.4. Or say what the value may be where"
        " the code can (an argparse `type=` or `choices=`, a parameter's annotation and default) and run"
        " again, or pass the flags literally",
    ),
    Rule(
        "LM102",
        "ambiguous-source",
        "the call did different things in different releases",
        fixable=False,
        todo="name the release the code was written for with `--source-version X.Y` (the finding names two"
        " releases that disagree): the call is then migrated to keep what that release built",
    ),
    Rule(
        "LM103",
        "no-equivalent",
        "the target release cannot express what the call did",
        fixable=False,
        todo="where all that differs is a default Lightning changed on purpose (DDP's"
        " `find_unused_parameters`, the launcher), run with `--unsafe-fixes`: it writes the target's own"
        " form and says what changes. Otherwise choose by hand what the call builds in the target (the"
        " finding says what it built)",
    ),
    Rule(
        "LM104",
        "unmodelled-value",
        "a flag's value is one the model does not judge",
        fixable=False,
        todo="write the value the run really used, in a form the model judges (a whole number of nodes, a"
        " strategy's name or class), and run again: the call is then migrated",
    ),
    Rule(
        "LM105",
        "argparse-methods",
        "`Trainer.add_argparse_args`/`parse_argparser`/`from_argparse_args` were removed; `--shim` writes the"
        " shim's functions, which work on every release",
        "",
        "2.0",
        _CHANGELOG + "16708",
        fixable=False,
        todo="run with `--shim`: it writes the shim's functions, which build the same parser and Trainer on"
        " every release from 1.4 (the command lines stay as they are). Or build the parser by hand and pass"
        " `accelerator=`/`devices=`/`strategy=` to the Trainer; a LightningCLI does both",
    ),
    Rule("LM900", "unused-noqa", "a `# noqa: LM...` code that suppresses nothing", fixable=False),
)

BY_CODE = {rule.code: rule for rule in RULES}

# Which old flag's rewrite each fixable rule reports.
FLAG_RULES = {
    "accelerator": "LM001",
    "distributed_backend": "LM002",
    "plugins": "LM003",
    "gpus": "LM004",
    "tpu_cores": "LM004",
    "ipus": "LM004",
    "num_processes": "LM004",
    "auto_select_gpus": "LM004",  # dropped at its default for 2.x, with the device-count flags
    "devices": "LM004",  # a device spelling the target reads differently (2.1 numbers TPU cores from 0)
    "strategy": "LM006",
    "replace_sampler_ddp": "LM007",
    "amp_backend": "LM007",
    "amp_level": "LM007",
}
