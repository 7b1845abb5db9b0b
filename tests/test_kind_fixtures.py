"""Golden fixtures of the kinds of file other than Python, through the whole per-file pipeline (front end,
planner, writer, ``# noqa``): ``fixtures/<kind>/.../<case><suffix>`` with ``<case>.<target>.expected<suffix>``
for each target it is migrated to (no expected file: it must come out unchanged for ``2.6``). A line
``# expect: CODE`` names a finding the case must report at ``2.6``. A case under a ``negatives`` or
``no_finding`` folder must come out unchanged with no finding for every target. Every case must be a fixed
point, and every YAML Trainer config a rewrite changed must build in the target what it built before."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_fixtures import assert_behaviour_kept, assert_flags_kept

from lightning_migrate.plan.knowledge import Known, RunTime
from lightning_migrate.run.file_kinds import BY_SUFFIX
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import FileResult, process_file
from lightning_migrate.semantics.model import RELEASES, Value, Version, release

FIXTURES = Path(__file__).parent.parent / "fixtures"
KIND_FOLDERS = ("yaml", "notebook", "docs", "shell", "python_command_lines")
DEFAULT_TARGET = "2.6"
QUIET = ("negatives", "no_finding")  # folders whose cases are left alone, for every target
QUIET_TARGETS = ("1.6", "1.7", "1.9", "2.0", "2.6")  # as `fixtures/no_finding` of Python


def is_case(path: Path) -> bool:
    return path.is_file() and path.suffix in BY_SUFFIX and ".expected" not in path.name


def cases() -> list[tuple[Path, Path | None, str]]:
    found: list[tuple[Path, Path | None, str]] = []
    for folder in KIND_FOLDERS:
        for case in sorted(p for p in (FIXTURES / folder).rglob("*") if is_case(p)):
            stem = case.name[: -len(case.suffix)]
            expected = sorted(case.parent.glob(f"{stem}.*.expected{case.suffix}"))
            if is_quiet(case):
                found.extend((case, None, t) for t in QUIET_TARGETS)
            elif not expected:
                found.append((case, None, DEFAULT_TARGET))
            for path in expected:
                found.append((case, path, path.name[len(stem) + 1 : -len(f".expected{case.suffix}")]))
    return found


def is_quiet(case: Path) -> bool:
    return any(part in QUIET for part in case.relative_to(FIXTURES).parts)


CASES = cases()


def run(path: Path, target: Version, data: bytes | None = None) -> FileResult:
    result = process_file(path, Options(target), data)
    assert not result.error, result.error
    return result


def test_there_are_fixtures_of_every_kind() -> None:
    kinds = {case.relative_to(FIXTURES).parts[0] for case, _, _ in CASES}
    assert {"yaml"} <= kinds


@pytest.mark.parametrize(
    ("case", "expected", "target"),
    CASES,
    ids=[f"{c.relative_to(FIXTURES).as_posix()}@{t}" for c, _, t in CASES],
)
def test_fixture(case: Path, expected: Path | None, target: str) -> None:
    version = release(target)
    data = case.read_bytes()
    result = run(case, version)
    out = result.data if result.data is not None else data
    want = expected.read_bytes() if expected else data
    assert out.decode() == want.decode()
    assert out == want
    text = data.decode()
    if target == DEFAULT_TARGET:
        assert set(re.findall(r"# expect: (LM\d+)", text)) <= {f.code for f in result.findings}
    if is_quiet(case):
        assert result.findings == []
    again = run(case, version, out)
    assert again.data is None, "not a fixed point"
    if expected and case.suffix in (".yaml", ".yml"):
        assert_yaml_behaviour_kept(case, text, out.decode(), version)
    if expected and case.suffix == ".ipynb":
        assert_notebook_kept(text, out.decode(), version)
    if expected and case.suffix in (".md", ".rst"):
        assert_doc_blocks_kept(text, out.decode(), version, case.suffix == ".rst")
    if expected and case.suffix == ".sh":
        checked = assert_commands_kept(text, out.decode(), version)
        assert checked + assert_python_heredocs_kept(text, out.decode(), version) > 0
    if expected and case.suffix == ".py":  # argument lists, or a script of a project folder's
        checked = assert_arg_lists_kept(text, out.decode(), version)
        assert checked + assert_behaviour_kept(text, out.decode(), version, None) > 0


def assert_arg_lists_kept(old: str, new: str, target: Version) -> int:
    """Every argument list of string literals whose flags changed builds the same in ``target``."""
    import ast

    from lightning_migrate.frontends.python.arglists import arg_lists

    before, after = (list(arg_lists(ast.parse(text))) for text in (old, new))
    assert len(before) == len(after)
    checked = 0
    for old_list, new_list in zip(before, after):
        # a list this file's own parser reads: read as the options of a script
        words = [
            ("python", "script.py", *x.words) if x.parsed_here else x.words for x in (old_list, new_list)
        ]
        old_flags, new_flags = (command_flags(" ".join(w))[0][1] for w in words)
        if old_flags != new_flags:
            assert_flags_kept(
                old_flags, new_flags, target, [r for r in RELEASES if r < target], label=" ".join(words[1])
            )
            checked += 1
    return checked


def assert_doc_blocks_kept(old: str, new: str, target: Version, rest: bool) -> None:
    """Only code blocks differ, and the Python and command lines in them build the same Trainers."""
    from lightning_migrate.frontends.docs import frontend as docs
    from lightning_migrate.frontends.python import cells

    before, after = list(docs.blocks(old, rest)), list(docs.blocks(new, rest))
    assert [b.language for b in before] == [b.language for b in after]
    prose = [(old[: before[0].start], new[: after[0].start])] if before else []
    for index in range(1, len(before)):
        prose.append(
            (old[before[index - 1].end : before[index].start], new[after[index - 1].end : after[index].start])
        )
    assert all(a == b for a, b in prose)
    joined = [
        cells.join(
            [b.code for b in found if b.language in docs.PYTHON_LANGUAGES and cells.parses(b.code)]
        ).text
        for found in (before, after)
    ]
    checked = assert_behaviour_kept(joined[0], joined[1], target, None)
    shell = [
        [docs.shell_view(b) for b in found if b.language in docs.SHELL_LANGUAGES] for found in (before, after)
    ]
    checked += sum(assert_commands_kept(a, b, target) for a, b in zip(*shell))
    assert checked > 0


def assert_commands_kept(old: str, new: str, target: Version) -> int:
    """Every command line's flags that changed build the same in ``target`` (a script's exported
    ``PL_TRAINER_*`` variables together); how many were checked."""
    before, after = command_flags(old), command_flags(new)
    assert len(before) == len(after)
    checked = 0
    for (label, old_flags), (_, new_flags) in zip(before, after):
        if old_flags != new_flags:
            sources = [r for r in RELEASES if r < target]
            assert_flags_kept(old_flags, new_flags, target, sources, label=label)
            checked += 1
    return checked


def assert_python_heredocs_kept(old: str, new: str, target: Version) -> int:
    """The Python that here-documents feed ``python`` builds the same Trainers (each body a program)."""
    from lightning_migrate.frontends.shell import commands
    from lightning_migrate.frontends.shell import words as shell_words

    bodies = [
        [text[h.start : h.end] for h in shell_words.heredocs(text) if commands._runs_python(h.program)]
        for text in (old, new)
    ]
    assert len(bodies[0]) == len(bodies[1])
    return sum(assert_behaviour_kept(a, b, target, None) for a, b in zip(*bodies) if a != b)


def command_flags(text: str) -> list[tuple[str, dict[str, Value]]]:
    from lightning_migrate.frontends.shell import command_line
    from lightning_migrate.frontends.shell import words as shell_words

    found: list[tuple[str, dict[str, Value]]] = []
    exported: dict[str, Value] = {}
    for command in shell_words.commands(text):
        for site in command_line.read(command, text, None):
            flags = {f: site.flavour.read(f, e.text) for f, e in site.entries.items() if e.text is not None}
            if site.script == "export":
                exported.update(flags)
            else:
                found.append((text[command.words[0].start :][:80], flags))
    return [*found, ("exports", exported)]


def assert_notebook_kept(old: str, new: str, target: Version) -> None:
    """Only code cells' sources differ, and the code the cells make builds the same Trainers."""
    from lightning_migrate.frontends.notebook import frontend as notebook
    from lightning_migrate.frontends.notebook.jsonspan import parse
    from lightning_migrate.frontends.python import cells

    before, after = json.loads(old), json.loads(new)
    key = "input" if before["nbformat"] == 3 else "source"  # (nbformat 3: cells in worksheets, `input`)
    old_cells, new_cells = _notebook_cells(before), _notebook_cells(after)
    assert [{k: v for k, v in c.items() if k != key} for c in old_cells] == [
        {k: v for k, v in c.items() if k != key} for c in new_cells
    ]
    outside = ("cells", "worksheets")
    assert {k: v for k, v in before.items() if k not in outside} == {
        k: v for k, v in after.items() if k not in outside
    }
    assert [{k: v for k, v in s.items() if k != "cells"} for s in before.get("worksheets", [])] == [
        {k: v for k, v in s.items() if k != "cells"} for s in after.get("worksheets", [])
    ]
    for old_cell, new_cell in zip(old_cells, new_cells):
        if old_cell["cell_type"] != "code":
            assert old_cell == new_cell
    joined = [
        cells.join([c.masked for c in notebook._code_cells(parse(text), text)]).text for text in (old, new)
    ]
    assert assert_behaviour_kept(joined[0], joined[1], target, None) > 0


