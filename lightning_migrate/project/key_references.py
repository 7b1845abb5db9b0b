"""What in a run's files refers to a key of a Trainer config: an OmegaConf interpolation ``${trainer.gpus}``
(``${train.trainer.gpus}``, ``${oc.select:trainer.gpus,1}``) in any YAML file, and in Python a read
``cfg.trainer.gpus``, ``cfg["trainer"]["gpus"]``, ``cfg.trainer.get("gpus")``, ``"gpus" in cfg.trainer``,
``OmegaConf.select(cfg, "trainer.gpus")`` or a write ``cfg.train.trainer.gpus = 0``. Each is known by the
config section it names and the key (``("trainer", "gpus")``): a rewrite of a config of that section that
drops or changes the key must take them with it, or not be made (``frontends.yaml``). The keys are the
model's flags and the keywords beside them a release removed (``REFERABLE``: a fix drops
``weights_summary``)."""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from lightning_migrate.files import depth
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.report.findings import Finding, written
from lightning_migrate.semantics.removed import BY_KEYWORD
from lightning_migrate.semantics.signature import MODELLED

# the keys a reference is looked for: the model's flags, and the keywords beside them a release removed or
# changed, which a config's rewrite may rename or drop (``plan.gone``)
REFERABLE = MODELLED | frozenset(BY_KEYWORD)
_KEYS = "|".join(sorted(REFERABLE, key=len, reverse=True))
# a text that may refer to a modelled key of a section: `.gpus`, `["gpus"]`, `"trainer.gpus"`, `${...gpus}`
_MAY_REFER = re.compile(rf"""(?:\.|\[\s*["']|["'])(?:{_KEYS})\b""")
# Python that may refer to a key of a config section named `trainer...` (the sections Trainer configs are
# under): `cfg.trainer.gpus`, `cfg["trainer"]["gpus"]`, `.trainer.get("gpus")`, `"trainer.gpus"`, `"gpus" in
# cfg.trainer` (only such files are parsed for references)
_PYTHON_MAY_REFER = re.compile(
    rf"""trainer\w*["']?\]?\s*(?:\.|\[\s*["']|\.(?:get|pop|setdefault)\(\s*["'])(?:{_KEYS})\b"""
    rf"""|["'](?:{_KEYS})["']\s+(?:not\s+)?in\s+[\w.\[\]"']*trainer"""
)
_INTERPOLATION = re.compile(r"\$\{([^${}]*)\}")
_DOTTED = re.compile(rf"(?:^|[:\s,(])((?:[\w-]+\.)*([\w-]+)\.({_KEYS}))\b")
# `owner.trainer.gpus` where the owner is a module or callback's Lightning Trainer object (its 1.x
# properties `trainer.gpus`, `trainer.num_processes`), not a config
_TRAINER_OWNERS = frozenset({"self", "pl_module", "model", "module", "lightning_module"})


@dataclass(frozen=True)
class Ref:
    """One reference: its file, 1-based line and column, the text that names the key, whether it sets the
    key (a write or a ``del``) rather than reads it, and where the key's own characters are (1-based line,
    0-based column in characters; None where the key is not written as itself: it cannot be renamed)."""

    path: str
    line: int
    column: int
    text: str
    write: bool = False
    key_at: tuple[int, int] | None = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line} (`{self.text}`)"


@dataclass(frozen=True)
class Taker:
    """A Trainer call of the run that may take a Trainer config's flags (``project.takers``): it unpacks a
    ``**`` mapping known only at run time (``unpacks``), or its arguments read keys of config ``sections``
    (``Trainer(distributed_backend=cfg.trainer.distributed_backend)``), or it is a Hydra ``instantiate`` of
    a section (``instantiates``: it builds what the config's ``_target_`` names). ``built``: it builds the
    runtime shim's Trainer as written; ``by_run``: a run with ``--shim`` makes it build it."""

    path: str
    line: int
    column: int
    end_line: int
    text: str
    sections: tuple[str, ...] = ()
    unpacks: bool = False
    instantiates: bool = False
    built: bool = False
    by_run: bool = False

    def takes(self, section: str) -> bool:
        return self.unpacks or section in self.sections

    def __str__(self) -> str:
        return f"{self.path}:{self.line} (`{self.text}`)"


