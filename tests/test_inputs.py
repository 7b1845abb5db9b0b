"""Hostile and broken inputs, read safely: a symbolic link loop, a link to /dev/zero, a FIFO, a file over the
size limit, a folder that cannot be read, a first line that looks like a PEP 263 cookie in a file that is not
Python, and a run killed while its pool works. Each case runs the command in a subprocess with a time limit
(a hang fails the test instead of stopping the suite) and asserts the exit code, the message and the bytes on
disk."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from cli_helpers import CLEAN, FIXABLE, FIXED, run

from lightning_migrate.files import sourcefile

TARGET = ("--target-version", "2.6")
LIMIT_S = 60  # a case that takes longer hangs
COMMAND = (sys.executable, "-c", "from lightning_migrate.cli.main import main; main()")

posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs, devices and signals of POSIX")
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def migrate(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*COMMAND, *TARGET, *args], cwd=cwd, capture_output=True, text=True, timeout=LIMIT_S, check=False
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry under ``root``: a regular file's bytes, else what it is (a link's target, a FIFO)."""
    found: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[name] = "-> " + os.readlink(path)
        elif stat.S_ISFIFO(path.lstat().st_mode):
            found[name] = "fifo"
        elif path.is_file():
            found[name] = path.read_bytes()
    return found


# --- symbolic link loops ------------------------------------------------------------------------------------


@posix_only
def test_a_symlink_loop_in_a_walked_folder_is_skipped_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(FIXABLE)
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")
    (tmp_path / "self.py").symlink_to("self.py")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "loop").symlink_to("loop")  # (no source suffix: not even looked at)
    before = snapshot(tmp_path)
    checked = migrate("--check", ".", cwd=tmp_path)
    assert checked.returncode == 1  # the old call; a loop hides no file
    for name in ("a.py", "b.py", "self.py"):
        assert f"warning: {name}: symbolic link loop, skipped" in checked.stderr
    assert "loop," not in checked.stderr.replace("link loop, skipped", "")
    assert "train.py:3:" in checked.stdout
    assert snapshot(tmp_path) == before
    rewritten = migrate(".", cwd=tmp_path)
    assert rewritten.returncode == 1
    assert snapshot(tmp_path) == {**before, "train.py": FIXED.encode()}