def _notebook_cells(notebook: dict[str, Any]) -> list[dict[str, Any]]:
    if "worksheets" in notebook:
        return [cell for sheet in notebook["worksheets"] for cell in sheet["cells"]]
    return list(notebook["cells"])


def assert_yaml_behaviour_kept(case: Path, old: str, new: str, target: Version) -> None:
    """Every Trainer config the rewrite changed builds the same in ``target`` (a config that extends a
    sibling is checked over that sibling as its own expected output has it)."""
    from lightning_migrate.frontends.yaml.read import configs, load, read

    for old_doc, new_doc in zip(load(old), load(new)):
        before_all, after_all = configs(old_doc, old, case), configs(new_doc, new, case)
        assert len(before_all) == len(after_all)
        for before, after in zip(before_all, after_all):
            old_flags = {**before.base, **read(before.mapping).flags}
            new_flags = {**_migrated_base(case, new_doc, target), **read(after.mapping).flags}
            if old_flags != new_flags:
                sources = [r for r in RELEASES if before.since <= r < target] or [before.since]
                for old_values, new_values in substituted(old_flags, new_flags):
                    assert_flags_kept(old_values, new_values, target, sources, label=case.name)


def substituted(
    old: dict[str, Known], new: dict[str, Known]
) -> Iterator[tuple[dict[str, Value], dict[str, Value]]]:
    """The two configs with each interpolation (a value only known at run time) taking each value of its
    flag's domain, the same in both (the rewrite keeps it as written, wherever it moved)."""
    holes = {v.text: v.domain for v in old.values() if isinstance(v, RunTime)}
    assert {v.text for v in new.values() if isinstance(v, RunTime)} <= set(holes)
    for combination in itertools.product(*holes.values()):
        chosen = dict(zip(holes, combination))
        yield tuple(  # type: ignore[misc]
            {k: chosen[v.text] if isinstance(v, RunTime) else v for k, v in flags.items()}
            for flags in (old, new)
        )


