"""The fault and bad-input suite: every hostile input, in check, diff and rewrite mode, as a table.

    python benchmarks/hostile.py                              # targets 1.5 and 2.6, a Markdown table
    python benchmarks/hostile.py --target-version 2.6 --only alias

Each input is a small tree built in a temporary folder. The command runs in a process of its own (``--jobs
2``, so the pool is in the way), bounded in time; the table gives, per input, the exit code of each mode, the
first message that names the problem, what is on disk afterwards (``unchanged``: every byte as before;
``rewritten``: the files the input expects rewritten hold exactly the expected bytes, the rest unchanged),
the slowest mode's wall time and the peak resident memory of the run (the largest of the command's process
and its pool workers: ``wait4``'s ``ru_maxrss`` covers the waited-for children). ``--check`` and ``--diff``
must never change a byte; no run may print a traceback or say "internal error".

``tests/test_hostile_suite.py`` runs the same table for target 2.6 and asserts every column.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import signal
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

COMMAND = (sys.executable, "-c", "from lightning_migrate.cli.main import main; main()")
LIMIT_S = 60.0  # a run that takes longer hangs
MODES = {"check": ("--check",), "diff": ("--diff",), "rewrite": ("--show-fixes",)}  # (it lists its fixes)

OLD = 'import pytorch_lightning as pl\n\ntrainer = pl.Trainer(accelerator="ddp", gpus=2, max_epochs=3)\n'
NEW = {  # what each target makes of OLD
    "1.5": 'import pytorch_lightning as pl\n\ntrainer = pl.Trainer(strategy="ddp", gpus=2, max_epochs=3)\n',
    "2.6": (  # (wrapped: on one line it would pass 88 characters, the line length where none is configured)
        "import pytorch_lightning as pl\n\n"
        "trainer = pl.Trainer(\n"
        '    strategy="ddp_find_unused_parameters_true",\n'
        '    accelerator="cuda",\n'
        "    devices=2,\n"
        "    max_epochs=3,\n"
        ")\n"
    ),
}
IN_CELLS = {  # what each target makes of OLD in a notebook cell or a docs code block (never wrapped)
    **NEW,
    "2.6": (
        "import pytorch_lightning as pl\n\n"
        'trainer = pl.Trainer(strategy="ddp_find_unused_parameters_true", accelerator="cuda", devices=2,'
        " max_epochs=3)\n"
    ),
}
TARGETS = tuple(NEW)


def _sum(terms: int) -> str:
    return "x = " + " + ".join(["1"] * terms) + "\n"


def _alias_bomb(key: str) -> str:
    """Nine anchors of nine references each: 9**9 values once expanded, in under 400 bytes."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    names = "abcdefghi"
    lines += [f"{c}{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]" for p, c in zip(names, names[1:])]
    return "\n".join(lines) + f"\ntrainer:\n  {key}: *i\n"


def _notebook(cells: object, nbformat: int = 4) -> str:
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": nbformat, "nbformat_minor": 5}, indent=1)


def _notebook3(source: str) -> str:
    """An nbformat 3 notebook (IPython 1 and 2): cells in worksheets, a code cell's source under `input`."""
    cell = {
        "cell_type": "code",
        "input": source.splitlines(keepends=True),
        "language": "python",
        "outputs": [],
    }
    return json.dumps({"metadata": {}, "nbformat": 3, "nbformat_minor": 0, "worksheets": [{"cells": [cell]}]})


COMMAND_LINE = "python train.py --trainer.accelerator ddp --trainer.gpus 2\n"
NEW_COMMAND_LINE = {
    "1.5": "python train.py --trainer.strategy ddp --trainer.gpus 2\n",
    "2.6": (
        "python train.py --trainer.strategy ddp_find_unused_parameters_true --trainer.accelerator cuda"
        " --trainer.devices 2\n"
    ),
}
HEREDOC = f"cat > notes.txt <<'EOF'\n{COMMAND_LINE}EOF\n"


_CELL = {"cell_type": "code", "metadata": {}, "outputs": [], "source": OLD.splitlines(keepends=True)}


