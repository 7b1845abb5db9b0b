"""What a run decides once, before any file is read: the target and source releases, the rules selected, the
modes (picklable: it goes to the workers of the pool)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lightning_migrate.files.discovery import matches
from lightning_migrate.plan.trainers import NO_SUBCLASSES, RunSubclasses
from lightning_migrate.project.hydra import NO_COMMANDS, CommandLines
from lightning_migrate.project.key_references import NO_REFERENCES, KeyReferences
from lightning_migrate.project.lightning_cli import NO_CLIS, RunCLIs
from lightning_migrate.project.loaded_configs import NO_LOADED, LoadedConfigs
from lightning_migrate.semantics.model import RELEASES, Version


@dataclass(frozen=True)
class Options:
    """Everything a run decides once and every file's worker needs (picklable: it goes to the pool)."""

    target: Version
    source: Version | None = None
    select: tuple[str, ...] = ("LM",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (pattern, codes) pairs
    root: Path = Path()  # per-file-ignores patterns are read from here
    unsafe: bool = False  # --unsafe-fixes: the idiomatic form, even where it adopts a changed default
    shim: bool = False  # --shim: calls with run-time flag values build the runtime shim's Trainer
    subclasses: RunSubclasses = NO_SUBCLASSES  # the Trainer subclasses the run's files define
    clis: RunCLIs = NO_CLIS  # the LightningCLI defaults of the run, judged with the configs they feed
    loaded: LoadedConfigs = NO_LOADED  # the `Trainer(**cfg.trainer)` calls a config the run finds settles
    references: KeyReferences = NO_REFERENCES  # what in the run's files reads or sets a config's key
    commands: CommandLines = NO_COMMANDS  # the Hydra command lines a rewritten config must not change
    configs: frozenset[Path] = frozenset()  # the run's YAML files that may hold a Trainer config (resolved)
    # the oldest release the project's own requirement allows (`lightning>=2.0` in its pin files): its code
    # runs there, so a `**dict` of it holds no training type where that release took none (``Run.floor``)
    floor: Version = RELEASES[0]
    # whether a result keeps the old and new text and the bytes to write (a rewrite, a diff); --check only
    # needs to know that a file would change, and a big notebook's texts need not cross from the worker
    texts: bool = True
    # whether a result keeps only its diff (``FileResult.patch``) in place of its texts: --diff writes nothing
    # else of a changed file, and a result waits in the main process until those of every path before it are
    # done (the largest files are migrated first, so most wait to the end of the run)
    only_diffs: bool = False
    # the line length past which a one-line call a rewrite makes longer is written one argument a line
    # (`--line-length`, else the project's ruff or black setting, else 88); None: never
    line_length: int | None = None
    # the source is the project's pin of one release line (``runner.pinned_source``), not the user's word
    source_pinned: bool = False

    def selects(self, code: str, path: Path) -> bool:
        """The most specific prefix wins; on a tie, ignore wins (``--select LM0 --ignore LM0`` is off)."""
        ignored = [
            *self.ignore,
            *(
                c
                for pattern, codes in self.per_file_ignores
                for c in codes
                if matches([pattern], path, self.root)
            ),
        ]
        return _longest(self.select, code) > _longest(ignored, code)


def _longest(prefixes: Iterable[str], code: str) -> int:
    return max((len(p) for p in prefixes if code.startswith(p)), default=-1)
