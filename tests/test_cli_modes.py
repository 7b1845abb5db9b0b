"""One exit-code contract in every mode (0 nothing to do, 1 work found or done, 2 error), its two knobs,
standard input, zero files, verbosity, --jobs and the progress bar."""

from __future__ import annotations

import io
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from cli_helpers import BROKEN, CLEAN, FIXABLE, FIXED, UNFIXABLE, run

from lightning_migrate.cli import command
from lightning_migrate.cli.command import Behaviour
from lightning_migrate.run import runner
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import BATCHES_PER_WORKER, _batches
from lightning_migrate.semantics.model import release

MODES = {"rewrite": (), "diff": ("--diff",), "check": ("--check",)}
TARGET = ("--target-version", "2.6")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("source", "flags", "expected"),
    [
        (CLEAN, (), 0),
        (FIXABLE, (), 1),
        (UNFIXABLE, (), 1),
        (BROKEN, (), 2),
        (FIXABLE, ("--exit-zero",), 0),
        (UNFIXABLE, ("--exit-zero",), 0),
        (BROKEN, ("--exit-zero",), 2),  # an error is never waved through
        (FIXABLE, ("--exit-zero-even-if-changed",), 0),
        (UNFIXABLE, ("--exit-zero-even-if-changed",), 1),  # still work left
        (CLEAN, ("--exit-zero-even-if-changed",), 0),
    ],
    ids=lambda v: v if isinstance(v, int) else None,
)
def test_exit_code_contract(
    tmp_path: Path, mode: str, source: str, flags: tuple[str, ...], expected: int
) -> None:
    path = tmp_path / "train.py"
    path.write_text(source)
    outcome = run(*MODES[mode], *flags, *TARGET, str(path))
    assert outcome.code == expected, outcome.err
    rewritten = mode == "rewrite" and source == FIXABLE
    assert path.read_text() == (FIXED if rewritten else source)


def test_one_bad_file_does_not_stop_the_others(tmp_path: Path) -> None:
    (tmp_path / "a_broken.py").write_text(BROKEN)
    (tmp_path / "b_undecodable.py").write_bytes(b"import pytorch_lightning\nx = '\xff'\n")
    (tmp_path / "c_train.py").write_text(FIXABLE)
    outcome = run(*TARGET, str(tmp_path))
    assert outcome.code == 2
    assert f"{(tmp_path / 'a_broken.py').as_posix()}:3:7: error: cannot parse: invalid syntax" in outcome.err
    assert "cannot parse" in outcome.err
    assert f"{(tmp_path / 'b_undecodable.py').as_posix()}:2:6: error: cannot decode as utf-8" in outcome.err
    assert (tmp_path / "a_broken.py").read_text() == BROKEN
    assert (tmp_path / "c_train.py").read_text() == FIXED
    assert "2 files could not be processed." in outcome.err


def test_stdin_rewrite_prints_the_new_source(tmp_path: Path) -> None:
    name = ("--stdin-filename", str(tmp_path / "train.py"))
    outcome = run("-", *name, *TARGET, "--show-fixes", stdin=FIXABLE.encode())
    assert outcome.code == 1
    assert outcome.out == FIXED
    assert f"{(tmp_path / 'train.py').as_posix()}:3:11: LM001" in outcome.err  # fixes listed off stdout
    assert "Rewrote" not in outcome.err  # (the rewrite is the output)
    left = run("-", *name, *TARGET, stdin=UNFIXABLE.encode())
    assert left.out == UNFIXABLE
    assert f"{(tmp_path / 'train.py').as_posix()}:5:23: LM101" in left.err  # findings left, off stdout
    assert not (tmp_path / "train.py").exists()


def test_stdin_check_and_diff(tmp_path: Path) -> None:
    check = run("--check", "-", "--stdin-filename", "pkg/train.py", *TARGET, stdin=FIXABLE.encode())
    assert check.code == 1
    assert check.out.startswith("pkg/train.py:3:11: LM001")
    diff = run("--diff", "-", *TARGET, stdin=FIXABLE.encode())
    assert diff.code == 1
    assert diff.out.startswith("--- a/-\n+++ b/-\n")
    assert "+trainer = pl.Trainer(" in diff.out  # (wrapped or not: the line length is the cwd's project's)
    assert 'strategy="ddp_find_unused_parameters_true"' in diff.out


def test_stdin_that_cannot_be_processed_comes_back_unchanged() -> None:
    for source, code in ((CLEAN, 0), (BROKEN, 2)):
        outcome = run("-", *TARGET, stdin=source.encode())
        assert (outcome.code, outcome.out) == (code, source)