@dataclasses.dataclass(frozen=True)
class Case:
    """A hostile input: ``files`` (name -> bytes, or a callable that makes the entry at a path), the exit code
    of check, diff and rewrite, a text every mode prints, and the files a rewrite changes, to these bytes."""

    name: str
    files: dict[str, bytes | Callable[[Path], None]]
    exits: tuple[int, int, int]
    says: str
    rewritten: dict[str, Callable[[str], bytes]] = dataclasses.field(default_factory=dict)
    posix: bool = False  # FIFOs, devices, permissions
    args: tuple[str, ...] = (".",)  # what the command is given


def _text(files: dict[str, str]) -> dict[str, bytes | Callable[[Path], None]]:
    return {name: text.encode() for name, text in files.items()}


def _link(target: str) -> Callable[[Path], None]:
    return lambda path: path.symlink_to(target)


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _folder(path: Path) -> None:
    path.mkdir()


def _package(files: dict[str, str]) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        path.mkdir()
        for name, text in files.items():
            (path / name).write_text(text)

    return make


def _read_only(data: bytes) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        path.write_bytes(data)
        path.chmod(0o444)

    return make


def _hard_link(target: str) -> Callable[[Path], None]:
    return lambda path: os.link(path.parent / target, path)


def _new(
    transform: Callable[[str], bytes] = str.encode, made: dict[str, str] = NEW
) -> Callable[[str], bytes]:
    """The bytes a rewrite gives: ``transform`` of what the target makes of ``OLD`` (``made``)."""
    return lambda target: transform(made[target])


def _lines(end: str) -> Callable[[str], bytes]:
    return lambda text: text.replace("\n", end).encode()


def _made(text: Callable[[], str | bytes]) -> Callable[[Path], None]:
    """A file whose bytes are made when the case is built: this process holds no large text when it starts
    the command (a forked child's peak memory counts what its parent held)."""

    def make(path: Path) -> None:
        data = text()
        path.write_bytes(data.encode() if isinstance(data, str) else data)

    return make


DEEP = OLD + "x = " + "(" * 1400 + "1" + ")" * 1400 + "\n"
HUGE_SUM = (
    "from pytorch_lightning import Trainer\n\nclass T(Trainer):\n    pass\n\nt = T(accelerator='ddp')\n"
)
HUGE_SUM += _sum(100_000)
COOKIE = "# -*- coding: latin-1 -*-\n# caf\xe9\n"
BOM = b"\xef\xbb\xbf"
MANY = 2000


def _long() -> str:
    return "s = '" + "x" * 5_000_000 + "'\n"


CALL = OLD.split("\n\n")[1]  # the call's line
# clean at every target
CLEAN = 'import pytorch_lightning as pl\n\ntrainer = pl.Trainer(strategy="ddp", max_epochs=3)\n'

