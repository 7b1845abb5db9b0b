"""A Hydra config composed by Hydra (``project.hydra``): for each composition a config takes part in, the
flags Hydra merges below its own (the composition with the config's own flags taken out), and, after a
rewrite, what each composition gives the Trainer (the configs of the folder as the run writes them).

hydra-core is imported only through ``project.hydra``, only for a composed config; without it the config is
read as before, its other flags unknown, and the finding says to install the ``hydra`` extra.
"""

from __future__ import annotations

import functools
import io
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.frontends.yaml.read import Config, Read, _since, class_path, load, read
from lightning_migrate.plan.callsite import Run
from lightning_migrate.plan.knowledge import Known, RunTime
from lightning_migrate.project import hydra


@dataclass(frozen=True)
class Variant:
    """A config as one composition has it: with the flags Hydra merges below it as its base."""

    composition: hydra.Composition
    config: Config


def variants(config: Config, path: Path, text: str) -> list[Variant] | str:
    """The config as each composition it takes part in has it, or why it cannot be composed."""
    if not hydra.available():
        return hydra.INSTALL
    if str(path) == "-":
        return "it is read from standard input, outside any config folder"
    compositions = hydra.compositions_of(path, extends=config.root)
    if not compositions:
        return "no primary config of the project composes it"
    own = read(config.mapping)
    try:
        stripped = _without(text, config, own.order)
    except Exception as exc:  # (ruamel's own errors: the file was read, so this is not expected)
        return f"its own flags cannot be taken out to compose what is below them: {type(exc).__name__}"
    found: list[Variant] = []
    for composition in compositions:
        try:
            full, target = _node(hydra.trainer_node(composition))
            base, _ = _node(hydra.trainer_node(composition, {path: stripped}))
        except (hydra.ComposeError, SourceError) as exc:
            return f"Hydra cannot compose `{composition.name}`: {exc}"
        if {**_values(base), **_values(own)} != _values(full):  # (Hydra merges another config over it)
            return f"another config of `{composition.name}` sets its Trainer flags over this one's"
        since = _since(target) if target is not None else config.since
        found.append(
            Variant(
                composition,
                replace(config, since=since, base=base.flags, base_unknown=base.unknown, overrides=""),
            )
        )
    return found


def _values(found: Read) -> dict[str, object]:
    """Flags as Hydra leaves them: a run-time value is its text, one that cannot be read its reason."""
    values: dict[str, object] = {
        k: ("run time", v.text) if isinstance(v, RunTime) else v for k, v in found.flags.items()
    }
    values.update({k: ("unread", u.reason) for k, u in found.unknown.items()})
    return values


def _node(text: str) -> tuple[Read, str | None]:
    """A composed Trainer node's flags, and the class it names (its ``_target_``), if any."""
    documents = load(text)
    mapping = documents[0] if documents and isinstance(documents[0], CommentedMap) else CommentedMap()
    named = class_path(mapping)
    return read(mapping), named[1] if named is not None else None


def _without(text: str, config: Config, keys: list[str]) -> str:
    """The file's text without the config's own ``keys`` (a mapping left empty stays a mapping: ``{}``)."""
    yaml = YAML(typ="rt")
    yaml.version = (1, 1)
    with warnings.catch_warnings():  # (ruamel's advice on 1.1 floats, as where the file was read)
        warnings.simplefilter("ignore")
        document = yaml.load(text)
    mapping = document if config.root else document["trainer"]
    for key in keys:
        del mapping[key]
    out = io.StringIO()
    YAML(typ="rt").dump(document, out)  # (written without the `%YAML 1.1` directive it was read with)
    return out.getvalue()


# --- after the rewrite -------------------------------------------------------------------------------------

Migrate = Callable[[str, Path, Run], str]  # a config file's text as the run writes it


def composed_flags(
    composition: hydra.Composition, written: dict[Path, str], run: Run, migrate: Migrate
) -> dict[str, Known]:
    """What ``composition`` gives the Trainer once the run has written its folder: the files of ``written``
    as given, every other config of the folder as ``migrate`` writes it."""
    folder = composition.primary.config_dir
    replaced = dict(migrated_folder(folder, run, migrate))
    replaced.update(written)
    return dict(_node(hydra.trainer_node(composition, replaced))[0].flags)


def migrated_folder(folder: Path, run: Run, migrate: Migrate) -> tuple[tuple[Path, str], ...]:
    """The configs of ``folder`` that ``migrate`` changes, with their new texts (once per folder and run)."""
    return _migrated(folder, run, migrate)


@functools.lru_cache(maxsize=16)
def _migrated(folder: Path, run: Run, migrate: Migrate) -> tuple[tuple[Path, str], ...]:
    changed: list[tuple[Path, str]] = []
    for path in sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        try:
            new = migrate(text, path, run)
        except Exception:  # (a file the run cannot migrate, for whatever reason, is left as it is)
            continue
        if new != text:
            changed.append((path.resolve(), new))
    return tuple(changed)
