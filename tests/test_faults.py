"""Faults while a rewrite writes: a file that changed since it was read (edited, replaced by a link), one
that may not be written, owner, group and hard links, a folder that refuses the write, Ctrl-C, and the
temporary files of a killed run. Each case checks the exit status, the message and the bytes on disk."""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import CLEAN, FIXABLE, FIXED, Outcome, run

from lightning_migrate.files import sourcefile
from lightning_migrate.run import runner

ARGS = ("--target-version", "2.6", "--jobs", "1")
EDITED = FIXABLE.replace("max_epochs=3", "max_epochs=5")


def _between_read_and_write(monkeypatch: pytest.MonkeyPatch, change: Callable[[], object]) -> None:
    monkeypatch.setattr(runner, "before_write", change)


def _rewrite(*paths: Path) -> Outcome:
    return run(*ARGS, *map(str, paths))


def test_a_file_edited_during_the_run_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edited, other = tmp_path / "edited.py", tmp_path / "other.py"
    edited.write_text(FIXABLE)
    other.write_text(FIXABLE)
    _between_read_and_write(monkeypatch, lambda: edited.write_text(EDITED))
    outcome = _rewrite(edited, other)
    assert outcome.code == 2
    assert f"{edited.as_posix()}: error: changed since it was read (edited or replaced during the run)" in (
        outcome.err
    )
    assert edited.read_text() == EDITED  # the user's edit is kept
    assert other.read_text() == FIXED  # the other files are written


def test_a_file_touched_but_not_changed_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "train.py"
    path.write_text(FIXABLE)
    _between_read_and_write(monkeypatch, lambda: os.utime(path, (1, 1)))  # the bytes are compared, not times
    assert _rewrite(path).code == 1
    assert path.read_text() == FIXED


def test_a_file_replaced_by_a_symlink_is_not_written_through_it(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    path = tree / "train.py"
    path.write_text(FIXABLE)
    outside = tmp_path_factory.mktemp("outside") / "secret.py"
    outside.write_text(FIXABLE)  # the same bytes: only what the path is tells them apart

    def swap() -> None:
        path.unlink()
        path.symlink_to(outside)

    _between_read_and_write(monkeypatch, swap)
    outcome = _rewrite(tree)
    assert outcome.code == 2
    assert (
        f"{path.as_posix()}: error: changed since it was read (it is now a symbolic link), not written"
        in (outcome.err)
    )
    assert path.is_symlink()
    assert outside.read_text() == FIXABLE
    assert "(2 left)" in outcome.err  # (none fixed)


def test_a_file_replaced_by_another_file_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "train.py"
    path.write_text(FIXABLE)

    def replace() -> None:  # another inode with the same bytes (a checkout, an editor's save)
        (tmp_path / "new.py").write_text(FIXABLE)
        os.replace(tmp_path / "new.py", path)

    _between_read_and_write(monkeypatch, replace)
    outcome = _rewrite(path)
    assert outcome.code == 2
    assert "changed since it was read (edited or replaced during the run), not written" in outcome.err
    assert path.read_text() == FIXABLE


def test_a_symlink_the_walk_takes_still_rewrites_its_file(tmp_path: Path) -> None:
    target = tmp_path / "real.py"
    target.write_text(FIXABLE)
    link = tmp_path / "link.py"
    link.symlink_to("real.py")
    assert _rewrite(link).code == 1
    assert link.is_symlink()
    assert target.read_text() == FIXED


def test_a_read_only_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(FIXABLE)
    path.chmod(0o444)
    outcome = _rewrite(path)
    assert outcome.code == 2
    assert f"{path.as_posix()}: error: no write permission (mode 0444), left as it was" in outcome.err
    assert path.read_text() == FIXABLE
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert "(2 left)" in outcome.err  # (none fixed)
    assert run("--check", *ARGS, str(path)).code == 1  # only writing needs the permission


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_owner_group_and_mode_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(FIXABLE)
    os.chown(path, 1234, 1235)
    path.chmod(0o640)
    assert _rewrite(path).code == 1
    status = path.stat()
    assert path.read_text() == FIXED
    assert (status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)) == (1234, 1235, 0o640)


def test_a_hard_linked_file_is_written_in_place(tmp_path: Path) -> None:
    path, other = tmp_path / "train.py", tmp_path / "same.py"
    path.write_text(FIXABLE)
    os.link(path, other)
    inode = path.stat().st_ino
    assert _rewrite(path).code == 1
    assert path.read_text() == FIXED
    assert other.read_text() == FIXED
    assert path.stat().st_ino == inode == other.stat().st_ino
    assert sorted(os.listdir(tmp_path)) == ["same.py", "train.py"]


