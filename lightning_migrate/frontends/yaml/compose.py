"""A Hydra config composed by Hydra (``project.hydra``): for each composition a config takes part in, the
flags Hydra merges below its own (the composition with the config's own flags taken out), and, after a
rewrite, what each composition gives the Trainer (the configs of the folder as the run writes them).

hydra-core is imported only through ``project.hydra``, only for a composed config; without it the config is
read as before, its other flags unknown, and the finding says to install the ``hydra`` extra.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from lightning_migrate.files import run_cache
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.files.text import Unwritable
from lightning_migrate.frontends.shell.command_line import spelled_word
from lightning_migrate.frontends.yaml.read import (
    Config,
    Read,
    _selected_trainer,
    _since,
    class_path,
    load,
    read,
)
from lightning_migrate.frontends.yaml.words import GROUP_FOLDER, siblings, yaml_files
from lightning_migrate.plan.callsite import CallSite, Run
from lightning_migrate.plan.knowledge import Choice, Known, RunTime
from lightning_migrate.plan.planner import builds_the_same, interpreter, machines
from lightning_migrate.plan.site_judge import Unknown, judge
from lightning_migrate.plan.trainers import SHIM_TRAINERS
from lightning_migrate.project import hydra
from lightning_migrate.semantics import Setup
from lightning_migrate.semantics.model import Value, Version
from lightning_migrate.semantics.signature import MODELLED


@dataclass(frozen=True)
class Variant:
    """A config as one composition has it: with the flags Hydra merges below it as its base."""

    composition: hydra.Composition
    config: Config
    target: str | None = None  # the class the composed Trainer node names (its `_target_`), if any


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
        if {**as_left(base), **as_left(own)} != as_left(full):  # (Hydra merges another config over it)
            return f"another config of `{composition.name}` sets its Trainer flags over this one's"
        since = _since(target) if target is not None else config.since
        found.append(
            Variant(
                composition,
                replace(
                    config,
                    since=since,
                    base=base.flags,
                    base_unknown=base.unknown,
                    overrides="",
                    shimmed=target in SHIM_TRAINERS,
                ),
                target,
            )
        )
    return found


def as_left(found: Read) -> dict[str, object]:
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


@run_cache.per_run(16)
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


# --- the group files that extend a base ---------------------------------------------------------------------


def extenders(path: Path) -> list[Path]:
    """The files of the group folder of ``path`` that extend it (``defaults: [default]``, with other groups
    or not), directly or through another that does: Hydra composes each over it, so each is a composition
    the file feeds."""
    named = {other: _extends(other) for other in siblings(path)}
    found: list[Path] = []
    stems = {path.stem}
    while grown := [p for p, bases in named.items() if p not in found and bases & stems]:
        found += grown
        stems.update(p.stem for p in grown)
    return found


def _extends(path: Path) -> set[str]:
    """The siblings a group file's defaults list names (``- default``, ``- default.yaml``), by stem."""
    try:
        documents = load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SourceError):
        return set()
    document = documents[0] if len(documents) == 1 else None
    defaults = document.get("defaults") if isinstance(document, CommentedMap) else None
    if not isinstance(defaults, CommentedSeq):
        return set()
    return {
        item.removesuffix(".yaml").removesuffix(".yml")
        for item in defaults
        if isinstance(item, str) and item != "_self_" and "/" not in item
    }


def fed(path: Path, others: list[Path]) -> list[hydra.Composition]:
    """The compositions a group file and the ``others`` that extend it feed: each of those composed as its
    own primary, each primary of the project with one of them chosen (``trainer=ddp``), and each experiment
    or mode config that selects one of them (``- override /trainer: ddp``) with the primaries that take it."""
    found = [hydra.compositions_of(other, extends=True)[0] for other in others]
    chosen = [path, *others]
    for file in chosen:
        found += hydra.compositions_of(file)
    names = {file.name for file in chosen}
    for folder in dict.fromkeys(c.primary.config_dir for c in found if c.primary.config_dir != path.parent):
        for config in _configs_below(folder, path.parent):
            if _selects(config) in names:
                found += hydra.compositions_of(config)
    return list(dict.fromkeys(found))


