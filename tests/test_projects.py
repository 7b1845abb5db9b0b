"""The corpus fetcher (benchmarks/projects.py): its manifest, and a project fetched from a repository."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
import projects


def test_the_manifest_pins_each_project_once() -> None:
    rows = projects.projects()
    assert len(rows) == 119
    assert len({repo for repo, _ in rows}) == len(rows)
    for repo, commit in rows:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", repo), repo
        assert re.fullmatch(r"[0-9a-f]{40}", commit), repo


def _repository(path: Path) -> str:
    """A git repository at ``path`` with one commit (a file in a folder, a link); returns the commit."""
    git = ["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@t"]
    path.mkdir(parents=True)
    subprocess.run([*git, "init", "-q"], check=True)
    (path / "src").mkdir()
    (path / "src" / "train.py").write_text("trainer = Trainer(gpus=2)\n")
    (path / "link.py").symlink_to("src/train.py")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    return head.stdout.strip()


@pytest.mark.parametrize("kind", ["local folder", "url"])
def test_a_project_is_fetched_at_its_commit(tmp_path: Path, kind: str) -> None:
    commit = _repository(tmp_path / "mirrors" / "owner+name")
    source = str(tmp_path / "mirrors" / "{owner}+{name}")
    if kind == "url":
        source = f"file://{source}"  # fetched with git fetch, extracted with git archive
    missing = projects.fetch("owner/name", commit, source, tmp_path / "out")
    assert missing == 0
    assert (tmp_path / "out" / "src" / "train.py").read_text() == "trainer = Trainer(gpus=2)\n"