CASES: tuple[Case, ...] = (
    Case("clean Python", _text({"a.py": CLEAN}), (0, 0, 0), ""),
    Case("an old call", _text({"a.py": OLD}), (1, 1, 1), "LM001", {"a.py": _new()}),
    Case(
        "1,400-deep parentheses, two other files",
        _text({"deep.py": DEEP, "fine.py": OLD, "fine2.py": OLD}),
        (2, 2, 2),
        "deep.py:4:205: error: too deeply nested",
        {"fine.py": _new(), "fine2.py": _new()},
    ),
    Case("100,000-term sum beside a subclass", _text({"huge.py": HUGE_SUM}), (2, 2, 2), "too deeply nested"),
    Case("a null byte", {"n.py": OLD.encode() + b"y = 1\x00\n"}, (2, 2, 2), "source contains a null byte"),
    Case(
        "CR-only line ends",
        _text({"cr.py": OLD.replace("\n", "\r")}),
        (1, 1, 1),
        "LM001",
        {"cr.py": _new(_lines("\r"))},
    ),
    Case(
        "CRLF line ends",
        _text({"crlf.py": OLD.replace("\n", "\r\n")}),
        (1, 1, 1),
        "LM001",
        {"crlf.py": _new(_lines("\r\n"))},
    ),
    Case(
        "latin-1 with a coding cookie",
        {"l.py": (COOKIE + OLD).encode("latin-1")},
        (1, 1, 1),
        "LM001",
        {"l.py": _new(lambda text: (COOKIE + text).encode("latin-1"))},
    ),
    Case(
        "UTF-8 with a BOM",
        {"b.py": BOM + OLD.encode()},
        (1, 1, 1),
        "LM001",
        {"b.py": _new(lambda t: BOM + t.encode())},
    ),
    Case("bytes that are not UTF-8", {"bad.py": OLD.encode() + b"# \xff\xfe\n"}, (2, 2, 2), "bad.py"),
    Case("an unknown coding cookie", {"c.py": b"# coding: klingon\n" + OLD.encode()}, (2, 2, 2), "c.py"),
    Case("a syntax error beside an old call", _text({"s.py": OLD + "def f(:\n"}), (2, 2, 2), "s.py:4:"),
    Case(
        "a 5 MB line",
        {"long.py": _made(lambda: OLD + _long())},
        (1, 1, 1),
        "LM001",
        {"long.py": _new(lambda t: (t + _long()).encode())},
    ),
    Case(
        f"{MANY:,} old calls in one file",
        {"many.py": _made(lambda: OLD + CALL * MANY)},
        (1, 1, 1),
        "LM001",
        {"many.py": _new(lambda t: (t + t.split("\n\n")[1] * MANY).encode())},
    ),
    Case(
        "a file over the size limit",
        {"big.py": _made(lambda: OLD.encode() + b"#" * (33 << 20) + b"\n")},
        (2, 2, 2),
        "big.py",
    ),
    Case(
        "a symlink loop in the walk",
        {"c.py": CLEAN.encode(), "a.py": _link("b.py"), "b.py": _link("a.py")},
        (0, 0, 0),
        "a.py: symbolic link loop, skipped",
        posix=True,
    ),
    Case(
        "x.py -> /dev/zero, walked",
        {"c.py": CLEAN.encode(), "x.py": _link("/dev/zero")},
        (0, 0, 0),
        "",
        posix=True,
    ),
    Case(
        "x.py -> /dev/zero, named",
        {"x.py": _link("/dev/zero")},
        (2, 2, 2),
        "x.py: error: cannot read: a character device",
        posix=True,
        args=("x.py",),
    ),
    Case("a FIFO named x.py, walked", {"c.py": CLEAN.encode(), "x.py": _fifo}, (0, 0, 0), "", posix=True),
    Case(
        "a FIFO named x.py, named",
        {"x.py": _fifo},
        (2, 2, 2),
        "x.py: error: cannot read: a FIFO",
        posix=True,
        args=("x.py",),
    ),
    Case(
        "a folder reached twice through a link",
        {"pkg": _package({"a.py": OLD}), "link": _link("pkg")},
        (1, 1, 1),
        "pkg/a.py:3:",
        {"pkg/a.py": _new()},
        posix=True,
    ),
    Case(
        "a file given twice",
        _text({"a.py": OLD}),
        (1, 1, 1),
        "LM001",
        {"a.py": _new()},
        args=("a.py", "./a.py"),
    ),
    Case("a folder named x.py", {"x.py": _folder}, (0, 0, 0), ""),
    Case("a read-only file", {"ro.py": _read_only(OLD.encode())}, (1, 1, 2), "ro.py", posix=True),
    Case(
        "a hard-linked file",
        {"h.py": OLD.encode(), "h2.txt": _hard_link("h.py")},
        (1, 1, 1),
        "LM001",
        {"h.py": _new(), "h2.txt": _new()},
        posix=True,
    ),
    Case(
        "YAML alias bomb under accelerator:",
        _text({"config.yaml": _alias_bomb("accelerator")}),
        (1, 1, 1),
        "too large to read",
    ),
    Case(
        "YAML alias bomb under plugins:",
        _text({"config.yaml": _alias_bomb("plugins")}),
        (1, 1, 1),
        "too large to read",
    ),
    Case(
        "3,000-deep YAML",
        _text({"config.yaml": "trainer:\n  gpus: " + "[" * 3000 + "1" + "]" * 3000 + "\n"}),
        (2, 2, 2),
        "too deeply nested to read",
    ),
    Case(
        "malformed YAML with a trainer key",
        _text({"config.yaml": "trainer:\n  gpus: [1\n"}),
        (2, 2, 2),
        "config.yaml",
    ),
    Case(
        "a notebook that is not JSON",
        _text({"nb.ipynb": '{"cells": [Trainer(gpus=2)'}),
        (2, 2, 2),
        "nb.ipynb",
    ),
    Case(
        "notebook cells in a dict",
        _text({"nb.ipynb": _notebook({"a": _CELL})}),
        (2, 2, 2),
        "`cells` is not a list",
    ),
    Case(
        "a notebook source holding a number",
        _text({"nb.ipynb": _notebook([{**_CELL, "source": ["Trainer(gpus=2)\n", 5]}])}),
        (2, 2, 2),
        "is neither text",
    ),
    Case(
        "a notebook with a 5 MB output",
        {
            "nb.ipynb": _made(
                lambda: _notebook([{**_CELL, "outputs": [{"output_type": "stream", "text": [_long()]}]}])
            )
        },
        (1, 1, 1),
        "LM00",
        {
            "nb.ipynb": _new(
                lambda t: _notebook(
                    [
                        {
                            **_CELL,
                            "source": t.splitlines(keepends=True),
                            "outputs": [{"output_type": "stream", "text": [_long()]}],
                        }
                    ]
                ).encode(),
                IN_CELLS,
            )
        },
    ),
    Case(
        "an nbformat 3 notebook",
        _text({"nb.ipynb": _notebook3(OLD)}),
        (1, 1, 1),
        "LM001",
        {"nb.ipynb": _new(lambda t: _notebook3(t).encode(), IN_CELLS)},
    ),
    Case(
        "an nbformat 2 notebook", _text({"nb.ipynb": _notebook([_CELL], nbformat=2)}), (2, 2, 2), "nbformat 2"
    ),
    Case(
        "a Markdown fence never closed",
        _text({"guide.md": "# Train\n\n```python\n" + OLD}),
        (1, 1, 1),
        "guide.md:6:",
        {"guide.md": _new(lambda t: ("# Train\n\n```python\n" + t).encode(), IN_CELLS)},
        args=("guide.md",),
    ),
    Case("a shell here-document's body", _text({"run.sh": HEREDOC}), (0, 0, 0), "", args=("run.sh",)),
    Case(
        "the same line as a command",
        _text({"run.sh": COMMAND_LINE}),
        (1, 1, 1),
        "run.sh:1:",
        {"run.sh": lambda target: NEW_COMMAND_LINE[target].encode()},
        args=("run.sh",),
    ),
    Case("an empty notebook file", _text({"nb.ipynb": ""}), (0, 0, 0), ""),
    Case("a cookie look-alike in Markdown", _text({"a.md": "# Decoding: the guide\n"}), (0, 0, 0), ""),
    Case(
        "a cookie look-alike in YAML",
        _text({"a.yaml": "# Recoding: fast\ntrainer:\n  max_epochs: 1\n"}),
        (0, 0, 0),
        "",
    ),
)


