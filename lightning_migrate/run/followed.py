"""Which references to a Trainer config's key follow its rewrite (``project.key_references``), and the rewrite
of each. A read of ``trainer.gpus`` (``${trainer.gpus}``, ``cfg.trainer.gpus``) follows the configs to
``trainer.devices`` where that is exact: every Trainer config of the section in the run is migrated whole,
and each now writes under ``devices`` the very value it wrote under ``gpus`` (or neither). A write, or any
other key, never follows: the configs it refers to are then not rewritten (``frontends.yaml``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from lightning_migrate.files import sourcefile
from lightning_migrate.frontends.yaml.read import configs, load, read
from lightning_migrate.plan.knowledge import RunTime
from lightning_migrate.project.key_references import KeyReferences
from lightning_migrate.run.loaded import whole
from lightning_migrate.run.options import Options

# A key whose reads follow the rewrite to another key: the device count is read the same under `devices`.
FOLLOWING = {"gpus": "devices"}
_ABSENT = object()


def follow(references: KeyReferences, options: Options, yaml_files: Iterable[Path]) -> KeyReferences:
    """``references`` with the renames that are exact for the run's configs (``yaml_files``: those that
    may hold a Trainer config)."""
    asked = [
        (where, FOLLOWING[where[1]])
        for where, refs in references.found
        if where[1] in FOLLOWING and all(not ref.write and ref.key_at is not None for ref in refs)
    ]
    if not asked:
        return references
    alone = replace(options, references=KeyReferences())
    pairs: list[tuple[str, dict[str, object], dict[str, object] | None]] = []
    for path in yaml_files:
        # a rename one config breaks is never made: the files are migrated only for the sections of the
        # renames still open (a migration is the pass's cost: a composed config is composed by Hydra again)
        open_sections = {where[0] for where, new in asked if _still_exact(pairs, where[0], where[1], new)}
        if not open_sections:
            break
        pairs += _migrated(path, alone, open_sections)
    renamed = tuple((where, new) for where, new in asked if _exact(pairs, where[0], where[1], new))
    return replace(references, renamed=renamed) if renamed else references


def _migrated(
    path: Path, options: Options, sections: set[str]
) -> list[tuple[str, dict[str, object], dict[str, object] | None]]:
    """Each Trainer config of the file: its section, its flags, and its flags once migrated (None: the file
    is not migrated whole, or cannot be read); nothing where no config of the file is of ``sections``."""
    try:
        text = sourcefile.decode(sourcefile.read_bytes(path), False).text
        if not _may_hold(text, path, sections):
            return []
        cli, passed = options.clis.of_config(path), options.loaded.sections_of(path)
        before = [c for d in load(text) for c in configs(d, text, path, cli, passed)]
    except sourcefile.SourceError:
        return []
    if not any(config.section in sections for config in before):
        return []
    after: list[Any] = []
    # (a finding the migration cannot fix, a 0.x keyword beside the flags, is the file's own: its flags are
    # judged as the migration writes them)
    migrated = whole(path, text, options, unfixed=True)
    if migrated is not None:
        try:
            after = [c for d in load(migrated.code) for c in configs(d, migrated.code, path, cli, passed)]
        except sourcefile.SourceError:
            after = []
    if len(after) != len(before):
        return [(c.section, _flags(c), None) for c in before]
    # (a config that extends a sibling is read over the sibling on disk, not yet migrated: not judged here)
    return [(old.section, _flags(old), None if old.base else _flags(new)) for old, new in zip(before, after)]


def _may_hold(text: str, path: Path, sections: set[str]) -> bool:
    """Whether the file may hold a Trainer config of one of ``sections``, by its text: a config's section is
    the key it is under (written in the text, unless an escape of a double-quoted key spells it) or the name
    of the file's folder (a group file, a file that is a Trainer's arguments). Most of a run's configs are of
    no open section: they are not parsed (ruamel.yaml, in the process that starts the workers)."""
    return "\\" in text or path.parent.name in sections or any(section in text for section in sections)


def _flags(config: Any) -> dict[str, object]:
    """A config's flags, its sibling's below its own (a value only known at run time: never the same)."""
    flags = {**config.base, **read(config.mapping).flags}
    return {k: object() if isinstance(v, RunTime) else v for k, v in flags.items()}


def _exact(
    pairs: list[tuple[str, dict[str, object], dict[str, object] | None]], section: str, old: str, new: str
) -> bool:
    """Does every config of ``section`` write under ``new`` what it wrote under ``old``, once migrated, and
    does one of them write ``old`` (else nothing is renamed)?"""
    mine = [before for name, before, _ in pairs if name == section]
    return any(old in before for before in mine) and _still_exact(pairs, section, old, new)


def _still_exact(
    pairs: list[tuple[str, dict[str, object], dict[str, object] | None]], section: str, old: str, new: str
) -> bool:
    """Does every config of ``section`` among ``pairs`` write under ``new`` what it wrote under ``old``, once
    migrated? (A rename this breaks stays broken whatever the other configs do.)"""
    return all(
        after is not None and old not in after and before.get(old, _ABSENT) == after.get(new, _ABSENT)
        for name, before, after in pairs
        if name == section
    )
