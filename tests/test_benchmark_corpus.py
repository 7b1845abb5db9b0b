"""The benchmark corpus is reproducible, its deprecated scripts are real work for the codemod, and the
prefilter skips its already-migrated training scripts only where the codemod has nothing to do."""

from __future__ import annotations

import sys
from pathlib import Path

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan.prefilter import may_need_migration
from lightning_migrate.semantics.model import release

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
from corpus import generate

TARGET = release("2.6")


def test_same_seed_same_corpus(tmp_path: Path) -> None:
    counts = generate(tmp_path / "a", 40, seed=3)
    assert generate(tmp_path / "b", 40, seed=3) == counts
    for path in sorted((tmp_path / "a").rglob("*.py")):
        assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes()


def test_deprecated_scripts_are_found_and_migrated_ones_skipped_soundly(tmp_path: Path) -> None:
    generate(tmp_path, 150, seed=1, deprecated=0.06)
    skipped_scripts = 0
    for path in sorted(tmp_path.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        candidate = may_need_migration(text, (TARGET,), (None,))
        if path.name.startswith("deprecated_"):
            assert candidate, path.name
            assert migrate(text, TARGET).findings, path.name
        elif path.name.startswith("migrated_trainer_") and not candidate:
            skipped_scripts += 1
            result = migrate(text, TARGET)
            assert result.code == text
            assert result.findings == []
    assert skipped_scripts >= 4
