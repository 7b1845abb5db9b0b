"""What in a run's files refers to a key of a Trainer config: an OmegaConf interpolation ``${trainer.gpus}``
(``${train.trainer.gpus}``, ``${oc.select:trainer.gpus,1}``) in any YAML file, and in Python a read
``cfg.trainer.gpus``, ``cfg["trainer"]["gpus"]``, ``cfg.trainer.get("gpus")``, ``"gpus" in cfg.trainer``,
``OmegaConf.select(cfg, "trainer.gpus")`` or a write ``cfg.train.trainer.gpus = 0``. Each is known by the
config section it names and the key (``("trainer", "gpus")``): a rewrite of a config of that section that
drops or changes the key must take them with it, or not be made (``frontends.yaml``)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lightning_migrate.files import depth
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.semantics.signature import MODELLED

_KEYS = "|".join(sorted(MODELLED, key=len, reverse=True))
# a text that may refer to a modelled key of a section: `.gpus`, `["gpus"]`, `"trainer.gpus"`, `${...gpus}`
_MAY_REFER = re.compile(rf"""(?:\.|\[\s*["']|["'])(?:{_KEYS})\b""")
_INTERPOLATION = re.compile(r"\$\{([^${}]*)\}")
_DOTTED = re.compile(rf"(?:^|[:\s,(])((?:[\w-]+\.)*([\w-]+)\.({_KEYS}))\b")
# `owner.trainer.gpus` where the owner is a module or callback's Lightning Trainer object (its 1.x
# properties `trainer.gpus`, `trainer.num_processes`), not a config
_TRAINER_OWNERS = frozenset({"self", "pl_module", "model", "module", "lightning_module"})


@dataclass(frozen=True)
class Ref:
    """One reference: its file, 1-based line and column, the text that names the key, and whether it sets
    the key (a write or a ``del``) rather than reads it."""

    path: str
    line: int
    column: int
    text: str
    write: bool = False

    def __str__(self) -> str:
        return f"{self.path}:{self.line} (`{self.text}`)"


@dataclass(frozen=True)
class KeyReferences:
    """Every reference of a run, by (section, key) (picklable: it goes to the workers)."""

    found: tuple[tuple[tuple[str, str], tuple[Ref, ...]], ...] = ()
    _index: dict[tuple[str, str], tuple[Ref, ...]] = field(default_factory=dict, compare=False, repr=False)

    def of(self, section: str, key: str) -> tuple[Ref, ...]:
        if not self._index and self.found:
            self._index.update(self.found)
        return self._index.get((section, key), ())


NO_REFERENCES = KeyReferences()


def may_refer(text: str) -> bool:
    return _MAY_REFER.search(text) is not None


def of_run(python: Iterable[tuple[Path, str]], yaml: Iterable[tuple[Path, str]]) -> KeyReferences:
    """The references of the run's Python and YAML files (path, text)."""
    found: dict[tuple[str, str], list[Ref]] = {}
    for path, text in python:
        for where, ref in in_python(path, text):
            found.setdefault(where, []).append(ref)
    for path, text in yaml:
        for where, ref in in_yaml(path, text):
            found.setdefault(where, []).append(ref)
    return KeyReferences(tuple((k, tuple(v)) for k, v in sorted(found.items())))


def in_yaml(path: Path, text: str) -> Iterator[tuple[tuple[str, str], Ref]]:
    """The interpolations of a YAML text that name a modelled key of a section."""
    starts = [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]
    for match in _INTERPOLATION.finditer(text):
        for dotted in _DOTTED.finditer(match.group(1)):
            offset = match.start(1) + dotted.start(1)
            line = next(i for i in range(len(starts) - 1, -1, -1) if starts[i] <= offset)
            ref = Ref(str(path), line + 1, offset - starts[line] + 1, match.group(0))
            yield (dotted.group(2), dotted.group(3)), ref


def in_python(path: Path, text: str) -> Iterator[tuple[tuple[str, str], Ref]]:
    """The reads and writes of a Python text that name a modelled key of a section."""
    try:
        tree = depth.parse(text)
    except (SyntaxError, ValueError, SourceError):  # the file's own migration reports it
        return
    lines = text.splitlines()
    for node in ast.walk(tree):
        found = _named(node)
        if found is None:
            continue
        (section, key), write = found
        segment = ast.get_source_segment(text, node) or lines[node.lineno - 1].strip()  # type: ignore[attr-defined]
        ref = Ref(str(path), node.lineno, node.col_offset + 1, segment.splitlines()[0], write)  # type: ignore[attr-defined]
        yield (section, key), ref


def _named(node: ast.AST) -> tuple[tuple[str, str], bool] | None:
    """The (section, key) ``node`` names and whether it sets it."""
    if isinstance(node, (ast.Attribute, ast.Subscript)):
        key = _key(node)
        section = _section(node.value) if key in MODELLED else None
        if section is None:
            return None
        return (section, key), isinstance(node.ctx, (ast.Store, ast.Del))  # type: ignore[return-value]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        first = node.args[0]
        if node.func.attr in ("get", "pop", "setdefault") and _string(first) in MODELLED:
            section = _section(node.func.value)
            return None if section is None else ((section, _string(first)), node.func.attr != "get")  # type: ignore[return-value]
        if node.func.attr == "select" and len(node.args) > 1:
            parts = (_string(node.args[1]) or "").split(".")
            if len(parts) > 1 and parts[-1] in MODELLED:
                return (parts[-2], parts[-1]), False
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
        key = _string(node.left)
        section = _section(node.comparators[0]) if key in MODELLED else None
        return None if section is None else ((section, key), False)  # type: ignore[return-value]
    return None


def _key(node: ast.Attribute | ast.Subscript) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) else _string(node.slice)


def _section(node: ast.expr) -> str | None:
    """The section ``node`` is (``cfg.trainer``, ``cfg["trainer"]``: ``trainer``), where it is one of a
    config: an attribute or key of something, not a module's or callback's Trainer object."""
    if not isinstance(node, (ast.Attribute, ast.Subscript)):
        return None
    name = _key(node)
    owner = node.value
    if name is None or (name == "trainer" and isinstance(owner, ast.Name) and owner.id in _TRAINER_OWNERS):
        return None
    return name


def _string(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
