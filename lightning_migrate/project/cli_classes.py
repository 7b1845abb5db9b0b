"""The LightningCLI subclasses a run's Python files define, for every file of the run: a call of one reaches
LightningCLI's ``__init__`` with the keywords its own ``__init__`` (if any) does not take and hands on through
``**kwargs`` (``frontends.python.cli_api`` rewrites them as in a call of LightningCLI). Found a file at a time
until a round finds no more (a subclass of another file's subclass), by every dotted name another file may
import them under (``subclasses.module_names``)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lightning_migrate.files import depth
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.files.text import Text
from lightning_migrate.project.subclasses import module_names

if TYPE_CHECKING:
    from lightning_migrate.plan.locate import Located

ROOTS = ("pytorch_lightning", "lightning.pytorch")
CLI_CLASSES = frozenset(
    f"{root}.{module}.LightningCLI" for root in ROOTS for module in ("cli", "utilities.cli")
)
# (a file that may define one: it names LightningCLI, or a class whose bases end with `CLI`)
_DEFINES = re.compile(r"class\s+\w+\s*\([^)]*CLI\b")


@dataclass(frozen=True)
class CLISubclass:
    """A class whose calls reach LightningCLI: the keywords its ``__init__`` takes itself (they never reach
    LightningCLI), and those its ``super().__init__(...)`` passes LightningCLI itself."""

    name: str  # local or dotted
    own: frozenset[str]
    passed: frozenset[str]


def may_define(source: str) -> bool:
    return "LightningCLI" in source or _DEFINES.search(source) is not None


def subclasses(located: Located, known: dict[str, CLISubclass]) -> dict[str, CLISubclass]:
    """The module-level classes of the file that subclass LightningCLI (or a class of ``known``, by dotted
    name) and hand the keywords they do not take on to it: by their local names."""
    module = located.scopes[0]
    found: dict[str, CLISubclass] = {}
    for node in located.tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        bases = []
        for base in node.bases:
            qualified = located.qualified(base, module)
            if qualified & CLI_CLASSES:
                bases.append(CLISubclass("", frozenset(), frozenset()))
            bases += [known[name] for name in sorted(qualified) if name in known]
            if isinstance(base, ast.Name) and base.id in found:
                bases.append(found[base.id])
        if not bases:
            continue
        parent = bases[0]
        init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        if init is None:
            found[node.name] = CLISubclass(node.name, parent.own, parent.passed)
            continue
        forwarded = _forwarded(init)
        if forwarded is None:
            continue  # (its keywords are its own: they do not reach LightningCLI as written)
        own, passed = forwarded
        found[node.name] = CLISubclass(node.name, parent.own | own, parent.passed | passed)
    return found


def _forwarded(init: ast.FunctionDef) -> tuple[frozenset[str], frozenset[str]] | None:
    """(its parameters, the keywords its ``super().__init__`` passes) where that call hands its ``**kwargs``
    on; None where it does not."""
    kwargs = init.args.kwarg
    if kwargs is None:
        return None
    for node in ast.walk(init):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "__init__"
            and isinstance(node.func.value, ast.Call)
            and isinstance(node.func.value.func, ast.Name)
            and node.func.value.func.id == "super"
        ):
            continue
        splats = [k.value for k in node.keywords if k.arg is None]
        if any(isinstance(s, ast.Name) and s.id == kwargs.arg for s in splats):
            args = [*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs]
            own = frozenset(a.arg for a in args)
            return own, frozenset(k.arg for k in node.keywords if k.arg is not None)
    return None


def of_run(files: Iterable[tuple[Path, str]]) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
    """The LightningCLI subclasses the Python ``files`` (path, text) define, by every dotted name: (name, the
    keywords it takes itself, those it passes LightningCLI itself). Plain data: it goes to the workers."""
    from lightning_migrate.plan.locate import locate

    located = {}
    for path, source in files:
        if may_define(source):
            try:
                located[path] = locate(depth.parse(source), Text(source))
            except (SyntaxError, ValueError, SourceError):  # (the file's own migration reports it)
                continue
    known: dict[str, CLISubclass] = {}
    while True:
        more = {}
        for path, found in located.items():
            for name, row in subclasses(found, known).items():
                for module in module_names(path):
                    dotted = f"{module}.{name}"
                    if known.get(dotted) != CLISubclass(dotted, row.own, row.passed):
                        more[dotted] = CLISubclass(dotted, row.own, row.passed)
        if not more:
            break
        known.update(more)
    return tuple((k, tuple(sorted(r.own)), tuple(sorted(r.passed))) for k, r in sorted(known.items()))
