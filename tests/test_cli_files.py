"""Which files are processed (walk order, .gitignore, default and user excludes) and how they are written
(atomically, mode bits kept, every byte outside the edit preserved: CRLF, BOM, PEP 263 cookies)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cli_helpers import CLEAN, FIXABLE, FIXED, run

from lightning_migrate.files import discovery as files

TARGET = ("--target-version", "2.6")


def listed(*args: str) -> list[str]:
    """The files a --check -v run looked at, in order."""
    outcome = run("--check", "-v", *TARGET, *args)
    prefix = "lightning-migrate: "
    return [
        line[len(prefix) :].split(": ", 1)[0]
        for line in outcome.err.splitlines()
        if line.startswith(prefix) and line.endswith(("findings", "finding", "not parsed)"))
    ]


def make(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(CLEAN)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    make(
        tmp_path,
        "b.py",
        "a/z.py",
        "a/b/c.py",
        "notes.txt",
        ".venv/lib/x.py",
        "venv/x.py",
        ".tox/py/x.py",
        "build/lib/x.py",
        "dist/x.py",
        "node_modules/x.py",
        "__pycache__/x.py",
        ".mypy_cache/x.py",
        "pkg.egg-info/x.py",
        ".git/hooks/x.py",
    )
    return tmp_path


def test_walk_is_sorted_and_skips_the_default_excludes(tree: Path) -> None:
    assert listed(".") == ["a/b/c.py", "a/z.py", "b.py"]


def test_gitignore_is_respected(tree: Path) -> None:
    (tree / ".gitignore").write_text("generated/\n*_pb2.py\n!keep_pb2.py\n")
    (tree / "a" / ".gitignore").write_text("z.py\n")
    make(tree, "generated/x.py", "m_pb2.py", "keep_pb2.py")
    assert listed(".") == ["a/b/c.py", "b.py", "keep_pb2.py"]
    assert listed("a") == ["a/b/c.py"]  # the repository's .gitignore applies below its root too
    assert listed("--no-respect-gitignore", ".") == [
        "a/b/c.py",
        "a/z.py",
        "b.py",
        "generated/x.py",
        "keep_pb2.py",
        "m_pb2.py",
    ]


def _walk_path_by_path(top: Path, selection: files.FileSelection) -> list[Path]:
    """What the walk took before it read excludes and .gitignore files folder by folder: every entry asked
    ``FileSelection.excluded`` and ``_GitIgnores.ignored`` on its own path."""
    ignores = files._GitIgnores(top) if selection.respect_gitignore else None
    found = []
    for folder, dirs, names in os.walk(top):
        here = Path(folder)
        dirs[:] = sorted(
            d
            for d in dirs
            if not selection.excluded(here / d, is_dir=True)
            and not (ignores and ignores.ignored(here / d, is_dir=True))
        )
        for name in sorted(names):
            path = here / name
            if (
                name.endswith(".py")
                and not selection.excluded(path)
                and not (ignores and ignores.ignored(path))
            ):
                found.append(path)
    return found


@pytest.mark.parametrize("gitignore", [True, False])
def test_the_folder_by_folder_walk_takes_what_the_path_by_path_walk_took(
    tree: Path, tmp_path_factory: pytest.TempPathFactory, gitignore: bool
) -> None:
    (tree / ".git").mkdir(exist_ok=True)
    (tree / ".gitignore").write_text("generated/\n*_pb2.py\n!keep_pb2.py\n/top_only.py\nlinked/skip.py\n")
    (tree / "a" / ".gitignore").write_text("z.py\n!/b/\nb/c.py\n")
    (tree / "a" / "b" / ".gitignore").write_text("!c.py\n*.py\n")
    make(tree, "generated/x.py", "m_pb2.py", "keep_pb2.py", "top_only.py", "a/top_only.py", "a/b/d.py")
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    make(elsewhere, "skip.py", "m_pb2.py", "k.py")
    (tree / "linked").symlink_to(elsewhere, target_is_directory=True)
    (tree / "a" / "link_pb2.py").symlink_to(elsewhere / "k.py")
    (tree / "a" / "link_ok.py").symlink_to(tree / "m_pb2.py")
    excludes = [*files.DEFAULT_EXCLUDES, "a/b/d.py"]
    for root in (tree, tree / "a", elsewhere):  # the patterns' root: the walked folder, inside it, outside
        selection = files.FileSelection(root, excludes, ("*.txt",), respect_gitignore=gitignore)
        for top in (tree, tree / "a", tree / "linked", Path(os.path.relpath(tree / "a"))):
            expected = _walk_path_by_path(top, selection)
            assert list(files._walk(top, selection)) == expected, (root, top)


def test_exclude_replaces_the_defaults_and_extend_exclude_adds(tree: Path) -> None:
    assert listed("--exclude", "a/b/", "--exclude", ".git", ".")[:3] == [
        ".mypy_cache/x.py",
        ".tox/py/x.py",
        ".venv/lib/x.py",
    ]
    assert listed("--extend-exclude", "a/b/", "--extend-exclude", "b.py", ".") == ["a/z.py"]


def test_explicit_files_are_taken_unless_force_exclude(tree: Path) -> None:
    assert listed("build/lib/x.py", "b.py") == ["build/lib/x.py", "b.py"]
    assert listed("--force-exclude", "build/lib/x.py", "b.py") == ["b.py"]
    assert listed("--extend-exclude", "b.py", "--force-exclude", "b.py") == []


def test_a_file_given_twice_is_processed_once(tree: Path) -> None:
    assert listed("b.py", "./b.py", ".")[:1] == ["b.py"]
    assert listed("b.py", "./b.py", ".").count("b.py") == 1


@pytest.mark.parametrize(
    ("name", "before", "after"),
    [
        ("crlf", FIXABLE.replace("\n", "\r\n").encode(), FIXED.replace("\n", "\r\n").encode()),
        ("bom", b"\xef\xbb\xbf" + FIXABLE.encode(), b"\xef\xbb\xbf" + FIXED.encode()),
        ("no-final-newline", FIXABLE.rstrip("\n").encode(), FIXED.rstrip("\n").encode()),
        (
            "latin-1",
            ("# -*- coding: latin-1 -*-\n# Entraîné à Zürich\n" + FIXABLE).encode("latin-1"),
            ("# -*- coding: latin-1 -*-\n# Entraîné à Zürich\n" + FIXED).encode("latin-1"),
        ),
        (
            "mixed-endings",
            b"import pytorch_lightning as pl\r\n\nx = 1\r\n" + FIXABLE.split("\n\n", 1)[1].encode(),
            b"import pytorch_lightning as pl\r\n\nx = 1\r\n" + FIXED.split("\n\n", 1)[1].encode(),
        ),
    ],
)
def test_bytes_outside_the_edit_are_preserved(tmp_path: Path, name: str, before: bytes, after: bytes) -> None:
    path = tmp_path / "train.py"
    path.write_bytes(before)
    outcome = run(*TARGET, str(path))
    assert outcome.code == 1, outcome.err
    assert path.read_bytes() == after


def test_write_is_atomic_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(FIXABLE)
    path.chmod(0o754)
    inode = path.stat().st_ino
    run(*TARGET, str(path))
    assert path.read_text() == FIXED
    assert stat.S_IMODE(path.stat().st_mode) == 0o754
    assert path.stat().st_ino != inode  # replaced by a rename, not rewritten in place
    assert sorted(os.listdir(tmp_path)) == ["train.py"]  # no temporary file left behind


def test_a_symlink_stays_a_link_to_the_rewritten_file(tmp_path: Path) -> None:
    target = tmp_path / "real.py"
    target.write_text(FIXABLE)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    run(*TARGET, str(link))
    assert link.is_symlink()
    assert target.read_text() == FIXED
