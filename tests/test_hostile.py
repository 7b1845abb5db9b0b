"""Hostile input: never a crash, a hang, unbounded memory or an internal error; every error names the file
and, where there is one, the line, in words a user can act on, and leaves the file as it was (issue 22)."""

from __future__ import annotations

import ast
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import FIXABLE, FIXED, FIXED_ON_ONE_LINE, run

from lightning_migrate.files import depth
from lightning_migrate.frontends.yaml import words as yaml_words
from lightning_migrate.run import runner
from lightning_migrate.semantics.model import Version

OLD_CALL = "from pytorch_lightning import Trainer\n\ntrainer = Trainer(gpus=2)\n"
PLUGIN_CALL = (
    "from pytorch_lightning import Trainer\nfrom pytorch_lightning.plugins import DDPPlugin\n"
    "trainer = Trainer(plugins=[DDPPlugin(find_unused_parameters=False)], gpus=2)\n"
)


def _cli(
    *args: str, cwd: Path, timeout: float = 120, memory: int | None = None
) -> subprocess.CompletedProcess[str]:
    """The CLI in a process of its own (a crash there must not take the tests down), bounded in time and,
    given ``memory`` (bytes), in address space."""

    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    command = [sys.executable, "-c", "from lightning_migrate.cli.main import main; main()", *args]
    return subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=timeout, preexec_fn=limit, check=False
    )


def _sum(terms: int) -> str:
    return "x = " + " + ".join(["1"] * terms) + "\n"


# --- deep Python --------------------------------------------------------------------------------------------


