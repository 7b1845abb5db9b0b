"""What a YAML file says to Lightning's Trainer: which of its mappings are Trainer configs, and their flags
as the model reads them.

A mapping is a Trainer config when
- its ``_target_`` (Hydra) or ``class_path`` (LightningCLI/jsonargparse, flags under ``init_args``) names
  Lightning's Trainer (``pytorch_lightning.Trainer``, ``lightning.pytorch.trainer.Trainer``, ...);
- it is the top-level ``trainer:`` of a file (a LightningCLI config, a NeMo or Hydra config that builds the
  Trainer from it), unless its ``_target_``/``class_path`` names another class;
- it is a whole file in a Hydra config group folder named ``trainer`` whose config (itself or the sibling
  it extends through ``defaults``) has a Lightning Trainer ``_target_``.
A config whose ``_target_`` is the runtime shim's Trainer (``lightning_migrate.shim.Trainer``, written by
``--shim`` where its flags cannot be rewritten) is a Trainer config whose hardware flags the shim migrates
(``shimmed``).
Nothing else is: a workflow's ``strategy: matrix:``, a Kubernetes or docker-compose ``accelerator:`` key, an
``accelerator:`` of any other tool, never reach Lightning's Trainer.

Some configs are merged into another one at run time: a Hydra file with a ``defaults:`` list (an experiment,
a debug config, a primary config) overrides the trainer config its defaults select, and a trainer group file
that extends a sibling (``defaults: [default]``) is merged over it. Such a config is ``composed``: Hydra
itself composes it with the rest (``compose``, ``project.hydra``); where it cannot, its flags are read with
the rest unknown (``UNPACKED``).

Values are read as YAML 1.1, as PyYAML (LightningCLI) and OmegaConf (Hydra) read them; an interpolation
(``${trainer.devices}``, ``${oc.env:GPUS}``) or OmegaConf's missing value ``???`` is known only at run time.
"""

from __future__ import annotations

import re
import warnings
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.scalarbool import ScalarBoolean

from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.frontends.yaml.words import (
    GROUP_FOLDER,
    MAX_FLOW_DEPTH,
    sibling_is_trainer,
    siblings,
    too_deep,
    yaml_files,
)
from lightning_migrate.plan.callsite import LIGHTNING_PACKAGE
from lightning_migrate.plan.domains import DOMAINS
from lightning_migrate.plan.knowledge import Known, RunTime
from lightning_migrate.plan.locate import TRAINER_NAMES
from lightning_migrate.plan.site_judge import Unknown
from lightning_migrate.plan.trainers import SHIM_TRAINERS
from lightning_migrate.project.lightning_cli import Tied
from lightning_migrate.semantics.classes import lookup
from lightning_migrate.semantics.model import RELEASES, Obj, Value, Version
from lightning_migrate.semantics.signature import MODELLED

TARGET_KEYS = ("_target_", "class_path")  # Hydra's and jsonargparse's way of naming the class to build
HYDRA_OPTIONS = frozenset({"_target_", "_recursive_", "_convert_", "_partial_"})
LIGHTNING_ROOTS = ("pytorch_lightning.", "lightning.pytorch.", "lightning.")
_PACKAGE_HEADER = re.compile(r"^#\s*@package\b", re.M)
MAX_BASES = 8  # how deep a trainer group file's `defaults: [base]` chain is followed (a loop ends there)
_INTERPOLATION = "${"
_CORE_TAG = "tag:yaml.org,2002:"  # YAML's own tags, written `!!name`
_STR_TAG = "!!str"


@dataclass
class Config:
    """A Trainer config: the mapping that holds its flags, where it starts (0-based line and column of its
    ``trainer:`` key, or of the mapping), the oldest release it can be written for, and what it is merged
    with."""

    mapping: CommentedMap
    start: tuple[int, int]
    since: Version = RELEASES[0]
    overrides: str = ""  # why its other flags come from a config not shown here ("" when they do not)
    base: dict[str, Known] = field(default_factory=dict)  # flags of the sibling it extends, below its own
    base_unknown: dict[str, Unknown] = field(default_factory=dict)
    root: bool = False  # the mapping is the whole file
    # the base is what a LightningCLI merges under the config (its `trainer_defaults`, then its default
    # config files), as written and as the run rewrites it (``project.lightning_cli``)
    cli: Tied | None = None
    section: str = "trainer"  # the key it is under (a group file: its group), as code refers to its keys
    composed: bool = False  # Hydra composes it with other configs (``overrides`` says how)
    shimmed: bool = False  # its `_target_` is the runtime shim's Trainer, which migrates its hardware flags