@dataclasses.dataclass(frozen=True)
class Result:
    exit: int
    output: str  # stdout and stderr, as text
    seconds: float
    peak_mb: float
    timed_out: bool


def run(root: Path, *args: str) -> Result:
    """The command in a process group of its own, bounded in time; its peak memory from ``wait4``."""
    with tempfile.TemporaryFile() as out:
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:  # the child: its own group, so a timeout kills the pool workers too
            os.setpgid(0, 0)
            os.chdir(root)
            os.dup2(out.fileno(), 1)
            os.dup2(out.fileno(), 2)
            env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
            os.execve(COMMAND[0], [*COMMAND, *args], env)
        timed_out = False
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() - started > LIMIT_S:
                timed_out = True
                os.killpg(pid, signal.SIGKILL)
            time.sleep(0.01)
        seconds = time.monotonic() - started
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    code = os.waitstatus_to_exitcode(status)
    return Result(code, text, seconds, usage.ru_maxrss / 1024, timed_out)


def build(case: Case, root: Path) -> None:
    for name, content in case.files.items():
        path = root / name
        if callable(content):
            content(path)
        else:
            path.write_bytes(content)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def snapshot(root: Path) -> dict[str, str]:
    """What each entry under ``root`` is (links not followed): a regular file's digest, a link's target, or
    another kind's mode."""
    found: dict[str, str] = {}
    for folder, folders, files in os.walk(root):
        for name in sorted([*folders, *files]):
            path = Path(folder, name)
            mode = path.lstat().st_mode
            key = path.relative_to(root).as_posix()
            if stat.S_ISLNK(mode):
                found[key] = "-> " + os.readlink(path)
            elif stat.S_ISREG(mode):
                found[key] = _digest(path.read_bytes())
            elif not stat.S_ISDIR(mode):
                found[key] = stat.filemode(mode)
    return found


