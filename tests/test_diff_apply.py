"""``--diff`` is what ``git apply`` and ``patch -p1`` apply to the files on disk to give exactly the bytes a
rewrite writes (issue 22): a file's lines in its own encoding (a Latin-1 file's diff is Latin-1, several
encodings in one diff), its BOM, CRLF and CR-only line ends, no final newline; a file reached twice (a
symbolic link to a file or a folder, the same file named twice) is migrated, shown and counted once. Each
case runs ``--diff`` in a process of its own (what its standard output carries is bytes) in one copy of a
tree and a rewrite in another, then applies the diff with each tool to a third copy and compares every
file's bytes with the rewrite's."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_helpers import FIXABLE, run

TARGET = ("--target-version", "2.6")
TIMEOUT_S = 120  # one CLI run on a few small files: a second or two
# git and patch as a user runs them, but with no configuration of this machine's (core.autocrlf would
# convert line ends on the way)
GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def _crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


def _notebook(*sources: str) -> str:
    cells = [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": [source]}
        for source in sources
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


LATIN_1 = (
    "# -*- coding: latin-1 -*-\n# Entraîné à Zürich\nimport pytorch_lightning as pl\n\n"
    'trainer = pl.Trainer(accelerator="ddp", gpus=2, max_epochs=3)  # für 2 GPUs\n'
).encode("latin-1")
# line 1 is edited: the BOM is on the `-`, `+` and context lines of its hunk
BOM = b"\xef\xbb\xbf" + b"from pytorch_lightning import Trainer; trainer = Trainer(gpus=2)\nx = 1\n"


@dataclass(frozen=True)
class Case:
    name: str
    files: dict[str, bytes]  # path -> bytes
    args: tuple[str, ...] = (".",)
    links: tuple[tuple[str, str], ...] = ()  # (path, what the symbolic link holds)
    folders: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()  # what the diff's `---` lines name, each once; default: a/ every file
    jobs: str = "1"
    in_diff: tuple[bytes, ...] = ()  # what the diff must hold, as bytes


CASES = [
    Case(
        "latin-1 with a cookie",
        {"train.py": LATIN_1},
        in_diff=(b" # Entra\xeen\xe9 \xe0 Z\xfcrich\n", b"  # f\xfcr 2 GPUs\n+trainer"),
    ),
    Case(
        "UTF-8 BOM, a hunk at line 1",
        {"train.py": BOM},
        in_diff=(
            b"@@ -1,2 +1,6 @@\n-\xef\xbb\xbffrom pytorch_lightning",  # (the call wrapped)
            b"\n+\xef\xbb\xbffrom pytorch_lightning",
        ),
    ),
    Case(
        "CRLF",
        {"train.py": _crlf(FIXABLE + "\nprint(trainer)\n")},
        in_diff=(b"max_epochs=3,\r\n+)\r\n \r\n",),
    ),
    Case(
        "CR-only",
        {"train.py": (FIXABLE + "\nprint(trainer)\n").replace("\n", "\r").encode()},
        in_diff=(b"@@ -1 +1 @@\n-import", b"print(trainer)\r\n\\ No newline at end of file\n+import"),
    ),
    Case(
        "no final newline",
        {
            "edited_last.py": FIXABLE.rstrip("\n").encode(),
            "kept_last.py": (FIXABLE + "print(trainer)").encode(),
            "crlf_last.py": _crlf(FIXABLE).rstrip(b"\r\n"),
        },
    ),
    Case(
        "a symbolic link to a folder given first",
        {"pkg/train.py": FIXABLE.encode()},
        args=("link", "pkg"),
        links=(("link", "pkg"),),
        shown=("a/pkg/train.py",),
    ),
    Case(
        "a symbolic link to a file in the walked tree",
        {"pkg/train.py": FIXABLE.encode()},
        links=(("pkg/alias.py", "train.py"), ("a_link.py", "pkg/train.py"), ("link", "pkg")),
        shown=("a/pkg/train.py",),
    ),
    Case(
        "the same file named three ways",
        {"train.py": _crlf(FIXABLE)},
        args=("train.py", "./train.py", "sub/../train.py"),
        folders=("sub",),
        shown=("a/train.py",),
    ),
    Case(
        "a mix of encodings in one diff",
        {
            "a_latin.py": LATIN_1,
            "b_cp1252.py": ("# coding: cp1252\n" + FIXABLE + "# 5 € per GPU hour\n").encode("cp1252"),
            "c_utf8.py": (FIXABLE.replace("max_epochs=3)", "max_epochs=3)  # Zürich")).encode(),
            "d_bom.py": BOM,
        },
        jobs="2",  # (the bytes read come back from the pool's workers)
    ),
    Case(
        "names with a space, a tab, a newline, quotes, a backslash and an umlaut",
        {
            name: FIXABLE.encode()
            for name in ("my file.py", "tab\tx.py", "new\nline.py", 'q"uo\\te.py', "zü.py")
        },
        # as git writes them: C-quoted, a tab after a name with a space (the end of a name for GNU patch)
        shown=("a/my file.py\t", '"a/new\\nline.py"', '"a/q\\"uo\\\\te.py"', '"a/tab\\tx.py"', "a/zü.py"),
    ),
    Case(
        "a notebook and a YAML file beside Python",
        {
            "config.yaml": b"trainer:\n  accelerator: ddp  # der Trainingstyp\n  gpus: 2\n",
            "train.ipynb": _notebook(
                "import pytorch_lightning as pl\n", "trainer = pl.Trainer(gpus=1)"
            ).encode(),
            "train.py": FIXABLE.encode(),
        },
    ),
]


def _build(root: Path, case: Case) -> None:
    for folder in case.folders:
        (root / folder).mkdir(parents=True)
    for name, data in case.files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    for name, target in case.links:
        (root / name).symlink_to(target)


def _tree(root: Path) -> dict[str, tuple[str, bytes]]:
    """Every entry under ``root`` but git's: a file's bytes, a link's text (nothing followed)."""
    entries: dict[str, tuple[str, bytes]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in [*dirs, *files]:
            path = Path(folder, name)
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                entries[key] = ("link", os.readlink(path).encode())
            elif path.is_file():
                entries[key] = ("file", path.read_bytes())
    return entries


@contextlib.contextmanager
def _working_in(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@dataclass(frozen=True)
class Migrated:
    case: Case
    original: Path
    diff: subprocess.CompletedProcess[bytes]
    diffed: dict[str, tuple[str, bytes]]  # the tree --diff ran in, after it
    rewritten: dict[str, tuple[str, bytes]]  # the tree a rewrite ran in, after it
    rewrite_code: int
    rewrite_out: str


@pytest.fixture(scope="module", params=CASES, ids=[case.name for case in CASES])
def migrated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Migrated:
    case: Case = request.param
    base = tmp_path_factory.mktemp("diff")
    original = base / "original"
    original.mkdir()
    _build(original, case)
    for name in ("diffed", "rewritten"):
        shutil.copytree(original, base / name, symlinks=True)
    args = (*TARGET, "--jobs", case.jobs, *case.args)
    command = [sys.executable, "-c", "from lightning_migrate.cli.main import main; main()", "--diff", *args]
    diff = subprocess.run(command, cwd=base / "diffed", capture_output=True, timeout=TIMEOUT_S, check=False)
    with _working_in(base / "rewritten"):
        rewrite = run(*args)
    return Migrated(
        case, original, diff, _tree(base / "diffed"), _tree(base / "rewritten"), rewrite.code, rewrite.out
    )


def _git_apply(patch: Path, where: Path) -> subprocess.CompletedProcess[bytes]:
    subprocess.run(["git", "init", "-q"], cwd=where, env=GIT_ENV, check=True, timeout=TIMEOUT_S)
    return subprocess.run(
        ["git", "apply", str(patch)],
        cwd=where,
        env=GIT_ENV,
        capture_output=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def _patch(patch: Path, where: Path) -> subprocess.CompletedProcess[bytes]:
    command = ["patch", "-p1", "--batch", "--no-backup-if-mismatch", "-i", str(patch)]
    return subprocess.run(command, cwd=where, capture_output=True, timeout=TIMEOUT_S, check=False)


TOOLS: dict[str, Callable[[Path, Path], subprocess.CompletedProcess[bytes]]] = {
    "git": _git_apply,
    "patch": _patch,
}


@pytest.mark.parametrize("tool", TOOLS)
def test_the_diff_applied_gives_the_bytes_a_rewrite_writes(
    migrated: Migrated, tool: str, tmp_path: Path
) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"`{tool}` is not installed: the diff is not applied with it here")
    patch = tmp_path / "migration.diff"
    patch.write_bytes(migrated.diff.stdout)
    applied = tmp_path / "applied"
    shutil.copytree(migrated.original, applied, symlinks=True)
    done = TOOLS[tool](patch, applied)
    assert done.returncode == 0, (done.stdout + done.stderr).decode(errors="replace")
    assert _tree(applied) == migrated.rewritten


def test_the_diff_changes_nothing_and_names_each_file_once(migrated: Migrated) -> None:
    original = _tree(migrated.original)
    assert migrated.diff.returncode == 1, migrated.diff.stderr.decode()
    assert b"error" not in migrated.diff.stderr
    assert migrated.diffed == original  # --diff wrote nothing
    assert migrated.rewrite_code == 1, migrated.rewrite_out  # (a file written twice: exit 2)
    assert migrated.rewritten != original  # (the cases are not vacuous)
    shown = migrated.case.shown or tuple(
        f"a/{name}" for name in sorted(migrated.case.files)
    )  # (a walk's order)
    headers = [line for line in migrated.diff.stdout.splitlines() if line.startswith(b"--- ")]
    assert headers == [f"--- {name}".encode() for name in shown]
    files = f"in {len(shown)} file{'s' * (len(shown) != 1)} "
    assert files in migrated.diff.stderr.decode()
    for expected in migrated.case.in_diff:
        assert expected in migrated.diff.stdout


def test_a_hard_link_is_one_file_rewritten_once(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(LATIN_1)
    os.link(tmp_path / "a.py", tmp_path / "b.py")
    with _working_in(tmp_path):
        diff = run("--diff", *TARGET, "--jobs", "1", ".")
        assert [line for line in diff.out_bytes.splitlines() if line.startswith(b"--- ")] == [b"--- a/a.py"]
        assert "in 1 file " in diff.err
        rewrite = run(*TARGET, "--jobs", "1", ".")
    assert rewrite.code == 1, rewrite.out  # (the second write of the same inode found it changed: exit 2)
    assert (tmp_path / "a.py").read_bytes() == (tmp_path / "b.py").read_bytes() != LATIN_1
    assert (tmp_path / "a.py").stat().st_ino == (tmp_path / "b.py").stat().st_ino


def test_a_diff_of_standard_input_is_in_its_encoding(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("`git` is not installed")
    args = (*TARGET, "--stdin-filename", "train.py", "-")
    diff = run("--diff", *args, stdin=LATIN_1)
    assert diff.code == 1
    assert (
        b'+trainer = pl.Trainer(\n+    strategy="ddp_find_unused_parameters_true",\n+    accelerator="cuda",'
        in (diff.out_bytes)
    )
    assert b"\n+)  # f\xfcr 2 GPUs\n" in diff.out_bytes  # (Latin-1: the UTF-8 would be \xc3\xbc)
    (tmp_path / "train.py").write_bytes(LATIN_1)
    assert diff.out_bytes.startswith(b"--- a/train.py\n+++ b/train.py\n")  # (the name given)
    (tmp_path / "migration.diff").write_bytes(diff.out_bytes)
    done = _git_apply(tmp_path / "migration.diff", tmp_path)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert (tmp_path / "train.py").read_bytes() == run(*args, stdin=LATIN_1).out_bytes != LATIN_1