@dataclass(frozen=True)
class KeyReferences:
    """Every reference of a run, by (section, key) (picklable: it goes to the workers), and the Trainer
    calls of the run that may take a config's flags (``takers``: asked only where code refers to a config's
    keys)."""

    found: tuple[tuple[tuple[str, str], tuple[Ref, ...]], ...] = ()
    # the keys every config of their section now writes under another name with the same value, so that
    # their references follow: ((section, key), new key)
    renamed: tuple[tuple[tuple[str, str], str], ...] = ()
    _index: dict[tuple[str, str], tuple[Ref, ...]] = field(default_factory=dict, compare=False, repr=False)
    takers: tuple[Taker, ...] = ()

    def takers_of(self, section: str) -> list[Taker]:
        """The calls of the run that may take the flags of a config under ``section``."""
        return [taker for taker in self.takers if taker.takes(section)]

    def of(self, section: str, key: str) -> tuple[Ref, ...]:
        """The references to ``section.key`` that do not follow a rename of it."""
        if not self._index and self.found:
            self._index.update(self.found)
        return () if self.renamed_to(section, key) else self._index.get((section, key), ())

    def renamed_to(self, section: str, key: str) -> str | None:
        return next((new for where, new in self.renamed if where == (section, key)), None)

    def following(self, path: Path) -> list[tuple[Ref, str, str]]:
        """The references in the file at ``path`` that follow a rename: (the reference, its key, the new
        key)."""
        return [
            (ref, where[1], new)
            for where, new in self.renamed
            for ref in dict(self.found).get(where, ())
            if ref.path == str(path)
        ]


NO_REFERENCES = KeyReferences()


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def lines_of(text: str) -> list[str]:
    """The lines of ``text`` with their ends, cut where Python's tokenizer cuts them (``\n``, ``\r\n``,
    ``\r``; not at a form feed or a line separator, as ``str.splitlines`` does): the numbers ``ast`` gives,
    and the same for YAML, whose positions are found and written with them."""
    return _LINE.findall(text)


def may_refer(text: str, python: bool) -> bool:
    """May a Python or YAML ``text`` refer to a config key (asked of every such file of a run)?"""
    if python:
        return "trainer" in text and _PYTHON_MAY_REFER.search(text) is not None
    return "${" in text and _MAY_REFER.search(text) is not None


def in_file(path: Path, text: str, python: bool) -> list[tuple[tuple[str, str], Ref]]:
    """The references of a Python or YAML file."""
    return list(in_python(path, text) if python else in_yaml(path, text))


def collected(found: Iterable[tuple[tuple[str, str], Ref]]) -> KeyReferences:
    """The references of a run, by (section, key)."""
    by_key: dict[tuple[str, str], list[Ref]] = {}
    for where, ref in found:
        by_key.setdefault(where, []).append(ref)
    return KeyReferences(tuple((k, tuple(v)) for k, v in sorted(by_key.items())))


def in_yaml(path: Path, text: str) -> Iterator[tuple[tuple[str, str], Ref]]:
    """The interpolations of a YAML text that name a modelled key of a section."""
    starts = list(itertools.accumulate(map(len, lines_of(text)), initial=0))
    for match in _INTERPOLATION.finditer(text):
        for dotted in _DOTTED.finditer(match.group(1)):
            offset = match.start(1) + dotted.start(1)
            line = bisect.bisect_right(starts, offset) - 1
            ref = Ref(str(path), line + 1, offset - starts[line] + 1, match.group(0))
            key = match.start(1) + dotted.start(3)
            ref = replace(ref, key_at=(line + 1, key - starts[line]))
            yield (dotted.group(2), dotted.group(3)), ref


def in_python(path: Path, text: str) -> Iterator[tuple[tuple[str, str], Ref]]:
    """The reads and writes of a Python text that name a modelled key of a section."""
    try:
        tree = depth.parse(text)
    except (SyntaxError, ValueError, SourceError):  # the file's own migration reports it
        return
    lines = lines_of(text)
    for node in ast.walk(tree):
        found = _named(node)
        if found is None:
            continue
        (section, key), write, named = found
        ref = Ref(str(path), node.lineno, node.col_offset + 1, _first_line(lines, node), write)  # type: ignore[arg-type, attr-defined]
        yield (section, key), replace(ref, key_at=_key_at(lines, named, key))


