"""A run leaves nothing in the system's temporary folder: the copies of Hydra config folders it composes
again after a rewrite are made in the run's folder (``files.scratch``), which the process driving the run
removes at its end, also where forked workers made them (a worker never runs ``atexit`` handlers)."""

from __future__ import annotations

import shutil
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
