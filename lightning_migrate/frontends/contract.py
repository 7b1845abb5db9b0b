"""What a front end is asked to do with one file (``Request``) and what it gives back (``Migrated``): the one
contract between the driver and the front ends of every kind.

A front end has ``migrate(text, request) -> Migrated``: the new text, the findings addressed in the front
end's own terms (unique per call site, so that ``# noqa`` and a rerun without a suppressed rewrite can name
them), how ``# noqa`` comments suppress them, and how each is addressed in the file for the user.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from lightning_migrate.plan.callsite import Run
from lightning_migrate.plan.trainers import NO_SUBCLASSES, RunSubclasses
from lightning_migrate.project.hydra import NO_COMMANDS, CommandLines
from lightning_migrate.project.key_references import NO_REFERENCES, KeyReferences
from lightning_migrate.project.lightning_cli import NO_CLIS, RunCLIs
from lightning_migrate.project.loaded_configs import NO_LOADED, LoadedConfigs
from lightning_migrate.report import noqa
from lightning_migrate.report.findings import Finding


@dataclass(frozen=True)
class Request:
    """What a front end is asked to do with one file."""

    run: Run
    shim: bool = False
    path: Path = Path("-")
    subclasses: RunSubclasses = NO_SUBCLASSES  # the Trainer subclasses the run's files define
    clis: RunCLIs = NO_CLIS  # the run's LightningCLI defaults, judged with their configs
    loaded: LoadedConfigs = NO_LOADED  # the `Trainer(**cfg.trainer)` calls a config the run finds settles
    references: KeyReferences = NO_REFERENCES  # what in the run's files reads or sets a config's key
    commands: CommandLines = NO_COMMANDS  # the run's Hydra command lines (a config's rewrite must keep them)
    # configs Hydra composes to report, not rewrite (by the 0-based line and column where each starts): a
    # composition checked after the rewrite did not give the Trainer what it must
    refused: Mapping[tuple[int, int], str] = field(default_factory=dict)
    configs: frozenset[Path] = frozenset()  # the run's YAML files that may hold a Trainer config (resolved)

    @property
    def folder(self) -> Path | None:
        """The file's folder, where the scripts its command lines run are looked for (None: stdin)."""
        return Path(self.path).parent if str(self.path) != "-" else None


def _same(finding: Finding) -> Finding:
    return finding


@dataclass
class Migrated:
    code: str
    findings: list[Finding]
    # the suppression comments: which findings are kept, suppressed, or suppress nothing (LM900)
    suppress: Callable[[Sequence[Finding]], noqa.Outcome]
    address: Callable[[Finding], Finding] = field(default=_same)  # front end's terms -> the file's


class FrontEnd(Protocol):
    def migrate(self, text: str, request: Request) -> Migrated: ...
