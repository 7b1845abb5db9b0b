"""A run leaves nothing in the system's temporary folder: the copies of Hydra config folders it composes
again after a rewrite are made in the run's folder (``files.scratch``), which the process driving the run
removes at its end, also where forked workers made them (a worker never runs ``atexit`` handlers)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from lightning_migrate.files import scratch
from lightning_migrate.run.file_kinds import BY_SUFFIX
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import process_each
from lightning_migrate.semantics.model import release

pytest.importorskip("hydra")

PROJECTS = Path(__file__).parent.parent / "fixtures" / "projects"


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_removes_the_copies_it_composed(
    jobs: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "project"
    shutil.copytree(PROJECTS / "hydra_base", root)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    seen: list[Path] = []

    def progress() -> None:  # (in the parent, as each file's result arrives: the workers' copies are there)
        seen.extend(temporary.glob(f"{scratch.PREFIX}*/copy-*"))

    files = sorted(p for p in root.rglob("*") if p.suffix in BY_SUFFIX)
    results = list(process_each(files, Options(release("2.6"), root=root), jobs, progress))
    assert any(result.changed for result in results)
    assert seen, "the fixture no longer composes a migrated copy: choose one that does"
    assert list(temporary.iterdir()) == []


def test_outside_a_run_the_folder_is_the_process_own() -> None:
    with scratch.for_run() as first:
        assert scratch.folder() == first
        with scratch.for_run() as second:
            assert scratch.folder() == second
        assert scratch.folder() == first
    assert not Path(first).exists()
    assert not Path(second).exists()


INTERRUPTED = """
import sys, tempfile
tempfile.tempdir = sys.argv[1]
from pathlib import Path
from lightning_migrate.run.runner import process_each  # (first: which modules the interpreter clears first)
from lightning_migrate.run.options import Options
from lightning_migrate.semantics.model import release

def run():
    run = process_each([Path(p) for p in sys.argv[2:]], Options(release("2.6")), 2)
    for _ in run:
        raise KeyboardInterrupt

try:
    run()
except KeyboardInterrupt as interrupt:
    kept = interrupt  # (its traceback holds the suspended run)
    sys.exit(130)
"""


def test_a_run_interrupted_leaves_nothing(tmp_path: Path) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    files = [tmp_path / "a.py", tmp_path / "b.py"]
    for path in files:
        path.write_text("import pytorch_lightning as pl\npl.Trainer(gpus=2)\n")
    done = subprocess.run([sys.executable, "-c", INTERRUPTED, str(temporary), *map(str, files)], check=False)
    assert done.returncode == 130
    assert list(temporary.iterdir()) == []


TERMINATED = """
import os, signal, sys, tempfile
tempfile.tempdir = sys.argv[1]
from pathlib import Path
from lightning_migrate.run.runner import process_each
from lightning_migrate.run.options import Options
from lightning_migrate.semantics.model import release

for _ in process_each([Path(p) for p in sys.argv[3:]], Options(release("2.6")), int(sys.argv[2])):
    assert os.listdir(sys.argv[1]), "the run's folder is made before its first result"
    os.kill(os.getpid(), signal.SIGTERM)
sys.exit(3)  # (not reached: the signal ends the run)
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_ended_by_sigterm_leaves_nothing(jobs: int, tmp_path: Path) -> None:
    """SIGTERM's default action ends the process without its `atexit` handlers: the run's folder was left.
    The run now leaves through the normal path, and its process still dies of the signal."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    files = [tmp_path / f"{name}.py" for name in "abc"]
    for path in files:
        path.write_text("import pytorch_lightning as pl\npl.Trainer(gpus=2)\n")
    command = [sys.executable, "-c", TERMINATED, str(temporary), str(jobs), *map(str, files)]
    done = subprocess.run(command, check=False, env={**os.environ, "TMPDIR": str(temporary)})
    assert done.returncode == -signal.SIGTERM
    assert list(temporary.iterdir()) == []


def test_sigterm_has_its_handler_back_after_a_run() -> None:
    """The run's handler is set only over the default action, and taken away when the run ends; a handler of
    the program's own stays as it is."""
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    with scratch.for_run():
        assert scratch.sets_sigterm(signal.getsignal(signal.SIGTERM))
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL

    def own(signum: int, frame: object) -> None:
        pass

    signal.signal(signal.SIGTERM, own)
    try:
        with scratch.for_run():
            assert signal.getsignal(signal.SIGTERM) is own
        assert signal.getsignal(signal.SIGTERM) is own
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