def test_stdin_force_excluded_passes_through(tmp_path: Path) -> None:
    outcome = run(
        "-", "--stdin-filename", "build/train.py", "--force-exclude", *TARGET, stdin=FIXABLE.encode()
    )
    assert (outcome.code, outcome.out) == (0, FIXABLE)


def test_stdin_cannot_be_mixed_with_paths(tmp_path: Path) -> None:
    outcome = run("-", str(tmp_path), *TARGET, stdin=b"")
    assert outcome.code == 2
    assert "cannot be mixed" in outcome.err


def test_zero_files_is_a_clean_exit(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text('Trainer(accelerator="ddp")\n')
    outcome = run("--check", *TARGET, str(tmp_path))
    assert outcome.code == 0
    assert "no files to process" in outcome.err


def test_quiet_prints_only_the_target_errors_and_the_summary(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(FIXABLE)
    (tmp_path / "broken.py").write_text(BROKEN)
    outcome = run("--check", "-q", *TARGET, str(tmp_path))
    assert outcome.code == 2
    assert outcome.out == ""
    lines = outcome.err.splitlines()
    assert len(lines) == 2  # (the target the command line named is not said again)
    assert lines[0].endswith("broken.py:3:7: error: cannot parse: invalid syntax")
    assert lines[1] == ("Found 2 deprecated usages in 1 file (2 fixable). 1 file could not be processed.")


def test_verbose_says_what_happened_to_each_file(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(FIXABLE)
    (tmp_path / "b.py").write_text("print('no framework here')\n")
    (tmp_path / "c.py").write_text(CLEAN)
    outcome = run("--check", "-v", str(tmp_path / "a.py"), str(tmp_path / "b.py"), str(tmp_path / "c.py"))
    assert "lightning-migrate: configuration: none found, defaults apply" in outcome.err
    assert "target Lightning 2.6.6 (the newest release lightning-migrate knows)" in outcome.err
    assert "a.py: would be rewritten, 2 findings" in outcome.err
    assert "b.py: skipped (no call in its text can need a migration: not parsed)" in outcome.err
    assert "c.py: skipped (no call in its text can need a migration: not parsed)" in outcome.err


def test_quiet_and_verbose_contradict(tmp_path: Path) -> None:
    assert run("-q", "-v", str(tmp_path)).code == 2


def test_jobs_give_the_same_output_in_the_same_order(tmp_path: Path) -> None:
    for index in range(12):
        source = (FIXABLE, UNFIXABLE, CLEAN, BROKEN)[index % 4]
        (tmp_path / f"m{index:02}.py").write_text(source)
    serial = run("--check", *TARGET, "-j", "1", str(tmp_path))
    pooled = run("--check", *TARGET, "-j", "3", str(tmp_path))
    assert (pooled.code, pooled.out, pooled.err) == (serial.code, serial.out, serial.err)
    paths = [line.split(":", 1)[0] for line in serial.out.splitlines()]
    assert paths == sorted(paths)
    assert len(set(paths)) == 6  # 3 fixable + 3 unfixable files


@pytest.mark.parametrize("jobs", [2, 3])
def test_batches_start_with_the_largest_files_and_hold_each_file_once(jobs: int) -> None:
    """A big file handed out last would keep one worker busy while the others wait."""
    sizes = [5, 900, 40, 40, 3000, 1, 70, 70, 70, 250, 12, 8] * 3
    files = [(Path(f"m{index}.py"), size) for index, size in enumerate(sizes)]
    batches = _batches(files, jobs)
    handed = [file for batch in batches for file in batch]
    assert sorted(handed) == sorted(files)
    assert [size for _, size in handed] == sorted(sizes, reverse=True)
    budget = sum(sizes) / (jobs * BATCHES_PER_WORKER)
    for batch in batches:
        assert len(batch) == 1 or sum(size for _, size in batch) <= budget
    assert len(batches) < len(files)  # (the small files share batches)


def test_empty_files_are_batched_too() -> None:
    files = [(Path("a.yaml"), 0), (Path("b.yaml"), 0)]
    assert [file for batch in _batches(files, 2) for file in batch] == files


def test_empty_candidates_in_a_pool(tmp_path: Path) -> None:
    for name in ("a.yaml", "b.yaml", "c.ipynb"):
        (tmp_path / name).write_text("")
    outcome = run("--check", *TARGET, "-j", "2", str(tmp_path))
    assert outcome.code == 0
    assert "No deprecated Trainer flags in 3 files." in outcome.err


def test_no_pool_under_pre_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRE_COMMIT", "1")
    assert command.default_jobs() == 1
    monkeypatch.delenv("PRE_COMMIT")
    assert command.default_jobs() >= 1


class _Terminal(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty", [True, False])
def test_progress_bar_only_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tty: bool) -> None:
    files = []
    for index in range(3):
        files.append(tmp_path / f"m{index}.py")
        files[-1].write_text(CLEAN)
    stderr = _Terminal(tty)
    monkeypatch.setattr("sys.stderr", stderr)
    monkeypatch.setattr(command, "PROGRESS_DELAY_S", 0)
    results = command._process(files, Options(release("2.6")), Behaviour(jobs=1))
    assert [r.path for r in results] == files
    shown = stderr.getvalue()
    assert ("/3 [" in shown and "file/s" in shown) if tty else shown == ""


def test_a_file_with_a_null_byte_is_a_parse_error_not_ours(tmp_path: Path) -> None:
    """No Python reads it: the error says why, where, and the file is left as it is."""
    path = tmp_path / "nul.py"
    path.write_bytes(b"import pytorch_lightning as pl\nt = pl.Trainer(gpus=2)\nx = 1\x00\n")
    outcome = run(*TARGET, str(path))
    assert outcome.code == 2
    assert "nul.py:3:6: error: source contains a null byte" in outcome.err
    assert "internal error" not in outcome.err
    assert path.read_bytes().endswith(b"\x00\n")


# --- a worker's memory over a long run ----------------------------------------------------------------------


def _mixed_tree(folder: Path, files: int) -> None:
    for index in range(files):
        source = (FIXABLE, UNFIXABLE, CLEAN, BROKEN)[index % 4]
        (folder / f"m{index:03}.py").write_text(source)


def test_workers_past_the_memory_limit_are_replaced_and_the_output_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a limit every worker passes after its first file, each batch hands back all but one file and a
    fresh pool takes the rest, again and again: the same output, in the same order, as one process."""
    _mixed_tree(tmp_path, 48)  # (batches of three files or so)
    serial = run("--check", *TARGET, "-j", "1", str(tmp_path))
    started: list[int] = []
    pool = runner._pool

    def counted(jobs: int) -> ProcessPoolExecutor:
        started.append(jobs)
        return pool(jobs)

    monkeypatch.setattr(runner, "_pool", counted)
    monkeypatch.setattr(runner, "WORKER_MEMORY_LIMIT", 0)
    monkeypatch.setattr(runner, "WORKER_GROWTH", 0)
    renewed = run("--check", *TARGET, "-j", "2", str(tmp_path))
    assert (renewed.code, renewed.out, renewed.err) == (serial.code, serial.out, serial.err)
    assert len(started) > 3  # (pools were replaced; each batch of several files stopped after one)
    monkeypatch.setattr(runner, "WORKER_MEMORY_LIMIT", 2**50)  # (none is replaced)
    started.clear()
    pooled = run("--check", *TARGET, "-j", "2", str(tmp_path))
    assert (pooled.code, pooled.out, pooled.err) == (serial.code, serial.out, serial.err)
    assert started == [2]


def test_rewrites_with_replaced_workers_write_every_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _mixed_tree(tmp_path, 48)
    monkeypatch.setattr(runner, "WORKER_MEMORY_LIMIT", 0)
    monkeypatch.setattr(runner, "WORKER_GROWTH", 0)
    outcome = run(*TARGET, "-j", "2", str(tmp_path))
    assert outcome.code == 2  # (the broken files)
    for index in range(48):
        text = (tmp_path / f"m{index:03}.py").read_text()
        assert text == {0: FIXED, 1: UNFIXABLE, 2: CLEAN, 3: BROKEN}[index % 4]


def test_a_batch_stops_after_the_file_that_passes_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _mixed_tree(tmp_path, 4)
    paths = sorted(tmp_path.iterdir())
    options = Options(release("2.6"))
    monkeypatch.setattr(runner, "WORKER_MEMORY_LIMIT", 0)
    monkeypatch.setattr(runner, "WORKER_GROWTH", 0)
    done = runner.process_batch(paths, options)
    assert [r.path for r in done.results] == paths[:1]
    assert done.left == paths[1:]
    monkeypatch.setattr(runner, "WORKER_GROWTH", 2**50)  # (grown too little since the worker started)
    done = runner.process_batch(paths, options)
    assert [r.path for r in done.results] == paths
    assert done.left == []


def test_resident_memory_is_read() -> None:
    assert runner._resident() > 1 << 20