def _configs_below(folder: Path, group: Path) -> list[Path]:
    """The YAML files of a config folder's other groups (one level down), the Trainer's group aside."""
    subfolders = sorted(p for p in folder.iterdir() if p.is_dir() and p.resolve() != group.resolve())
    return [config for sub in subfolders for config in yaml_files(sub)]


def _selects(path: Path) -> str | None:
    """The file of the Trainer's group a config's defaults list selects (``override /trainer: ddp``)."""
    try:
        text = path.read_text(encoding="utf-8")
        documents = load(text) if GROUP_FOLDER in text else []
    except (OSError, UnicodeDecodeError, SourceError):
        return None
    document = documents[0] if len(documents) == 1 else None
    return _selected_trainer(document) if isinstance(document, CommentedMap) else None


def composed_read(
    composition: hydra.Composition,
    written: dict[Path, str] | None = None,
    run: Run | None = None,
    migrate: Migrate | None = None,
) -> tuple[Read, str | None]:
    """What ``composition`` gives the Trainer (its flags, those it cannot read, the class its node names):
    from the files on disk, or (``run`` and ``migrate`` given) once the run has written its folder, the files
    of ``written`` as given (raises ``hydra.ComposeError`` where Hydra cannot compose it)."""
    replaced = dict(migrated_folder(composition.primary.config_dir, run, migrate)) if run and migrate else {}
    replaced.update(written or {})
    return _node(hydra.trainer_node(composition, replaced))


# --- a command line's overrides ----------------------------------------------------------------------------


def node_flags(node: str) -> tuple[dict[str, Value], dict[str, str]]:
    """The modelled flags of a composed Trainer node, and those it leaves to run time (with why)."""
    documents = load(node)
    found = read(documents[0]) if documents and hasattr(documents[0], "lc") else None
    if found is None:
        return {}, {}
    unknown = {k: u.reason.split("` ", 1)[-1] for k, u in found.unknown.items()}
    flags = {k: v for k, v in found.flags.items() if k in MODELLED}
    for key, value in list(flags.items()):
        if isinstance(value, (RunTime, Choice)):
            unknown[key] = "is only known at run time"
            del flags[key]
    return flags, unknown  # type: ignore[return-value]


def override_words(
    composition: hydra.Composition,
    words: tuple[str, ...],
    desired: dict[str, Known],
    tree: dict[Path, str],
    target: Version,
) -> tuple[str, ...]:
    """The Trainer overrides of a command line (written ``words``) that give ``desired`` over the configs of
    ``tree`` (path: text, the others as on disk): ``+`` only where the composed config lacks the key,
    ``~trainer.KEY`` where it has one the target must not get; composed again and checked."""
    try:
        base, _ = node_flags(hydra.trainer_node(composition, tree))
    except (hydra.ComposeError, ValueError) as exc:
        raise Unwritable(f"Hydra cannot compose the migrated configs: {exc}") from exc
    new: list[str] = []
    for key, value in desired.items():
        if isinstance(value, (RunTime, Choice)):
            raise Unwritable(f"`{key}` is only known at run time")
        if key not in base or base[key] != value:
            plus = "" if key in base else "+"
            new.append(f"{plus}trainer.{key}={spelled_word(value)}")
    new += [f"~trainer.{key}" for key in base if key not in desired]
    try:
        got, _ = node_flags(hydra.trainer_node(composition, tree, tuple(new)))
    except (hydra.ComposeError, ValueError) as exc:
        raise Unwritable(f"Hydra cannot compose the rewritten overrides: {exc}") from exc
    if not (got == desired or builds_the_same(got, desired, target)):  # type: ignore[arg-type]
        raise Unwritable("composed again, the rewritten overrides would not give the planned flags")
    return tuple(new)