@dataclass(frozen=True)
class Read:
    """The modelled flags of a mapping: their values, those known only at run time, and where each key is."""

    flags: dict[str, Known]  # (a value only known at run time ranges over its flag's domain: `knowledge`)
    unknown: dict[str, Unknown]
    order: list[str]  # the mapping's own modelled keys, in written order


TOO_DEEP = "too deeply nested to read"


def load(text: str) -> list[Any]:
    """The documents of ``text`` (round trip: positions kept), read as YAML 1.1; remembered for the texts read
    last (``_LOADED``): the callers only read the documents, never change them."""
    found = _LOADED.get(text)
    if found is not None:
        _LOADED.move_to_end(text)
        return list(found)
    documents = _loaded(text)
    if len(text) <= MAX_LOADED_CHARS:
        _LOADED[text] = tuple(documents)
        _LOADED.chars += len(text)
        while _LOADED.chars > MAX_LOADED_CHARS:
            _LOADED.chars -= len(_LOADED.popitem(last=False)[0])
    return documents


class _Loaded(OrderedDict[str, tuple[Any, ...]]):
    """The documents of the texts read last, oldest first, and how many characters those texts hold."""

    chars = 0


# A config is read again and again in one run: before and after its rewrite, by the check of the rewrite,
# by the pass that follows references to its keys, as a file of a folder composed with another (on the
# census corpus 1,375 reads of 367 texts). The texts read last are remembered up to this many characters
# (a document takes about 45 bytes a character: 6 MB; the repeats come close together, 32,000 already
# keep 900 of the 1,008 there).
MAX_LOADED_CHARS = 1 << 17
_LOADED = _Loaded()


def _loaded(text: str) -> list[Any]:
    if (where := too_deep(text)) is not None:
        raise SourceError(
            f"cannot parse YAML: {TOO_DEEP} (more than {MAX_FLOW_DEPTH} `[`/`{{` levels)", *where
        )
    yaml = YAML(typ="rt")
    yaml.version = (1, 1)
    try:
        with warnings.catch_warnings():  # ruamel's advice on 1.1 floats (`1e-5`) is not the user's concern
            warnings.simplefilter("ignore")
            try:
                return list(yaml.load_all(text))
            except DuplicateKeyError:
                if not _duplicates_apart(text):
                    raise
                yaml = YAML(typ="rt")
                yaml.version = (1, 1)
                yaml.allow_duplicate_keys = True
                return list(yaml.load_all(text))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
        raise SourceError(f"cannot parse YAML: {exc.problem or exc.context}", *where) from exc
    except YAMLError as exc:
        raise SourceError(f"cannot parse YAML: {exc}") from exc
    except (RecursionError, MemoryError) as exc:  # (no position: ruamel gave up while building it)
        raise SourceError(f"cannot parse YAML: {TOO_DEEP} (lists or mappings inside each other)") from exc
    except (ValueError, KeyError, TypeError, AssertionError) as exc:
        # ruamel's constructors fail in their own words on what they cannot build (`!!int abc`,
        # `!!timestamp 2020-99-99`, `%YAML 1.3`, lists nested thousands deep)
        raise SourceError(f"cannot parse YAML: {type(exc).__name__}: {exc}") from exc


_TRAINER_WORDS = re.compile(r"trainer|Trainer|Plugin|_target_|class_path")