def _migrated_base(case: Path, document: object, target: Version) -> dict[str, Value]:
    """The flags of the siblings a Hydra group file extends, as their expected outputs have them."""
    from lightning_migrate.frontends.yaml.read import bases_of, load, read

    flags: dict[str, Value] = {}
    if case.parent.name != "trainer":
        return flags
    for name in bases_of(document) or ():  # type: ignore[arg-type]
        base = case.parent / name
        migrated = base.with_name(f"{base.stem}.{target.major}.{target.minor}.expected{base.suffix}")
        text = (migrated if migrated.exists() else base).read_text()
        flags.update(read(load(text)[0]).flags)
    return flags


# --- whole projects ----------------------------------------------------------------------------------------
# `fixtures/lightning_cli/<name>/project/` is migrated as one run (the run's pre-pass ties a LightningCLI's
# `trainer_defaults` to its configs); `<name>/<target>.expected/` holds the files the rewrite changes, as it
# writes them (a file not there must come out unchanged). Every config must build, merged over the defaults
# and the default config files as LightningCLI merges them, what it built: read here independently of the
# codemod (`ast` and a YAML loader).

PROJECTS = FIXTURES / "lightning_cli"
PROJECT_CASES = [
    (folder, expected.name.removesuffix(".expected"))
    for folder in sorted(p for p in PROJECTS.iterdir() if p.is_dir())
    for expected in sorted(folder.glob("*.expected"))
]