def _first_line(lines: list[str], node: ast.expr) -> str:
    """The text of ``node`` on its first line (its columns are UTF-8 offsets)."""
    line = lines[node.lineno - 1].encode() if node.lineno <= len(lines) else b""
    end = node.end_col_offset if node.end_lineno == node.lineno else len(line)
    return line[node.col_offset : end].decode(errors="replace").strip()


def _key_at(lines: list[str], node: ast.expr, key: str) -> tuple[int, int] | None:
    """Where the characters of ``key`` are in ``node``: the end of an attribute (``.gpus``), or the end of
    the text of a plain string (``"gpus"``, ``"trainer.gpus"``); None where they are not there as written."""
    line = node.end_lineno or node.lineno
    if line > len(lines) or node.end_col_offset is None:
        return None
    text = lines[line - 1]
    end = len(text.encode()[: node.end_col_offset].decode(errors="replace"))
    end -= 0 if isinstance(node, ast.Attribute) else 1  # (the closing quote)
    start = end - len(key)
    return (line, start) if start >= 0 and text[start:end] == key else None


def named(node: ast.AST) -> tuple[tuple[str, str], bool, ast.expr] | None:
    """The (section, key) ``node`` reads or sets, whether it sets it, and the node whose text ends with
    the key; None where it names no modelled key of a section."""
    return _named(node)


def section_of(node: ast.expr) -> str | None:
    """The config section ``node`` is (``cfg.trainer``: ``trainer``), where it is one."""
    return _section(node)


def _named(node: ast.AST) -> tuple[tuple[str, str], bool, ast.expr] | None:
    """The (section, key) ``node`` names, whether it sets it, and the node whose text ends with the key."""
    if isinstance(node, (ast.Attribute, ast.Subscript)):
        key = _key(node)
        section = _section(node.value) if key in REFERABLE else None
        if section is None or key is None:
            return None
        named = node if isinstance(node, ast.Attribute) else node.slice
        return (section, key), isinstance(node.ctx, (ast.Store, ast.Del)), named
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        first, key = node.args[0], _string(node.args[0])
        if node.func.attr in ("get", "pop", "setdefault") and key in REFERABLE:
            section = _section(node.func.value)
            return (
                None if section is None or key is None else ((section, key), node.func.attr != "get", first)
            )
        if node.func.attr == "select" and len(node.args) > 1:
            parts = (_string(node.args[1]) or "").split(".")
            if len(parts) > 1 and parts[-1] in REFERABLE:
                return (parts[-2], parts[-1]), False, node.args[1]
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
        key = _string(node.left)
        section = _section(node.comparators[0]) if key in REFERABLE else None
        return None if section is None or key is None else ((section, key), False, node.left)
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


def renamed_in(path: Path, text: str, references: KeyReferences) -> tuple[str, list[Finding]]:
    """``text`` (the file at ``path``) with its references that follow a rename renamed, and a finding for
    each (LM004: the key ``gpus=`` gave way to ``devices=``)."""
    following = references.following(path)
    if not following:
        return text, []
    lines = lines_of(text)
    findings: list[Finding] = []
    for ref, old, new in sorted(following, key=lambda f: f[0].key_at or (0, 0), reverse=True):
        assert ref.key_at is not None  # (only references whose key is written as itself follow)
        line, column = ref.key_at
        current = lines[line - 1]
        if current[column : column + len(old)] != old:
            continue  # (the file changed since it was read: left as it is)
        lines[line - 1] = current[:column] + new + current[column + len(old) :]
        findings.append(_finding(ref, old, new))
    return "".join(lines), findings


def _finding(ref: Ref, old: str, new: str) -> Finding:
    message = (
        f"`{written(ref.text)}` reads `{old}`, which the config now writes as `{new}`; fix: read `{new}`"
    )
    why = f"`{old}=` gave way to `accelerator=` + `devices=`; the config writes the same value as `{new}`"
    return Finding(ref.line, ref.column, "LM004", message, True, details=(why,))
