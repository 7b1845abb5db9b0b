"""The folders are the pipeline: every import of the package, read with ``ast`` (at module level, in
functions, under ``if TYPE_CHECKING:``, all alike), goes down ``LAYERS``, never up, and no two modules import
each other, however far round; no folder holds more than ``MAX_MODULES`` modules.

A front end's module named in a string (``run.file_kinds``, imported with ``importlib``) is not an import
here; it points down, from the driver to ``frontends``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import lightning_migrate

PACKAGE = Path(lightning_migrate.__file__).parent
# (the checkout's docs/, not the package's folder: the package may be installed elsewhere, as tox does)
PIPELINE = Path(__file__).parent.parent / "docs" / "pipeline.md"
# The "Layout" list of docs/pipeline.md, in pipeline order: a package imports only from those before it (and
# from its own). `lightning_migrate` itself (the version) is below them all.
LAYERS = ("semantics", "report", "files", "plan", "project", "edit", "frontends", "run", "shim", "cli")
MAX_MODULES = 15


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its ``__init__``)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = [PACKAGE.name, *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """The package's modules that module ``name`` imports, with the line: ``from a.b import c`` is ``a.b.c``
    where that is a module, else ``a.b``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for written in targets:
            target = written
            while target and target not in known and target.startswith(PACKAGE.name):
                target = target.rpartition(".")[0]  # `import a.b.c` of a name inside a module
            if target in known and target != name:
                yield target, node.lineno


def graph() -> dict[str, dict[str, int]]:
    known = modules()
    return {name: dict(imported(name, path, known)) for name, path in known.items()}


def layer(module: str) -> int:
    """The index in ``LAYERS`` of the package ``module`` is in; -1 for the package's own ``__init__``."""
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 else -1


def cycle(edges: dict[str, dict[str, int]]) -> list[str] | None:
    """One import cycle, as the modules round it (the first again at the end); None if there is none."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    for start in sorted(edges):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(edges[start]))]
        state[start] = 1
        while stack:
            following = next(stack[-1], None)
            if following is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(following) == 1:
                return [*path[path.index(following) :], following]
            elif following not in state:
                state[following] = 1
                path.append(following)
                stack.append(iter(sorted(edges[following])))
    return None


def upward(edges: dict[str, dict[str, int]]) -> list[str]:
    """Every import of a module from a package listed after its own, as ``module:line -> module``."""
    return [
        f"{name}:{line} -> {target}"
        for name, targets in sorted(edges.items())
        for target, line in sorted(targets.items())
        if layer(target) > layer(name)
    ]


def crowded() -> list[str]:
    """The folders that hold more than ``MAX_MODULES`` modules (``__init__`` not counted)."""
    folders = [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir() and (p / "__init__.py").exists())]
    counts = {f: len([m for m in f.glob("*.py") if m.name != "__init__.py"]) for f in folders}
    return [f"{f.relative_to(PACKAGE.parent)}: {n}" for f, n in sorted(counts.items()) if n > MAX_MODULES]


def test_every_package_has_its_layer() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert packages == set(LAYERS)
    assert not [m for m in modules() if m.count(".") == 1 and not (PACKAGE / m.split(".")[1]).is_dir()]


def test_no_import_cycle() -> None:
    assert cycle(graph()) is None


def test_no_package_imports_from_a_later_one() -> None:
    assert upward(graph()) == []


def test_no_folder_holds_more_than_fifteen_modules() -> None:
    assert crowded() == []


def test_the_pipeline_page_lists_the_layers_in_order() -> None:
    text = PIPELINE.read_text(encoding="utf-8")
    section = text[text.index("## Layout") :]
    block = section[section.index("```") + 3 :]
    listed = re.findall(r"^  (\w+)/", block[: block.index("```")], re.MULTILINE)
    assert tuple(listed) == LAYERS


# --- the checks themselves fail on a violation -------------------------------------------------------------


def test_a_cycle_is_found() -> None:
    edges = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert cycle(edges) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b": 1}, "b": {}, "d": {"a": 1, "b": 2}}) is None


@pytest.mark.parametrize(
    ("importer", "target", "up"),
    [
        ("lightning_migrate.plan.planner", "lightning_migrate.frontends.python.frontend", True),
        ("lightning_migrate.files.text", "lightning_migrate.report.findings", False),
        ("lightning_migrate.report.noqa", "lightning_migrate", False),
        ("lightning_migrate.semantics.model", "lightning_migrate.cli.main", True),
    ],
)
def test_an_upward_import_is_found(importer: str, target: str, up: bool) -> None:
    assert bool(upward({importer: {target: 3}, target: {}})) is up


def test_imports_are_read_in_functions_and_relative(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from lightning_migrate.cli import main\n"
        "def f():\n    from . import planner\n    import lightning_migrate.run.runner\n"
    )
    known = {"lightning_migrate.cli.main": Path(), "lightning_migrate.plan.planner": Path()}
    known["lightning_migrate.run.runner"] = Path()
    found = dict(imported("lightning_migrate.plan.m", module, known))
    assert found == {
        "lightning_migrate.cli.main": 3,
        "lightning_migrate.plan.planner": 5,
        "lightning_migrate.run.runner": 6,
    }


def test_the_front_ends_the_driver_imports_by_name_are_below_it() -> None:
    """``run.file_kinds`` names each kind's front end in a string (imported only for a file of its kind)."""
    from lightning_migrate.run.file_kinds import KINDS

    known = modules()
    for kind in KINDS:
        assert kind.module in known, kind
        assert layer(kind.module) < layer("lightning_migrate.run.file_kinds"), kind
