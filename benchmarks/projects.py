"""Fetch the corpus of old public Lightning projects that ``benchmarks/census.py`` counts (``projects.tsv``:
each repository at a pinned commit), one folder ``owner+name`` per project.

    python benchmarks/projects.py DEST                      # from GitHub (needs network and git)
    python benchmarks/projects.py DEST --source '/mirrors/{owner}+{name}/repo'   # from local git mirrors

Each project is fetched at its commit alone (``git fetch --depth 1 SOURCE COMMIT``) and its tree extracted
with ``git archive`` (from a local repository, file by file: a mirror may lack its largest files); nothing is
kept but the files. A project that cannot be fetched is named on stderr and
skipped, and the exit status is 1. Then, for example (before -> after, per target):

    python benchmarks/census.py DEST --target-version 1.5 --target-version 1.7 --target-version 2.6
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

MANIFEST = Path(__file__).with_name("projects.tsv")
GITHUB = "https://github.com/{owner}/{name}.git"


def projects(manifest: Path = MANIFEST) -> list[tuple[str, str]]:
    """(owner/name, commit) for every row of the manifest."""
    rows = []
    for line in manifest.read_text().splitlines():
        if line and not line.startswith("#"):
            repo, commit = line.split("\t")[:2]
            rows.append((repo, commit))
    return rows


def fetch(repo: str, commit: str, source: str, dest: Path) -> int:
    """The tree of ``repo`` at ``commit`` extracted into ``dest`` (which must not exist yet); returns how many
    files a local mirror lacked."""
    owner, name = repo.split("/")
    url = source.format(owner=owner, name=name)
    if Path(url).is_dir():
        return _extract(Path(url), commit, dest)
    with tempfile.TemporaryDirectory() as scratch:
        git = ["git", "-C", scratch]
        subprocess.run([*git, "init", "-q", "--bare"], check=True)
        subprocess.run([*git, "fetch", "-q", "--depth", "1", url, commit], check=True)
        archive = Path(scratch, "tree.tar")
        subprocess.run([*git, "archive", "--output", str(archive), commit], check=True)
        dest.mkdir(parents=True)
        with tarfile.open(archive) as tar:
            tar.extractall(dest, filter="data")
    return 0


def _extract(git_dir: Path, commit: str, dest: Path) -> int:
    """Every file of ``commit`` in the local repository ``git_dir``, one blob at a time: a mirror may lack its
    largest files (they are skipped and counted)."""
    git = ["git", "-C", str(git_dir)]
    listing = subprocess.run([*git, "ls-tree", "-r", "-z", commit], check=True, capture_output=True).stdout
    missing = 0
    for entry in listing.decode().split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        mode, kind, blob = meta.split()
        if kind != "blob" or mode == "120000":  # (submodules and links are not files of the tree)
            continue
        data = subprocess.run([*git, "cat-file", "blob", blob], check=False, capture_output=True)
        if data.returncode:
            missing += 1
            continue
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.stdout)
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("dest", type=Path, help="folder to fetch the projects into (one folder per project)")
    parser.add_argument(
        "--source", default=GITHUB, help="where each repository is, with {owner} and {name} (default: GitHub)"
    )
    args = parser.parse_args(argv)
    failed = missing = 0
    rows = projects()
    for repo, commit in rows:
        folder = args.dest / repo.replace("/", "+")
        if folder.exists():
            continue  # fetched before
        try:
            missing += fetch(repo, commit, args.source, folder)
        except (subprocess.CalledProcessError, OSError, tarfile.TarError) as exc:
            print(f"{repo}@{commit[:10]}: not fetched ({exc})", file=sys.stderr)
            failed += 1
    lacked = f" ({missing} files the mirrors lack left out)" if missing else ""
    print(f"{len(rows) - failed} projects in {args.dest}{lacked}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