def test_a_folder_that_refuses_the_write_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, other = tmp_path / "locked" / "train.py", tmp_path / "open" / "other.py"
    for file in (path, other):
        file.parent.mkdir()
        file.write_text(FIXABLE)
    path.parent.chmod(0o555)
    if os.geteuid() == 0:  # (root writes in a read-only folder: refuse as the file system does for others)
        import tempfile

        mkstemp = tempfile.mkstemp

        def refuse(*args: object, dir: str | Path, **kwargs: object) -> tuple[int, str]:
            if Path(dir) == path.parent:
                raise PermissionError(13, "Permission denied", str(dir))
            return mkstemp(*args, dir=dir, **kwargs)  # type: ignore[call-overload, no-any-return]

        monkeypatch.setattr(tempfile, "mkstemp", refuse)
    try:
        outcome = _rewrite(path, other)
    finally:
        path.parent.chmod(0o755)
    assert outcome.code == 2
    assert f"{path.as_posix()}: error: cannot write, file left as it was: Permission denied" in outcome.err
    assert path.read_text() == FIXABLE
    assert other.read_text() == FIXED
    assert "(2 fixed, 2 left)" in outcome.err  # the other file's two are fixed, this one's are not
    assert "1 file could not be processed" in outcome.err
    assert sorted(os.listdir(path.parent)) == ["train.py"]


def test_ctrl_c_says_which_files_were_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second, clean = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"
    first.write_text(FIXABLE)
    second.write_text(FIXABLE)
    clean.write_text(CLEAN)
    write = sourcefile.write_checked

    def interrupted(path: Path, *args: object) -> None:
        if path == second:
            raise KeyboardInterrupt
        write(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(sourcefile, "write_checked", interrupted)
    outcome = _rewrite(tmp_path)
    assert outcome.code == 130
    assert (
        f"lightning-migrate: interrupted; 1 file written:\n  {first.as_posix()}\nno other file was written."
        in (outcome.err)
    )
    assert "Aborted!" not in outcome.err
    assert (first.read_text(), second.read_text(), clean.read_text()) == (FIXED, FIXABLE, CLEAN)


def test_ctrl_c_before_any_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)

    def interrupt() -> None:
        raise KeyboardInterrupt

    _between_read_and_write(monkeypatch, interrupt)
    outcome = _rewrite(path)
    assert outcome.code == 130
    assert "lightning-migrate: interrupted; no file was written." in outcome.err
    assert path.read_text() == FIXABLE


def test_leftovers_of_a_killed_run_are_removed_beside_the_files_it_rewrites(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(FIXABLE)
    old = time.time() - 3600
    leftover = tmp_path / ".train.py.lightning-migrate.ab_c1234.tmp"
    kept = {
        ".train.py.ab_c1234.tmp": old,  # not our pattern (an older release's, or another tool's)
        ".other.py.lightning-migrate.ab_c1234.tmp": old,  # beside a file this run does not rewrite
        ".train.py.lightning-migrate.abc12345.tmp.bak": old,  # not the exact pattern
        ".train.py.lightning-migrate.zz_z9999.tmp": time.time() + 3600,  # newer than the run: not a leftover
    }
    leftover.write_text("half a file")
    os.utime(leftover, (old, old))
    for name, when in kept.items():
        (tmp_path / name).write_text("x")
        os.utime(tmp_path / name, (when, when))
    assert _rewrite(path).code == 1
    assert path.read_text() == FIXED
    assert sorted(os.listdir(tmp_path)) == sorted([*kept, "train.py"])


def test_temporary_files_carry_the_pattern(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    names: list[str] = []
    mkstemp = tempfile.mkstemp

    def recorded(*args: object, **kwargs: object) -> tuple[int, str]:
        descriptor, name = mkstemp(*args, **kwargs)  # type: ignore[call-overload]
        names.append(Path(name).name)
        return descriptor, name  # type: ignore[no-any-return]

    monkeypatch.setattr(tempfile, "mkstemp", recorded)
    path = tmp_path / "train.py"
    path.write_text(FIXABLE)
    assert _rewrite(path).code == 1
    assert len(names) == 1
    assert re.fullmatch(r"\.train\.py\.lightning-migrate\.[a-z0-9_]{8}\.tmp", names[0])
    assert sorted(os.listdir(tmp_path)) == ["train.py"]