def test_deep_parentheses_are_refused_per_file_with_a_pool(tmp_path: Path) -> None:
    """1,400-deep parentheses crashed LibCST's native parser (exit 139; BrokenProcessPool with two files)."""
    deep = OLD_CALL + "x = " + "(" * 1400 + "1" + ")" * 1400 + "\n"
    (tmp_path / "deep.py").write_text(deep)
    (tmp_path / "fine.py").write_text(FIXABLE)
    (tmp_path / "fine2.py").write_text(FIXABLE)
    done = _cli("--target-version", "2.6", "--jobs", "2", ".", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert "deep.py:4:" in done.stdout + done.stderr
    assert "too deeply nested to migrate safely: too many nested parentheses" in done.stdout + done.stderr
    assert (tmp_path / "deep.py").read_text() == deep
    assert (tmp_path / "fine.py").read_text() == FIXED
    assert (tmp_path / "fine2.py").read_text() == FIXED


def test_a_sum_python_cannot_build_is_refused(tmp_path: Path) -> None:
    """100,000 terms beside a Trainer subclass: RecursionError from ast.parse in the main process."""
    huge = "from pytorch_lightning import Trainer\n\nclass T(Trainer):\n    pass\n\nt = T(gpus=2)\n" + _sum(
        100_000
    )
    (tmp_path / "huge.py").write_text(huge)
    (tmp_path / "fine.py").write_text(FIXABLE)
    done = _cli("--target-version", "2.6", ".", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert "huge.py: error: too deeply nested to migrate safely" in done.stdout + done.stderr
    assert (tmp_path / "huge.py").read_text() == huge
    assert (tmp_path / "fine.py").read_text() == FIXED


def test_depth_limit_has_room_below_and_refuses_above(tmp_path: Path) -> None:
    """Just under the limit the whole pipeline runs (LibCST writes the imports over the whole file); above it
    the file is refused at the line of the deep expression."""
    below, above = tmp_path / "below.py", tmp_path / "above.py"
    below.write_text(PLUGIN_CALL + _sum(depth.MAX_DEPTH - 5))
    above.write_text(PLUGIN_CALL + _sum(depth.MAX_DEPTH + 5))
    done = run("--target-version", "2.6", str(below), str(above))
    assert done.code == 2
    assert "DDPStrategy" in below.read_text()
    assert "gpus" not in below.read_text()
    assert "above.py:4:" in done.out + done.err
    assert f"expressions nested more than {depth.MAX_DEPTH} deep" in done.out + done.err
    assert above.read_text() == PLUGIN_CALL + _sum(depth.MAX_DEPTH + 5)


@pytest.mark.parametrize(
    "source",
    [
        *(_sum(n) for n in range(197, 203)),  # each term one node deeper: across the limit
        *("def f():\n    y = " + "-" * n + "1\n" for n in range(194, 200)),  # in a function, unary
        "x = 1\n",
        "",
    ],
)
def test_the_quick_depth_test_agrees_with_the_exact_one(source: str) -> None:
    """``depth._deeper`` (a level at a time, every file) says a tree is too deep exactly where
    ``depth._too_deep`` (which finds the node to report) finds a node, on both sides of ``MAX_DEPTH``."""
    tree = ast.parse(source)
    assert depth._deeper(tree) == (depth._too_deep(tree) is not None)


def test_null_byte_is_named(tmp_path: Path) -> None:
    path = tmp_path / "null.py"
    data = OLD_CALL.encode() + b"y = 1\x00\n"
    path.write_bytes(data)
    done = run("--target-version", "2.6", str(path))
    assert done.code == 2
    assert "null.py:4:6: error: source contains a null byte" in done.out + done.err
    assert "internal error" not in done.out + done.err
    assert "Python 3." not in done.out + done.err
    assert path.read_bytes() == data


@pytest.mark.parametrize("source", [FIXABLE, PLUGIN_CALL])
def test_cr_line_endings_are_rewritten_and_kept(tmp_path: Path, source: str) -> None:
    path = tmp_path / "cr.py"
    path.write_bytes(source.replace("\n", "\r").encode())
    done = run("--target-version", "2.6", str(path))
    assert done.code == 1, done.out + done.err  # (files were rewritten)
    assert "fixed)" in done.err
    assert " left" not in done.err
    data = path.read_bytes()
    assert b"\n" not in data
    assert data.endswith(b")\r")
    assert b"gpus" not in data
    assert b"devices=2" in data
    compile(data, "cr.py", "exec")


# --- a worker that dies -------------------------------------------------------------------------------------


def _dies_on_crash(
    path: Path, options: runner.Options, data: bytes | None = None, cleared: bool | None = None
) -> runner.FileResult:
    if path.name == "crash.py":
        os._exit(139)  # as a segfault in a native parser would end the worker
    return _PROCESS_FILE(path, options, data, cleared)


_PROCESS_FILE = runner.process_file


def test_a_dead_worker_is_a_per_file_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch a dead worker held is migrated again a file at a time: the file that kills it is reported,
    the others are migrated (the workers are forked: they run the patched function)."""
    paths = [tmp_path / name for name in ("a.py", "crash.py", "b.py", "c.py")]
    for path in paths:
        path.write_text(FIXABLE)
    monkeypatch.setattr(runner, "process_file", _dies_on_crash)
    started = time.monotonic()
    results = runner.process_all(paths, runner.Options(Version.parse("2.6")), jobs=2)
    assert time.monotonic() - started < 60
    by_name = {r.path.name: r for r in results}
    assert by_name["crash.py"].error == runner.WORKER_DIED
    assert not by_name["crash.py"].changed
    for name in ("a.py", "b.py", "c.py"):
        assert by_name[name].error == ""
        assert by_name[name].new == FIXED_ON_ONE_LINE


# --- YAML ---------------------------------------------------------------------------------------------------


def _alias_bomb(key: str) -> str:
    """Nine anchors of nine references each: 9**9 values once expanded, in about 350 bytes."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    names = "abcdefghi"
    lines += [f"{c}{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]" for p, c in zip(names, names[1:])]
    return "\n".join(lines) + f"\ntrainer:\n  {key}: *i\n"


@pytest.mark.parametrize("key", ["gpus", "plugins"])
def test_yaml_alias_bomb_is_an_unknown_value(tmp_path: Path, key: str) -> None:
    text = _alias_bomb(key)
    assert len(text.encode()) < 400
    (tmp_path / "config.yaml").write_text(text)
    started = time.monotonic()
    done = _cli("--target-version", "2.6", "config.yaml", cwd=tmp_path, timeout=30, memory=2 << 30)
    assert time.monotonic() - started < 5  # (the interpreter's start included; the file itself: 0.3 s)
    assert done.returncode == 1, done.stderr
    assert f"config.yaml:11:3: LM101 `{key}: ...` is too large to read" in done.stdout
    assert (tmp_path / "config.yaml").read_text() == text


def test_deep_yaml_is_named(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    text = "trainer:\n  gpus: " + "[" * 3000 + "1" + "]" * 3000 + "\n"
    path.write_text(text)
    started = time.monotonic()
    done = run("--target-version", "2.6", str(path))
    assert time.monotonic() - started < 3  # (ruamel's own scanner took 10 s to give up at 480 levels)
    assert done.code == 2
    column = len("  gpus: ") + yaml_words.MAX_FLOW_DEPTH + 1
    said = done.out + done.err
    assert f"config.yaml:2:{column}: error: cannot parse YAML: too deeply nested to read" in said
    assert path.read_text() == text


@pytest.mark.parametrize(
    ("text", "deep"),
    [
        ("a: " + "[" * 100 + "]" * 100, False),
        ("a: " + "[" * 101 + "]" * 101, True),
        ("a: " + "[{" * 51, True),
        ("a:\n  - " + "[\n" * 101, True),  # (flow collections span lines)
        ('a: "' + "[" * 200 + '"', False),  # quoted scalars
        ("a: '" + "[" * 200 + "''[ '", False),
        ("a: [" + "'x[', " * 200 + "]", False),
        ("# " + "[" * 200 + "\na: 1", False),  # a comment
        ("a: b#[" + "[" * 200, False),  # a plain scalar of a block: brackets are text
        ("a: x" + "[" * 200, False),
        ("a:" + "[" * 200, False),
        ("a: it's " + "[" * 200, False),  # (an apostrophe in a plain scalar starts no quoted one)
        ("a: it's\nb: " + "[" * 200, True),
    ],
)
def test_flow_depth_is_read_as_yaml_reads_it(text: str, deep: bool) -> None:
    assert (yaml_words.too_deep(text) is not None) == deep


# --- notebooks ----------------------------------------------------------------------------------------------

_CELL = {
    "cell_type": "code",
    "metadata": {},
    "outputs": [],
    "source": ["from pytorch_lightning import Trainer\n", "t = Trainer(gpus=2)\n"],
}


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        ({"a": _CELL}, "malformed notebook: `cells` is not a list"),
        ("Trainer(gpus=2)", "malformed notebook: `cells` is not a list"),
        ([["Trainer(gpus=2)"]], "malformed notebook: cell 1 is not a JSON object"),
        (
            [{**_CELL, "source": ["Trainer(gpus=2)\n", 5]}],
            "malformed notebook: cell 1's `source` is neither text",
        ),
        (
            [{**_CELL, "source": ["x = " + "+".join(["1"] * 300) + "\n", "Trainer(gpus=2)\n"]}],
            "too deeply nested",
        ),
    ],
)
def test_malformed_notebooks_are_named(tmp_path: Path, cells: object, message: str) -> None:
    path = tmp_path / "nb.ipynb"
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    path.write_text(text)
    done = run("--target-version", "2.6", str(path))
    assert done.code == 2
    assert message in done.out + done.err
    assert "internal error" not in done.out + done.err
    assert "nb.ipynb:" in done.out + done.err
    assert path.read_text() == text


def test_metadata_of_another_shape_is_read_as_python(tmp_path: Path) -> None:
    path = tmp_path / "nb.ipynb"
    notebook = {"cells": [_CELL], "metadata": {"kernelspec": "python"}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(notebook, indent=1))
    done = run("--target-version", "2.6", str(path))
    assert done.code == 1, done.out + done.err  # (the file was rewritten)
    assert "gpus" not in path.read_text()