def _duplicates_apart(text: str) -> bool:
    """Whether every duplicate key of ``text`` lies apart from anything a Trainer config may be: PyYAML's
    ``safe_load`` (what most projects read their configs with) takes the last value of a duplicate key, and
    ruamel.yaml, told to allow them, the first, so the file is read only where that cannot matter: the key
    is no Trainer flag, neither of its values holds a word of a Trainer config, and the mapping that holds it
    is under no `trainer` key, builds no class, and is not a document's root without a `trainer` section
    (graphium's configs repeat a data loader's option)."""
    yaml = YAML(typ="rt")
    yaml.version = (1, 1)
    try:
        nodes = list(yaml.compose_all(text))
    except YAMLError:
        return False

    def apart(node: Any, path: tuple[str, ...]) -> bool:
        if isinstance(node, SequenceNode):
            return all(apart(item, path) for item in node.value)
        if not isinstance(node, MappingNode):
            return True
        keys = [k.value if isinstance(k, ScalarNode) else None for k, _ in node.value]
        repeated = {k for k in keys if keys.count(k) > 1}
        if repeated:
            # (a document's root is a Trainer config itself in a `trainer` group folder: only one that holds a
            # `trainer` section is a config of more than the Trainer)
            container = bool(path) or "trainer" in keys
            if None in repeated or "trainer" in path or not container or any(k in TARGET_KEYS for k in keys):
                return False
            for key, value in node.value:
                if key.value in repeated and (
                    key.value in MODELLED
                    or _TRAINER_WORDS.search(key.value)
                    or _TRAINER_WORDS.search(text[value.start_mark.index : value.end_mark.index])
                ):
                    return False
        return all(
            apart(value, (*path, str(key.value) if isinstance(key, ScalarNode) else ""))
            for key, value in node.value
        )

    return all(apart(node, ()) for node in nodes if node is not None)


def class_path(mapping: Any) -> tuple[str, str] | None:
    """(the key, the dotted path) of the class a mapping builds, if it names one."""
    if not isinstance(mapping, CommentedMap):
        return None
    for key in TARGET_KEYS:
        value = mapping.get(key)
        if isinstance(value, str):
            return key, value
    return None


def lightning_class(path: str) -> str | None:
    """The Lightning class a dotted path names (``pytorch_lightning.plugins.DDPPlugin``: ``DDPPlugin``)."""
    if not path.startswith(LIGHTNING_ROOTS):
        return None
    name = path.rsplit(".", 1)[-1]
    return name if lookup(name) is not None else None


def _since(path: str) -> Version:
    lightning = path.startswith("lightning.") or SHIM_TRAINERS.get(path) == "lightning.pytorch"
    return LIGHTNING_PACKAGE if lightning else RELEASES[0]


def _is_trainer(mapping: Any) -> bool:
    """Does ``mapping`` build Lightning's Trainer, or the runtime shim's (a Hydra ``_target_``)?"""
    named = class_path(mapping)
    return named is not None and (
        named[1] in TRAINER_NAMES or (named[0] == "_target_" and named[1] in SHIM_TRAINERS)
    )


def arguments_of(mapping: CommentedMap) -> CommentedMap | None:
    """Where a class-building mapping keeps its arguments: itself (Hydra) or its ``init_args``."""
    named = class_path(mapping)
    if named is not None and named[0] == "class_path":
        args = mapping.get("init_args")
        return args if isinstance(args, CommentedMap) else None
    return mapping