# --- the run's command lines over a rewrite ----------------------------------------------------------------


def command_changed(
    line: hydra.CommandLine, path: Path, new: str, run: Run, migrate: Migrate, advice: str
) -> bool:
    """Whether the rewrite of the config at ``path`` (to ``new``, the other configs of its folder as
    ``migrate`` writes them) changes what ``line``'s run gives the Trainer in the target. Where the shell
    front end rewrites the command line, its new overrides must give the planner's flags over these configs
    (as that front end checks them); where it leaves the line as written, the line composed over the
    rewritten configs must build in the target what it builds over the configs as they are. A run that fails
    loudly both ways (the target rejects its flags, or Hydra its overrides: ``trainer.gpus=4`` over a config
    without `gpus`) is not changed; a line that cannot be composed here (an override that expands at run
    time) is."""
    composition = line.composition()
    if composition is None or line.trainer is None:
        return True
    tree = dict(migrated_folder(composition.primary.config_dir, run, migrate))
    tree[path.resolve()] = new
    before = _composed_line(composition, line.trainer)
    if before is not None and _rewritten(composition, line.trainer, before, tree, run, advice):
        return False
    after = _composed_line(composition, line.trainer, tree)
    if before is None or after is None:  # (Hydra refuses the line before or after the rewrite)
        return not all(flags is None or _fails(flags, run.target) for flags in (before, after))
    if before == after:
        return False
    if before[1] or after[1]:
        return True  # (a flag only known at run time: what it builds cannot be compared)
    return not same_outcome(before[0], after[0], run.target)


Flags = tuple[dict[str, Value], dict[str, str]]


def _composed_line(
    composition: hydra.Composition, words: tuple[str, ...], tree: dict[Path, str] | None = None
) -> Flags | None:
    """A command line's Trainer flags composed over the configs of ``tree`` (None: as on disk); None where
    Hydra refuses it."""
    try:
        return node_flags(hydra.trainer_node(composition, tree, words))
    except (hydra.ComposeError, ValueError):
        return None


def _rewritten(
    composition: hydra.Composition,
    words: tuple[str, ...],
    before: Flags,
    tree: dict[Path, str],
    run: Run,
    advice: str,
) -> bool:
    """Whether the shell front end rewrites the command line, its new overrides giving the planner's flags
    over the configs of ``tree`` (as it judges and writes them: ``shell.hydra_overrides``)."""
    flags, unread = before
    unknown = {k: Unknown(why, 1, 1, written=f"trainer.{k}") for k, why in unread.items()}
    verdict = judge(run, CallSite(1, 1, flags), unknown, advice)
    if verdict.rewrite is None:
        return False
    try:
        override_words(composition, words, dict(verdict.rewrite.flags), tree, run.target)
    except Unwritable:
        return False
    return True


def _fails(found: Flags, target: Version) -> bool:
    """Whether the target rejects these flags on every machine (a loud failure, whatever the configs say)."""
    flags, unread = found
    if unread:
        return False
    ask = interpreter(flags)
    return not any(isinstance(ask(target, machine).outcome, Setup) for machine in machines(flags))


def fails_both(before: dict[str, Value], after: dict[str, Value], target: Version) -> bool:
    """Whether the target rejects both sets of flags on every machine (loudly, whatever the configs say)."""
    return _fails((before, {}), target) and _fails((after, {}), target)


def same_outcome(before: dict[str, Value], after: dict[str, Value], target: Version) -> bool:
    """Whether two sets of flags build the same in ``target`` (or raise the same) on every machine."""
    ask_before, ask_after = interpreter(before), interpreter(after)
    for machine in [*machines(before), *machines(after)]:
        if ask_before(target, machine).outcome != ask_after(target, machine).outcome:
            return False
    return True
