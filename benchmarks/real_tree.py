"""Time lightning-migrate on real trees nobody here wrote, side by side with the parsers, in one run.

    python benchmarks/real_tree.py --repeat 3                       # Lightning 1.4.9 from its sdist
    python benchmarks/real_tree.py --repo PATH/TO/pytorch-lightning   # ... from its git tag, with tests/

Trees (fetched at run time into the work folder; nothing is copied into this repository):

  old:    Lightning 1.4.9's own sources, examples and tests (``git archive 1.4.9`` of ``--repo``), or, without
          ``--repo``, the sources and examples of its source distribution (``pip download --no-binary``,
          no tests in it);
  modern: with ``--repo``, Lightning ``--modern-tag``'s ``src/lightning/pytorch`` and ``tests/tests_pytorch``,
          code with nothing to migrate for its own release;
  big:    one generated 4 MB file of Lightning-free code with a single old Trainer call.

For each, best of ``--repeat``, wall clock and CPU time of a fresh process: the tool (``--diff`` on old and
big, ``--check`` on modern), a bare single-process LibCST parse of every file, ``ast.parse`` of every file,
and ``ruff check`` where ruff is installed, run in turn in each round (so that other work on the machine
weighs on all of them alike). Goals (issue 10): old ``--diff`` at most 1/3 of the LibCST
parse; big at most 10x ``ast.parse``; modern ``--check`` within 3x of ``ruff check``.

Every command is timed with Python's bytecode cache on, as users have it (``run.best_of``: no
``PYTHONDONTWRITEBYTECODE`` in its environment, one untimed run first to write the ``.pyc`` files).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run import best_of_each, tool

PARSE = """
import sys
from pathlib import Path
import {module}
for path in sorted(Path(sys.argv[1]).rglob("*.py")) if Path(sys.argv[1]).is_dir() else [Path(sys.argv[1])]:
    {module}.{function}(path.read_text(encoding="utf-8"))
"""
LIBCST_PARSE = PARSE.format(module="libcst", function="parse_module")
AST_PARSE = PARSE.format(module="ast", function="parse")

PIP_DOWNLOAD = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:"]
OLD_CALL = 'trainer = pl.Trainer(accelerator="ddp", gpus=2, max_epochs=3)\n'


def old_tree(work: Path, repo: Path | None) -> Path:
    folder = work / "lightning-1.4.9"
    if folder.exists():
        return folder
    if repo is not None:
        folder.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(repo), "archive", "1.4.9", "pytorch_lightning", "tests", "pl_examples"],
            capture_output=True,
            check=True,
        ).stdout
        subprocess.run(["tar", "x", "-C", str(folder)], input=archive, check=True)
        return folder
    subprocess.run(
        [*PIP_DOWNLOAD, "pytorch-lightning==1.4.9", "-d", str(work)],
        check=True,
    )
    with tarfile.open(work / "pytorch-lightning-1.4.9.tar.gz") as sdist:
        sdist.extractall(work / "sdist", filter="data")
    root = work / "sdist" / "pytorch-lightning-1.4.9"
    folder.mkdir()
    for part in ("pytorch_lightning", "pl_examples"):
        shutil.copytree(root / part, folder / part)
    return folder


def modern_tree(work: Path, repo: Path, tag: str) -> Path:
    folder = work / f"lightning-{tag}"
    if not folder.exists():
        folder.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(repo), "archive", tag, "src/lightning/pytorch", "tests/tests_pytorch"],
            capture_output=True,
            check=True,
        ).stdout
        subprocess.run(["tar", "x", "-C", str(folder)], input=archive, check=True)
    return folder


def big_file(work: Path, megabytes: float) -> Path:
    """Lightning-free functions up to ``megabytes``, one old Trainer call in the middle."""
    path = work / "big.py"
    block = (
        "def step_{i}(values, scale={i}):\n"
        '    """Scale and sum."""\n'
        "    total = 0\n"
        "    for value in values:\n"
        "        total += value * scale  # running sum\n"
        "    return {{'step': {i}, 'total': total}}\n\n\n"
    )
    parts, size, i, placed = ["import pytorch_lightning as pl\n\n\n"], 0, 0, False
    while size < megabytes * 1e6:
        text = block.format(i=i)
        parts.append(text)
        size += len(text)
        i += 1
        if not placed and size >= megabytes * 1e6 / 2:
            parts.append(OLD_CALL + "\n\n")
            placed = True
    path.write_text("".join(parts), encoding="utf-8")
    return path


def count(path: Path) -> tuple[int, float]:
    files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return len(files), sum(f.stat().st_size for f in files) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    parser.add_argument("--repo", type=Path, help="a clone of Lightning-AI/pytorch-lightning, with its tags")
    parser.add_argument("--modern-tag", default="2.6.0")
    parser.add_argument("--big-mb", type=float, default=4.0)
    parser.add_argument("--skip-big", action="store_true", help="leave out the 4 MB file (slow today)")
    parser.add_argument("--workdir", type=Path, help="keep the trees here (default: a temporary folder)")
    args = parser.parse_args()

    work = args.workdir or Path(tempfile.mkdtemp(prefix="lm-real-"))
    work.mkdir(parents=True, exist_ok=True)
    migrate = [*tool(), "--target-version", "2.6"]
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    has_ruff = Path(ruff).exists()
    parsers = [
        ("bare LibCST parse", lambda p: [sys.executable, "-c", LIBCST_PARSE, str(p)], {0}),
        ("ast.parse", lambda p: [sys.executable, "-c", AST_PARSE, str(p)], {0}),
    ]
    if has_ruff:
        check = [ruff, "check", "--no-cache", "--exit-zero", "-q"]
        parsers.append(("ruff check", lambda p: [*check, str(p)], {0}))

    trees = [("old", old_tree(work, args.repo), "--diff", {0, 1}, "bare LibCST parse", 1 / 3)]
    if args.repo is not None:
        modern = modern_tree(work, args.repo, args.modern_tag)
        trees.append(("modern", modern, "--check", {0, 1}, "ruff check" if has_ruff else "", 3.0))
    if not args.skip_big:
        trees.append(("big", big_file(work, args.big_mb), "--diff", {1}, "ast.parse", 10.0))

    print(f"{'best of ' + str(args.repeat):44s} {'wall':>8s} {'cpu':>8s}")
    for name, path, mode, expect, baseline, goal in trees:
        files, megabytes = count(path)
        print(f"{name}: {path.name}, {files} files, {megabytes:.1f} MB")
        commands = [(f"lightning-migrate {mode}", [*migrate, mode, str(path)], expect)]
        commands += [(label, command(path), codes) for label, command, codes in parsers]
        best = best_of_each(args.repeat, [(command, codes) for _, command, codes in commands])
        times = {label: result for (label, _, _), result in zip(commands, best)}
        for label, (wall, cpu) in times.items():
            print(f"  {label:42s} {wall:7.2f}s {cpu:7.2f}s")
        if baseline in times:
            ratio = times[f"lightning-migrate {mode}"][0] / times[baseline][0]
            print(f"  tool / {baseline}: {ratio:.2f}x wall (goal <= {goal:.2g}x)")
    if args.workdir is None:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