def migrate_project(tree: Path, target: Version) -> dict[Path, FileResult]:
    from lightning_migrate.run.runner import process_all

    paths = sorted(p for p in tree.rglob("*") if p.is_file())
    results = process_all(paths, Options(target), jobs=1)
    for result in results:
        assert not result.error, (result.path, result.error)
    return {result.path: result for result in results}


@pytest.mark.parametrize(("folder", "target"), PROJECT_CASES, ids=[f"{f.name}@{t}" for f, t in PROJECT_CASES])
def test_project_fixture(tmp_path: Path, folder: Path, target: str) -> None:
    import shutil

    version = release(target)
    tree = tmp_path / "project"
    shutil.copytree(folder / "project", tree)
    results = migrate_project(tree, version)
    expected = folder / f"{target}.expected"
    for path, result in results.items():
        relative = path.relative_to(tree)
        want = expected / relative if (expected / relative).exists() else folder / "project" / relative
        assert (result.data if result.data is not None else path.read_bytes()) == want.read_bytes(), relative
        if target == DEFAULT_TARGET:
            named = set(re.findall(r"# expect: (LM\d+)", path.read_text()))
            assert named <= {f.code for f in result.findings}, relative
        if result.data is not None:
            path.write_bytes(result.data)
    again = migrate_project(tree, version)
    assert all(result.data is None for result in again.values()), "not a fixed point"
    checked = assert_cli_behaviour_kept(folder / "project", tree, version)
    assert checked > 0


def assert_cli_behaviour_kept(old_tree: Path, new_tree: Path, target: Version) -> int:
    """Each config of the project's LightningCLI, merged as LightningCLI merges it (the script's
    ``trainer_defaults``, then its default config files in order, then the config), builds in ``target``
    what it built; returns how many merged configs changed."""
    script = next(p for p in sorted(old_tree.rglob("*.py")) if "trainer_defaults=" in p.read_text())
    relative = script.relative_to(old_tree)
    (old_defaults, layers), (new_defaults, _) = (cli_of(tree / relative) for tree in (old_tree, new_tree))
    configs = sorted(p.relative_to(old_tree) for p in old_tree.rglob("*.yaml"))
    checked = 0
    for config in configs:
        stacked_old, stacked_new = dict(old_defaults), dict(new_defaults)
        for layer in layers if config.as_posix() not in layers else layers[: layers.index(config.as_posix())]:
            stacked_old.update(trainer_flags(old_tree / layer))
            stacked_new.update(trainer_flags(new_tree / layer))
        old = {**stacked_old, **trainer_flags(old_tree / config)}
        new = {**stacked_new, **trainer_flags(new_tree / config)}
        if old != new:
            checked += 1
            sources = [r for r in RELEASES if r < target]
            assert_flags_kept(old, new, target, sources, label=config.as_posix())
    return checked


def cli_of(script: Path) -> tuple[dict[str, Value], list[str]]:
    """The hardware flags of a script's ``trainer_defaults={...}`` display (literals and Lightning objects of
    literals) and its ``default_config_files``, read with ``ast``."""
    import ast

    from lightning_migrate.semantics.model import Obj
    from lightning_migrate.semantics.signature import MODELLED

    def value(node: ast.expr) -> Value:
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Name)
            return Obj.of(node.func.id, **{k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg})
        return ast.literal_eval(node)  # type: ignore[no-any-return]

    flags: dict[str, Value] = {}
    layers: list[str] = []
    for node in ast.walk(ast.parse(script.read_text())):
        for keyword in node.keywords if isinstance(node, ast.Call) else ():
            if keyword.arg == "trainer_defaults" and isinstance(keyword.value, ast.Dict):
                for key, item in zip(keyword.value.keys, keyword.value.values):
                    assert isinstance(key, ast.Constant)
                    if key.value in MODELLED:
                        flags[key.value] = value(item)
            if keyword.arg == "parser_kwargs":
                layers += ast.literal_eval(keyword.value).get("default_config_files", [])
    return flags, layers


def trainer_flags(path: Path) -> dict[str, Value]:
    """The hardware flags of a LightningCLI config's ``trainer:``, read as YAML 1.1 (as PyYAML, which it
    uses, reads them) by ruamel's safe loader, not the codemod's round-trip reader."""
    from ruamel.yaml import YAML

    from lightning_migrate.semantics.signature import MODELLED

    loader = YAML(typ="safe", pure=True)
    loader.version = (1, 1)
    trainer = (loader.load(path.read_text()) or {}).get("trainer") or {}
    return {key: value for key, value in trainer.items() if key in MODELLED}
