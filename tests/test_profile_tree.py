"""benchmarks/profile_tree.py: each file's CPU time by kind and project, and the Hydra compositions the run
composed, from a one-process ``--check`` that leaves the tree as it was."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "benchmarks" / "profile_tree.py"


def test_a_hydra_project_profiled(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "fixtures" / "projects" / "hydra_app", tree / "hydra_app")
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    out = subprocess.run(
        [sys.executable, str(SCRIPT), str(tree), "--top", "50", "--cprofile", str(tmp_path / "run.prof")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()} == before
    yamls = sum(1 for p in before if p.suffix == ".yaml")
    assert re.search(rf"^\| \.yaml \| {yamls} \| \d+\.\d\d \|$", out, re.M), out
    assert re.search(r"^\| \.py \| 2 \| \d+\.\d\d \|$", out, re.M), out
    assert re.search(r"^\| hydra_app \| \d+\.\d\d \|$", out, re.M), out
    assert re.search(r"^\| hydra_app/conf/trainer/default\.yaml \| \d+\.\d\d \|$", out, re.M), out
    composed = re.search(r"^Hydra compositions composed: (\d+), ", out, re.M)
    assert composed is not None, out
    assert int(composed[1]) > 0
    asked = re.findall(r"^\| (\w+) \| (\d+) \| \d+\.\d\d \|$", out, re.M)
    assert asked, out
    assert sum(int(n) for _, n in asked) == int(composed[1])  # (each by the step that asked for it)
    assert (tmp_path / "run.prof").stat().st_size > 0
    # the options after `--` are the run's
    command = [sys.executable, str(SCRIPT), str(tree), "--", "--extend-exclude", "*.py"]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    assert re.search(rf"^\| \.yaml \| {yamls} \| ", out, re.M), out
    assert not re.search(r"^\| \.py \| ", out, re.M), out