@posix_only
def test_a_symlink_loop_that_gitignore_ignores_is_skipped_silently(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("a.py\n")
    (tmp_path / "a.py").symlink_to("a.py")
    (tmp_path / "ok.py").write_text(CLEAN)
    done = migrate("--check", ".", cwd=tmp_path)
    assert done.returncode == 0
    assert "loop" not in done.stderr


# --- what is not a regular file -----------------------------------------------------------------------------


@posix_only
@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_link_to_dev_zero_is_an_error_named_explicitly_and_skipped_in_a_walk(tmp_path: Path) -> None:
    (tmp_path / "x.py").symlink_to("/dev/zero")
    (tmp_path / "ok.py").write_text(CLEAN)
    named = migrate("--check", "x.py", "ok.py", cwd=tmp_path)
    assert named.returncode == 2
    assert "x.py: error: cannot read: a character device, not a source file" in named.stderr
    walked = migrate("--check", "-v", ".", cwd=tmp_path)
    assert walked.returncode == 0
    assert "x.py" not in walked.stdout + walked.stderr
    assert (tmp_path / "x.py").is_symlink()
    assert os.readlink(tmp_path / "x.py") == "/dev/zero"


@posix_only
def test_a_fifo_is_an_error_named_explicitly_and_skipped_in_a_walk(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.py")
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "sub" / "y.yaml")
    (tmp_path / "train.py").write_text(FIXABLE)
    before = snapshot(tmp_path)
    named = migrate("--check", "x.py", "sub/y.yaml", cwd=tmp_path)  # (opening one would wait for a writer)
    assert named.returncode == 2
    assert "x.py: error: cannot read: a FIFO (named pipe), not a source file" in named.stderr
    assert "sub/y.yaml: error: cannot read: a FIFO (named pipe), not a source file" in named.stderr
    walked = migrate(".", cwd=tmp_path)
    assert walked.returncode == 1
    assert "x.py" not in walked.stdout + walked.stderr
    assert "y.yaml" not in walked.stdout + walked.stderr
    assert snapshot(tmp_path) == {**before, "train.py": FIXED.encode()}


def test_a_file_over_the_size_limit_is_an_error_left_as_it_is(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    with big.open("wb") as handle:  # a sparse file: its size without the disk space
        handle.write(FIXABLE.encode())
        handle.truncate(sourcefile.MAX_BYTES + 1)
    (tmp_path / "train.py").write_text(FIXABLE)
    started = time.monotonic()
    done = migrate(".", cwd=tmp_path)
    assert time.monotonic() - started < LIMIT_S / 2
    assert done.returncode == 2
    assert "big.py: error: cannot read: larger than the 32 MiB limit for a source file" in done.stderr
    assert big.stat().st_size == sourcefile.MAX_BYTES + 1
    with big.open("rb") as handle:
        assert handle.read(len(FIXABLE)) == FIXABLE.encode()
    assert (tmp_path / "train.py").read_text() == FIXED  # the other files are still processed


def test_the_limit_is_on_the_bytes_read(tmp_path: Path) -> None:
    path = tmp_path / "x.py"
    path.write_bytes(b"x = 1\n" * 4)
    assert sourcefile.read_bytes(path, limit=24) == b"x = 1\n" * 4
    with pytest.raises(sourcefile.SourceError, match="larger than the 23 bytes limit"):
        sourcefile.read_bytes(path, limit=23)


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="Linux's /proc")
def test_a_file_longer_than_its_size_is_read_whole_up_to_the_limit() -> None:
    """A regular file may hold more than its size says (/proc's say 0; one may grow while it is read): it is
    read on past its size, up to the limit, as one read of the whole limit would."""
    path = Path("/proc/self/status")
    assert path.stat().st_size == 0
    whole = sourcefile.read_bytes(path)
    assert whole.startswith(b"Name:")
    assert b"\nVmRSS:" in whole
    with pytest.raises(sourcefile.SourceError, match="larger than the 8 bytes limit"):
        sourcefile.read_bytes(path, limit=8)


# --- folders that cannot be read ----------------------------------------------------------------------------


def test_an_unreadable_folder_is_an_error_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(The tests run as root, where chmod 000 does not stop reading: the walk is refused here.)"""
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "train.py").write_text(FIXABLE)
    (tmp_path / "ok.py").write_text(CLEAN)
    before = snapshot(tmp_path)
    real_scandir = os.scandir

    def scandir(path: int | str | os.PathLike[str] = ".") -> object:
        if not isinstance(path, int) and Path(path).name == "locked":  # (rmtree walks by descriptors)
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "scandir", scandir)
    for mode in ("--check", "--diff"):
        done = run(mode, *TARGET, ".")
        assert done.code == 2, done.err
        assert "locked: error: cannot read folder, its files are not checked: Permission denied" in done.err
        assert "1 file could not be processed" in done.err
    (tmp_path / "train.py").write_text(FIXABLE)
    rewritten = run(*TARGET, ".")
    assert rewritten.code == 2
    assert "locked: error: cannot read folder" in rewritten.err
    monkeypatch.undo()
    assert snapshot(tmp_path) == {**before, "train.py": FIXED.encode()}  # the rest is still migrated


@posix_only
@pytest.mark.skipif(
    not (hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("setpriv")),
    reason="runs the command as nobody: needs root and setpriv",
)
def test_a_chmod_000_folder_is_an_error_for_a_user_who_cannot_read_it() -> None:
    with tempfile.TemporaryDirectory() as name:  # (pytest's own folders are its user's alone)
        top = Path(name)
        top.chmod(0o755)
        (top / "locked").mkdir()
        (top / "locked" / "train.py").write_text(FIXABLE)
        (top / "ok.py").write_text(CLEAN)
        (top / "locked").chmod(0)
        if any(not parent.stat().st_mode & stat.S_IXOTH for parent in top.parents):
            pytest.skip(f"{top} is not reachable by others")
        before = {p: p.read_bytes() for p in (top / "locked" / "train.py", top / "ok.py")}
        as_nobody = ("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *COMMAND, *TARGET)
        try:
            done = subprocess.run(
                [*as_nobody, "--check", "."],
                cwd=top,
                capture_output=True,
                text=True,
                timeout=LIMIT_S,
                check=False,
            )
        finally:
            (top / "locked").chmod(0o755)
        if "Operation not permitted" in done.stderr or "No module named" in done.stderr:
            pytest.skip(f"cannot run as nobody here: {done.stderr[-200:]}")
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode == 2, done.stderr
        assert "locked: error: cannot read folder, its files are not checked: Permission denied" in (
            done.stderr
        )
        assert {p: p.read_bytes() for p in before} == before


# --- a PEP 263 cookie is Python's alone ---------------------------------------------------------------------

SHELL_OLD = "python train.py --trainer.gpus 2\n"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("guide.md", "# Decoding: the guide\n\n```python\n" + FIXABLE + "```\n"),
        ("trainer.yaml", "# Recoding: fast\ntrainer:\n  gpus: 2\n"),
        ("train.sh", "#!/bin/bash\n# Encoding: fast\n" + SHELL_OLD),
        ("run", "#!/bin/bash\n# vim: set fileencoding=nothing :\n" + SHELL_OLD),  # (a shell script by its #!)
    ],
)
def test_a_coding_cookie_look_alike_in_a_file_that_is_not_python_is_text(
    tmp_path: Path, name: str, text: str
) -> None:
    (tmp_path / name).write_text(text)
    done = migrate("--check", "--extend-include", "*.md", "--extend-include", "*.sh", name, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "error" not in done.stderr
    assert "decode" not in done.stderr
    assert f"{name}:" in done.stdout
    assert (tmp_path / name).read_text() == text


def test_a_python_file_still_reads_its_cookie(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("# -*- coding: nothing -*-\n" + FIXABLE)
    (tmp_path / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + FIXABLE.encode())
    done = migrate("--check", "bad.py", "latin.py", cwd=tmp_path)
    assert done.returncode == 2
    assert "bad.py:1: error: cannot decode: unknown encoding: nothing" in done.stderr
    assert "latin.py:5:" in done.stdout


# --- a killed run's workers end with it ---------------------------------------------------------------------

OLD_CALL = (
    "import pytorch_lightning as pl\n\n\ndef build{i}(args):\n"
    "    return pl.Trainer(accelerator='ddp', gpus=2,"
    " plugins=pl.plugins.DDPPlugin(find_unused_parameters=False), precision=16, max_epochs={i})\n"
)


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found |= {int(child) for child in (task / "children").read_text().split()}
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie has ended: it holds no memory, no pipe)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _killed_run_env(tmp_path: Path) -> dict[str, str]:
    """A run killed by a signal cannot remove its temporary folder (``files.scratch``): it goes in the
    test's own folder, not the machine's."""
    return {**os.environ, "TMPDIR": str(tmp_path)}


@linux_only
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="no /proc")
@pytest.mark.parametrize("kill", [signal.SIGKILL, signal.SIGTERM])
def test_the_pool_workers_end_with_a_killed_run(tmp_path: Path, kill: signal.Signals) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(600):
        (tree / f"m{i:03}.py").write_text(OLD_CALL.format(i=i) * 4)
    before = snapshot(tree)
    process = subprocess.Popen(
        [*COMMAND, *TARGET, "--check", "-j", "2", "-q", "tree"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_killed_run_env(tmp_path),
    )
    try:
        deadline = time.monotonic() + LIMIT_S
        workers: set[int] = set()
        while len(workers) < 2 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
            workers = {pid for pid in _children(process.pid) if _running(pid)}
        assert len(workers) == 2, "the pool never started"
        time.sleep(0.3)  # (the workers at work)
        assert process.poll() is None, "the run ended before it could be killed: make the tree bigger"
        process.send_signal(kill)
        assert process.wait(timeout=10) == -kill
        deadline = time.monotonic() + 5
        while any(map(_running, workers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in workers if _running(pid)], "workers outlived their parent"
        assert process.stdout is not None
        assert process.stdout.read() == b""
        if kill == signal.SIGTERM:  # (the run leaves through its exit handlers: its folder goes)
            assert not list(tmp_path.glob("lightning-migrate-*"))
    finally:
        process.kill()
        process.wait()
        for pid in workers:  # (only where the test fails: none may outlive it)
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
        assert process.stdout is not None
        process.stdout.close()
    assert snapshot(tree) == before


@posix_only
def test_a_run_killed_while_it_writes_leaves_every_file_whole(tmp_path: Path) -> None:
    """``kill -9`` in the middle of the writes: every file is its old text or its whole rewrite, and the next
    run finishes the job and removes the killed run's temporary files."""
    tree = tmp_path / "tree"
    tree.mkdir()
    count = 400
    for i in range(count):
        (tree / f"m{i:04}.py").write_text(FIXABLE)
    first, last = tree / "m0000.py", tree / f"m{count - 1:04}.py"
    process = subprocess.Popen(
        [*COMMAND, *TARGET, "-j", "2", "-q", "tree"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=_killed_run_env(tmp_path),
    )
    try:
        deadline = time.monotonic() + LIMIT_S
        while first.read_text() == FIXABLE and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    texts = [path.read_text() for path in sorted(tree.glob("*.py"))]
    assert len(texts) == count
    assert set(texts) <= {FIXABLE, FIXED}
    if last.read_text() == FIXED:
        pytest.skip("every file was written before the kill landed: nothing to check mid-write")
    done = migrate("-j", "2", "-q", "tree", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert sorted(os.listdir(tree)) == [f"m{i:04}.py" for i in range(count)]
    assert {path.read_text() for path in tree.iterdir()} == {FIXED}