def mappings(node: Any) -> Iterator[CommentedMap]:
    """Every mapping in ``node``, itself included, in document order, each once (an alias may make a node
    its own descendant)."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, CommentedMap):
            yield item
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, CommentedSeq):
            stack.extend(reversed(list(item)))


def configs(
    document: Any, text: str, path: Path, cli: Tied | None = None, passed: Sequence[tuple[str, ...]] = ()
) -> list[Config]:
    """The Trainer configs of one document of the file at ``path``; ``cli``: the LightningCLI whose
    ``trainer_defaults`` the file's top-level ``trainer:`` is merged over, where the run tied it to one;
    ``passed``: the key paths of sections that Python of the run passes to a Trainer alone
    (``Trainer(**config["trainer_params"])``)."""
    if not isinstance(document, CommentedMap):
        return []
    found: dict[int, Config] = {}
    for path_of_keys in passed:
        at = _section_at(document, path_of_keys)
        if at is not None:
            found[id(at[0])] = Config(at[0], at[1], section=path_of_keys[-1])
    keys = {id(value): key for m in mappings(document) for key, value in m.items() if isinstance(key, str)}
    for mapping in mappings(document):
        if _is_trainer(mapping):
            args = arguments_of(mapping)
            named = class_path(mapping)
            if args is not None and named is not None:
                where = (mapping.lc.line, mapping.lc.col)
                section = keys.get(id(mapping), path.parent.name if mapping is document else "trainer")
                shimmed = named[1] in SHIM_TRAINERS
                found[id(args)] = Config(
                    args, where, _since(named[1]), root=mapping is document, section=section, shimmed=shimmed
                )
    trainer = document.get("trainer") if "trainer" in document._ok else None
    if isinstance(trainer, CommentedMap) and id(trainer) not in found and class_path(trainer) is None:
        overrides = _overrides(document, text)
        since = _project_since(document, path) if overrides else RELEASES[0]
        found[id(trainer)] = Config(
            trainer, document.lc.key("trainer"), since, overrides=overrides, composed=bool(overrides)
        )
        if cli is not None and not overrides:  # (a config given with others is merged with flags not shown)
            tied = replace(found[id(trainer)], base=dict(cli.base), cli=cli)
            found[id(trainer)] = replace(found[id(trainer)], overrides=cli.held) if cli.held else tied
    if id(document) not in found and path.parent.name == GROUP_FOLDER and class_path(document) is None:
        group = _group_file(document, path, () in passed)
        if group is not None:
            found[id(document)] = group
    return list(found.values())


def _section_at(document: CommentedMap, keys: Sequence[str]) -> tuple[CommentedMap, tuple[int, int]] | None:
    """The mapping at ``keys`` of the document, and where its key is; None where there is none of its own
    (a key merged in with `<<` is shared with other mappings) or it builds a class of its own."""
    mapping: Any = document
    where = (0, 0)
    for key in keys:
        if not isinstance(mapping, CommentedMap) or key not in mapping._ok:
            return None
        where = mapping.lc.key(key)
        mapping = mapping[key]
    if not isinstance(mapping, CommentedMap) or class_path(mapping) is not None or not keys:
        return None
    return mapping, where


def _overrides(document: CommentedMap, text: str) -> str:
    if "defaults" in document or _PACKAGE_HEADER.search(text):
        return (
            "this Hydra config is merged into the trainer config its defaults select, whose other flags are"
            " not known here"
        )
    return ""


def _project_since(document: CommentedMap, path: Path) -> Version:
    """The oldest release a Hydra config merged into a trainer config (an experiment, a debug config) can be
    written for, as the project's ``trainer`` group says (``group_since``): the trainer config its defaults
    select (``override /trainer: gpu``), else every config of the group."""
    group = next((f / GROUP_FOLDER for f in list(path.parents)[:4] if (f / GROUP_FOLDER).is_dir()), None)
    if group is None:
        return RELEASES[0]
    return group_since(group, _selected_trainer(document), besides=path)


def group_since(group: Path, selected: str | None = None, besides: Path | None = None) -> Version:
    """The oldest release a config merged into a Hydra ``trainer`` group's configs (an experiment, an
    override on a command line) can be written for: where the ``selected`` file (``gpu.yaml``), else every
    file of the group but ``besides``, builds ``lightning.pytorch``'s Trainer (``_target_:
    lightning.pytorch.trainer.Trainer``, its own or that of the siblings it extends), 1.8; else any release.
    The YAML front end (a config merged into the group's) and the shell one (a command line's overrides)
    both ask it."""
    files = [group / selected] if selected is not None else [p for p in yaml_files(group) if p != besides]
    found = [since for since in map(_target_since, files) if since is not None]
    return min(found, default=RELEASES[0])


def _selected_trainer(document: CommentedMap) -> str | None:
    """The file of the ``trainer`` group a Hydra defaults list selects (``- override /trainer: gpu``,
    ``- trainer: default``), if it names one."""
    defaults = document.get("defaults")
    for item in defaults if isinstance(defaults, CommentedSeq) else []:
        if isinstance(item, CommentedMap) and len(item) == 1:
            (group, name), *_ = item.items()
            if str(group).removeprefix("override ").strip().lstrip("/") == GROUP_FOLDER and isinstance(
                name, str
            ):
                return name if name.endswith((".yaml", ".yml")) else f"{name}.yaml"
    return None


def _group_file(document: CommentedMap, path: Path, passed: bool = False) -> Config | None:
    """A file of a Hydra ``trainer`` config group without a ``_target_`` of its own: a Trainer config when a
    sibling has a Lightning Trainer ``_target_``, or where the run's Python ``passed`` the group to a
    Trainer (``Trainer(**cfg.trainer)`` in the app's ``@hydra.main``: ``project.loaded_configs``). One that
    extends siblings (a defaults list) is composed with them by Hydra (``project.hydra``): its flags are
    over theirs."""
    if not passed and not any(sibling_is_trainer(sibling) for sibling in siblings(path)):
        return None  # no Lightning Trainer in the group: another tool's `trainer` folder
    start = (document.lc.line, document.lc.col)
    bases = bases_of(document)
    if bases == []:
        return Config(document, start, root=True)
    extends = f"`{', '.join(bases)}`" if bases else "the configs its defaults list selects"
    overrides = f"it extends {extends}, whose flags Hydra merges below its own"
    return Config(document, start, _project_since(document, path), overrides, root=True, composed=True)


def bases_of(document: CommentedMap) -> list[str] | None:
    """The sibling configs a group file extends (``defaults: [default]``), in order; None where the
    defaults list does more than that (another group, ``_self_`` before a base: the result is not the
    file's flags over its bases')."""
    defaults = document.get("defaults")
    if defaults is None:
        return []
    if not isinstance(defaults, CommentedSeq):
        return None
    names: list[str] = []
    for item in defaults:
        if item == "_self_":
            if len(names) < sum(1 for i in defaults if isinstance(i, str) and i != "_self_"):
                return None  # its own keys come before a base's: the base wins
            continue
        if not isinstance(item, str) or "/" in item or ":" in item:
            return None
        names.append(item if item.endswith((".yaml", ".yml")) else f"{item}.yaml")
    return names


def _target_since(path: Path, depth: int = 0) -> Version | None:
    """The oldest release a ``trainer`` group file's Lightning Trainer ``_target_`` can be for (its own, or
    else that of the siblings it extends: ``defaults: [default]``); None where it names none (or cannot be
    read)."""
    try:
        documents = load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SourceError):
        return None
    if len(documents) != 1 or not isinstance(documents[0], CommentedMap):
        return None
    if _is_trainer(documents[0]):
        return _since(class_path(documents[0])[1])  # type: ignore[index]
    bases = bases_of(documents[0]) if class_path(documents[0]) is None and depth < MAX_BASES else None
    found = [_target_since(path.parent / base, depth + 1) for base in bases or []]
    return None if not found or None in found else min(f for f in found if f is not None)


# --- values ------------------------------------------------------------------------------------------------


def read(mapping: CommentedMap) -> Read:
    """The modelled flags of ``mapping`` (merged ``<<`` keys included, as the loader sees them)."""
    flags: dict[str, Known] = {}
    unknown: dict[str, Unknown] = {}
    order = [key for key in mapping if key in MODELLED and key in mapping._ok]
    for key in mapping:
        if key not in MODELLED:
            continue
        line, column = mapping.lc.key(key) if key in mapping._ok else (mapping.lc.line, mapping.lc.col)
        value = value_of(mapping[key])
        ranged = _run_time(key, value) if isinstance(value, _Unread) else None
        if ranged is not None:
            flags[key] = ranged
        elif isinstance(value, _Unread):
            unknown[key] = Unknown(value.why, line + 1, column + 1, value.cls, f"{key}: {value.text}")
        else:
            flags[key] = value
    return Read(flags, unknown, order)


# `${oc.env:NAME}` or `${oc.env:NAME,default}`: what an environment variable holds, always a string
_ENV = re.compile(r"\$\{oc\.env:[^}]*\}")


def _run_time(key: str, value: _Unread) -> RunTime | None:
    """An interpolation or a value left to the command line (``???``) as the planner ranges over it: the
    flag's domain, in strings where it reads an environment variable (OmegaConf's `oc.env` gives a
    string); None for a flag with no domain or a value that is no scalar."""
    if value.cls is not None or not (value.text == "???" or value.text.startswith(_INTERPOLATION)):
        return None
    domain = DOMAINS.get(key)
    if domain is None:
        return None
    if _ENV.fullmatch(value.text):
        domain = tuple(dict.fromkeys(str(v) for v in domain if isinstance(v, (int, str)) and v is not True))
    return RunTime(key, value.text, domain)


@dataclass(frozen=True)
class _Unread:
    text: str
    why: str
    cls: str | None = None


def known_value(node: Any) -> tuple[bool, Value]:
    """``value_of``, and whether it is read at all (an interpolation, ``???``, a mapping are not)."""
    value = value_of(node)
    return (False, None) if isinstance(value, _Unread) else (True, value)


# The most nodes one value is read through: aliases make a few hundred bytes a value of billions of nodes
# (nine anchors of nine references each: 9**9), which must not be expanded. No Trainer flag needs more.
MAX_NODES = 10_000
_TOO_LARGE = f"is too large to read (its aliases expand it to more than {MAX_NODES:,} values)"


class _Budget:
    """The nodes a value may still be read through (shared by the reads of its parts)."""

    def __init__(self) -> None:
        self.left = MAX_NODES

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0


def value_of(node: Any) -> Value | _Unread:
    """A YAML value as the model reads it (what the loader gives Lightning), or why it cannot be read."""
    return _value(node, _Budget())


def _value(node: Any, budget: _Budget) -> Value | _Unread:
    if not budget.spend():
        return _Unread("...", _TOO_LARGE)
    if node is None:
        return None
    tag = _tag(node)
    if tag == _STR_TAG and isinstance(node, TaggedScalar):
        return str(node.value)  # (`!!str 2`: the string, as PyYAML reads it)
    if tag is not None:
        shown = f"{tag} {node.value}".rstrip() if isinstance(node, TaggedScalar) else f"{tag} ..."
        return _Unread(shown, "carries a tag that only the application's own YAML loader can build")
    if isinstance(node, (bool, ScalarBoolean)):  # (ruamel's anchored booleans are ints)
        return bool(node)
    if isinstance(node, (int, float)):
        return float(node) if isinstance(node, float) else int(node)
    if isinstance(node, str):
        if _INTERPOLATION in node:
            return _Unread(node, "is an interpolation, only known at run time")
        if node == "???":
            return _Unread(node, "is a value the config leaves to be given at run time")
        return str(node)
    if isinstance(node, CommentedSeq):
        items: list[Value] = []
        for item in node:
            value = _value(item, budget)
            if isinstance(value, _Unread):
                return value
            items.append(value)
        return items
    named = class_path(node)
    if named is not None:
        return _object(node, named[1], budget)
    return _Unread("{...}", "is a mapping that builds no Lightning class")


def _tag(node: Any) -> str | None:
    """The tag written on a node that ruamel kept unbuilt (`!Ref`, `!!python/name:...`, `!!str`), as
    written; None for an untagged node."""
    tag = getattr(node, "tag", None) if isinstance(node, (TaggedScalar, CommentedMap, CommentedSeq)) else None
    value = getattr(tag, "value", None)
    if not isinstance(value, str):
        return None
    return "!!" + value[len(_CORE_TAG) :] if value.startswith(_CORE_TAG) else value


def _object(node: CommentedMap, path: str, budget: _Budget) -> Value | _Unread:
    cls = lightning_class(path)
    if cls is None:
        return _Unread(path, "builds a class the model does not know")
    args = arguments_of(node)
    if args is None:
        return Obj.of(cls)
    if "_args_" in args:
        return _Unread(path, "passes positional arguments, whose meaning changed between releases", cls)
    kwargs: dict[str, Value] = {}
    for key in args:
        if key in HYDRA_OPTIONS or key == "class_path":
            continue
        value = _value(args[key], budget)
        if isinstance(value, _Unread):
            return _Unread(f"{path}({key}={value.text})", value.why, cls)
        kwargs[str(key)] = value
    return Obj.of(cls, **kwargs)
