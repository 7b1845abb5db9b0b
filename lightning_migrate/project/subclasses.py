"""The run's pre-pass over its Python files: the Trainer subclasses they define, for every other file of the
run (a class defined in one file and built in another is a Trainer there too). Which classes are Trainers
and what a subclass does with the flags is ``plan.trainers``; this module finds them across files."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from lightning_migrate.files import depth
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.files.text import Text
from lightning_migrate.plan.trainers import LOCAL, NO_SUBCLASSES, RunSubclasses

# A file that may define a Trainer subclass for the other files of the run: a module-level class whose bases
# name something `...Trainer` (the classes that subclass those are found with them, a file at a time, until no
# more are). The locator follows module-level classes only (one in a function is not a Trainer to it), and
# one under a top-level `if` or `try` is missed here. Files without one are not parsed for the run's
# subclasses.
_DEFINES = re.compile(r"class\s+\w+\s*\([^)]*Trainer\b")


def may_define(source: str) -> bool:
    """Does a line of ``source`` start with such a class? (Tried at each line that starts with ``class``: a
    pattern that starts with ``^`` is tried at every character of every file of the run.)"""
    starts = [0] if source.startswith("class") else []
    starts += (found.start() + 1 for found in _LINE_CLASS.finditer(source))
    return any(_DEFINES.match(source, start) for start in starts)


_LINE_CLASS = re.compile(r"\nclass\b")


def module_names(path: Path) -> list[str]:
    """Every dotted name a module may be imported as from elsewhere in a project: ``a/b/c.py`` is ``c``,
    ``b.c`` and ``a.b.c`` (which folder is on the import path is the project's business; ``.c`` relative
    imports are read without their dots)."""
    parts = [*path.parent.parts, path.stem] if path.stem != "__init__" else list(path.parent.parts)
    parts = [part for part in parts if part.isidentifier()]
    return [".".join(parts[i:]) for i in range(len(parts) - 1, -1, -1) if parts[i:]]


def of_run(files: Iterable[tuple[Path, str]]) -> RunSubclasses:
    """The Trainer subclasses the Python ``files`` (path, text) of a run define, for every other file of the
    run (found a file at a time until a round finds no more: a subclass of another file's subclass)."""
    from lightning_migrate.plan.locate import locate  # (only for a run with a file that may define one)

    trees = {}
    inits = []  # the packages' `__init__.py` files: they may re-export a subclass
    for path, source in files:
        if path.name == "__init__.py" and "import" in source:
            inits.append((path, source))
        if may_define(source):
            try:
                trees[path] = (depth.parse(source), Text(source))
            except (SyntaxError, ValueError, SourceError):  # the file's own migration reports it
                continue
    found = NO_SUBCLASSES
    while trees:
        passing, consuming, swallowing = set(found.passing), dict(found.consuming), dict(found.swallowing)
        for path, (tree, text) in trees.items():
            located = locate(tree, text, found)
            own = {name for name in located.trainers if name.startswith(LOCAL)}
            for module in module_names(path):
                passing |= {name.replace(LOCAL, module, 1) for name in own}
                consuming |= {
                    k.replace(LOCAL, module, 1): why
                    for k, why in located.consuming.items()
                    if k.startswith(LOCAL)
                }
                swallowing |= {
                    k.replace(LOCAL, module, 1): tuple(sorted(own))
                    for k, own in located.swallowing.items()
                    if k.startswith(LOCAL)
                }
        more = RunSubclasses(
            frozenset(passing), tuple(sorted(consuming.items())), tuple(sorted(swallowing.items()))
        )
        if more == found:
            return _reexported(found, inits)
        found = more
    return found


def _reexported(found: RunSubclasses, inits: list[tuple[Path, str]]) -> RunSubclasses:
    """``found`` with the names a package's ``__init__.py`` gives the subclasses that pass the flags through
    it imports (``from .trainer import MyTrainer`` in ``mypkg/__init__.py``: ``mypkg.MyTrainer``, which a
    script imports as ``from mypkg import MyTrainer``). Not those that consume flags: their calls would be
    reported for keywords the class takes itself (modern scverse/scvi-tools' ``from scvi.train import
    Trainer`` takes ``progress_bar_refresh_rate=``), which the codemod does not tell from those it hands
    on."""
    short = found.names
    passing = set(found.passing)
    for path, source in inits:
        if not any(name in source for name in short):
            continue
        try:
            tree = depth.parse(source)
        except (SyntaxError, ValueError, SourceError):
            continue
        packages = module_names(path)
        for node in tree.body:
            if not isinstance(node, ast.ImportFrom) or node.module is None:
                continue
            for alias in node.names:
                dotted = f"{node.module}.{alias.name}"
                local = alias.asname or alias.name
                if dotted in found.passing:
                    passing |= {f"{package}.{local}" for package in packages}
    if len(passing) == len(found.passing):
        return found
    return replace(found, passing=frozenset(passing))