@dataclasses.dataclass(frozen=True)
class Row:
    case: Case
    target: str
    results: dict[str, Result]
    problems: list[str]

    @property
    def message(self) -> str:
        """The first line of the rewrite's output that holds the text the case expects."""
        lines = self.results["rewrite"].output.splitlines()
        said = [line for line in lines if self.case.says and self.case.says in line]
        return (said or [""])[0]


def measure(case: Case, target: str) -> Row:
    """Every mode of ``case`` for ``target``, each on a fresh copy, and what went wrong (``problems``)."""
    results: dict[str, Result] = {}
    problems: list[str] = []
    for mode, flags in MODES.items():
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            build(case, root)
            before = snapshot(root)
            result = run(root, "--target-version", target, "--jobs", "2", *flags, *case.args)
            after = snapshot(root)
            for path in root.rglob("*"):  # a read-only file must not keep the folder from being removed
                if path.is_file() and not path.is_symlink():
                    path.chmod(0o644)
        results[mode] = result
        expected = {name: _digest(make(target)) for name, make in case.rewritten.items()}
        want = dict(before, **expected) if mode == "rewrite" else before
        for name in sorted(set(want) | set(after)):
            if want.get(name) != after.get(name):
                problems.append(f"{mode}: {name} is not as expected")
        if result.timed_out:
            problems.append(f"{mode}: no end after {LIMIT_S:.0f} s")
        for bad in ("Traceback", "internal error"):
            if bad in result.output:
                problems.append(f"{mode}: says {bad!r}")
        if case.says not in result.output:
            problems.append(f"{mode}: does not say {case.says!r}")
    exits = tuple(results[mode].exit for mode in MODES)
    if exits != case.exits:
        problems.append(f"exits {exits}, expected {case.exits}")
    return Row(case, target, results, problems)


def cases(only: str | None = None) -> Iterator[Case]:
    for case in CASES:
        if (only is None or only in case.name) and (os.name == "posix" or not case.posix):
            yield case


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target-version", action="append", choices=TARGETS, help="default: all")
    parser.add_argument("--only", help="the inputs whose name holds this text")
    options = parser.parse_args()
    print("| input | target | check | diff | rewrite | message | on disk | slowest s | peak MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    failed = 0
    for target in options.target_version or TARGETS:
        for case in cases(options.only):
            row = measure(case, target)
            exits = [str(result.exit) for result in row.results.values()]
            disk = "rewritten" if case.rewritten else "unchanged"
            slowest = max(result.seconds for result in row.results.values())
            peak = max(result.peak_mb for result in row.results.values())
            message = row.message.replace("|", "\\|")[:90]
            status = disk if not row.problems else "; ".join(row.problems)
            failed += bool(row.problems)
            cells = [case.name, target, *exits, message, status, f"{slowest:.2f}", f"{peak:.0f}"]
            print("| " + " | ".join(cells) + " |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
