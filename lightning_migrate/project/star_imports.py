"""Star imports of the project's own modules: ``from icevision.all import *`` binds in the importing file
every public name ``icevision/all.py`` binds at module level, and that module may itself star-import another
of the project (``from icevision.imports import *``, whose ``import pytorch_lightning as pl`` is then the
``pl`` of ``pl.Trainer(gpus=...)`` in the importing file). Without following them, such a call is no Trainer
call to the locator and its old flags are silently kept.

Each star import of a run's Python file is resolved to the project's module it names (a relative one by the
file's own folder, an absolute one by the dotted names the run's files may be imported as, where exactly one
file has that name), read, and followed through its own star imports (a bounded fixpoint: cycles are safe).
What a file gets is kept only where it matters to the codemod: the names bound to something of Lightning
(``pl``, ``Trainer``), to a Trainer subclass of the run, or to torch itself (``torch``, the name a test of
the machine's GPU count is written with). A name a module also binds otherwise (an
assignment, a ``def``) is not exported from it: which binding wins is the run's business. ``__all__``, when
it is a literal list or tuple of strings, limits what a module exports; any other ``__all__`` exports
nothing here (as before: the calls are not judged)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lightning_migrate.files import depth, sourcefile
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.plan.trainers import PACKAGES, RunSubclasses
from lightning_migrate.project.subclasses import module_names

_STAR = re.compile(r"^[ \t]*\"?from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t(]*\*", re.M)
MAX_MODULES = 200  # how many modules one run follows at most (a bounded walk, whatever the project)
MAX_ROUNDS = 20  # how many rounds the exports are propagated through chains of star imports
_ROOTS = frozenset({*(p.split(".")[0] for p in PACKAGES), "lightning_fabric"})


def star_modules(text: str) -> list[tuple[int, str]]:
    """The modules the Python ``text`` star-imports (``from x import *``), each as its leading dots and its
    dotted name (read from the text, a notebook's JSON lines and a document's code blocks too: an import in
    a string is followed too, to no harm: only the file's own star imports bind the names, ``locate``)."""
    if "import" not in text or "*" not in text:
        return []
    return [(len(match.group(1)), match.group(2)) for match in _STAR.finditer(text)]


@dataclass
class _Module:
    """What one module binds at module level: each name's bindings (the dotted name an import binds, a
    Trainer subclass the module defines; None for any other binding), the modules it star-imports (their
    paths), and its ``__all__`` (None: none; an empty tuple also where it is not a literal)."""

    bindings: dict[str, list[str | None]] = field(default_factory=dict)
    stars: list[Path] = field(default_factory=list)
    public: tuple[str, ...] | None = None


def of_run(
    starring: Iterable[tuple[Path, list[tuple[int, str]]]], python: Iterable[Path], subclasses: RunSubclasses
) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """For each of the ``starring`` files (path, ``star_modules``) that star-imports a module of the run's
    ``python`` files: the names it gets from them that the codemod cares about, each with the dotted name
    it is, keyed by the file's resolved path (plain data: it goes to the workers)."""
    starring = list(starring)
    if not starring:
        return ()
    index: dict[str, set[Path]] = {}
    for path in python:
        resolved = path.resolve()
        for name in module_names(resolved):
            index.setdefault(name, set()).add(resolved)
    trainers = subclasses.passing | frozenset(dict(subclasses.consuming))
    modules: dict[Path, _Module] = {}
    pending: list[Path] = []
    importers: dict[Path, list[Path]] = {}
    for path, stars in starring:
        resolved = path.resolve()
        targets = [t for t in (_target(resolved, dots, name, index) for dots, name in stars) if t]
        if targets:
            importers[resolved] = targets
            pending += targets
    while pending and len(modules) < MAX_MODULES:
        path = pending.pop()
        if path in modules:
            continue
        modules[path] = module = _read(path, index, trainers)
        pending += [star for star in module.stars if star not in modules]
    exports = _exports(modules)
    out = []
    for importer, targets in sorted(importers.items()):
        got: dict[str, set[str]] = {}
        for target in targets:
            for name, qualified in exports.get(target, {}).items():
                got.setdefault(name, set()).update(qualified)
        kept = tuple((name, q) for name in sorted(got) for q in sorted(got[name]) if _matters(q, trainers))
        if kept:
            out.append((str(importer), kept))
    return tuple(out)


def _matters(qualified: str, trainers: frozenset[str]) -> bool:
    # (torch itself too: a test of the machine's GPU count is written with the name a file has for it)
    return qualified.split(".", maxsplit=1)[0] in _ROOTS or qualified in trainers or qualified == "torch"


def _target(importer: Path, dots: int, name: str, index: dict[str, set[Path]]) -> Path | None:
    """The file of the run a star import names: a relative one from the importer's folder, an absolute one
    by the one file of the run that may be imported under that name (none, or several: not followed)."""
    if dots:
        base = importer.parent
        for _ in range(dots - 1):
            base = base.parent
        if not name:
            return None  # (`from . import *`: the package's own __init__, not followed)
        stem = base.joinpath(*name.split("."))
        for candidate in (stem.with_name(stem.name + ".py"), stem / "__init__.py"):
            if candidate in index.get(candidate.stem if candidate.stem != "__init__" else stem.name, set()):
                return candidate
        return None
    found = index.get(name, set())
    return next(iter(found)) if len(found) == 1 else None


def _read(path: Path, index: dict[str, set[Path]], trainers: frozenset[str]) -> _Module:
    module = _Module()
    try:
        source = sourcefile.decode(sourcefile.read_bytes(path), False).text
        tree = depth.parse(source)
    except (SyntaxError, ValueError, SourceError):
        module.public = ()  # (nothing known: nothing exported)
        return module
    _walk(tree.body, module, path, index, trainers, tuple(module_names(path)))
    return module


def _walk(
    body: list[ast.stmt],
    module: _Module,
    path: Path,
    index: dict[str, set[Path]],
    trainers: frozenset[str],
    names: tuple[str, ...],
) -> None:
    """The module-level statements of ``body``, and those of the blocks that run at module level (``if``,
    ``try``, ``with``, loops); not the bodies of functions and classes."""
    for node in body:
        bind = module.bindings.setdefault
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                bind(local, []).append(alias.name if alias.asname else local)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    target = _target(path, node.level, node.module or "", index)
                    if target is not None:
                        module.stars.append(target)
                    continue
                where = "." * node.level + (node.module or "")
                bind(alias.asname or alias.name, []).append(None if node.level else f"{where}.{alias.name}")
        elif isinstance(node, ast.ClassDef):
            subclass = [f"{name}.{node.name}" for name in names if f"{name}.{node.name}" in trainers]
            bind(node.name, []).append(subclass[-1] if subclass else None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bind(node.name, []).append(None)
        else:
            for child in ast.walk(node) if not isinstance(node, _BLOCKS) else _heads(node):
                if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
                    bind(child.id, []).append(None)
                elif isinstance(child, ast.ExceptHandler) and child.name:
                    bind(child.name, []).append(None)
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and _names_all(node):
                module.public = _literal(node)
            if isinstance(node, _BLOCKS):
                for part in ("body", "orelse", "finalbody"):
                    _walk(getattr(node, part, []), module, path, index, trainers, names)
                for handler in getattr(node, "handlers", []):
                    if handler.name:
                        bind(handler.name, []).append(None)
                    _walk(handler.body, module, path, index, trainers, names)


_BLOCKS: tuple[type[ast.stmt], ...] = (
    ast.If,
    ast.Try,
    ast.With,
    ast.For,
    ast.While,
    ast.AsyncWith,
    ast.AsyncFor,
    *(
        [ast.TryStar] if hasattr(ast, "TryStar") else []  # type: ignore[attr-defined,unused-ignore]
    ),
)


def _heads(node: ast.stmt) -> Iterator[ast.AST]:
    """What a block binds outside its bodies: a loop's target, a ``with``'s names."""
    if isinstance(node, (ast.For, ast.AsyncFor)):
        yield from ast.walk(node.target)
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            if item.optional_vars is not None:
                yield from ast.walk(item.optional_vars)
    if isinstance(node, (ast.If, ast.While)):
        yield from (n for n in ast.walk(node.test) if isinstance(n, ast.NamedExpr))
        yield from (n.target for n in ast.walk(node.test) if isinstance(n, ast.NamedExpr))


def _names_all(node: ast.Assign | ast.AnnAssign | ast.AugAssign) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)


def _literal(node: ast.Assign | ast.AnnAssign | ast.AugAssign) -> tuple[str, ...]:
    """The names of a literal ``__all__ = [...]`` (anything else: none)."""
    value = node.value
    if isinstance(node, ast.AugAssign) or not isinstance(value, (ast.List, ast.Tuple)):
        return ()
    if not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
        return ()
    return tuple(e.value for e in value.elts)  # type: ignore[attr-defined]


def _exports(modules: dict[Path, _Module]) -> dict[Path, dict[str, frozenset[str]]]:
    """What each module exports to a star import: its own names bound by imports (or a Trainer subclass) and
    only so, then those its star imports give it that it does not bind itself; propagated until no module
    gets more (bounded; a cycle only stops giving more)."""
    exports: dict[Path, dict[str, frozenset[str]]] = {path: {} for path in modules}
    for _ in range(MAX_ROUNDS):
        changed = False
        for path, module in modules.items():
            got: dict[str, set[str]] = {}
            for name, bound in module.bindings.items():
                if None not in bound:
                    got[name] = {q for q in bound if q is not None}
            for star in module.stars:
                for name, qualified in exports.get(star, {}).items():
                    if name not in module.bindings:
                        got.setdefault(name, set()).update(qualified)
            public = module.public
            exported = {
                name: frozenset(qualified)
                for name, qualified in got.items()
                if (name in public if public is not None else not name.startswith("_"))
            }
            if exported != exports[path]:
                exports[path] = exported
                changed = True
        if not changed:
            break
    return exports
