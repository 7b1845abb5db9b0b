"""The text prefilter is sound: whatever it rules out, the codemod would leave unchanged with no findings."""

from __future__ import annotations

from pathlib import Path

from test_fixtures import CASES, source_of

from lightning_migrate.codemod.python import migrate
from lightning_migrate.prefilter import may_need_migration
from lightning_migrate.semantics.model import release


def _needs_nothing(text: str, target: str) -> bool:
    result = migrate(text, release(target), source_of(text))
    return result.code == text and not result.findings


def test_every_fixture_the_prefilter_skips_needs_nothing() -> None:
    skipped = [(case, target) for case, _, target in CASES if not may_need_migration(case.read_text())]
    wrong = [f"{case}@{target}" for case, target in skipped if not _needs_nothing(case.read_text(), target)]
    assert not wrong


def test_fixtures_without_the_framework_name_need_nothing() -> None:
    """Every fixture with its Lightning imports renamed away: now the prefilter skips it, and rightly."""
    files = sorted({case for case, _, _ in CASES})
    variants = [(path, path.read_text().replace("lightning", "lightening")) for path in files]
    assert all(not may_need_migration(text) for _, text in variants)
    wrong = [str(path) for path, text in variants if not _needs_nothing(text, "2.6")]
    assert not wrong


def test_text_without_the_word_is_skipped() -> None:
    assert not may_need_migration("from transformers import Trainer\nTrainer(gpus=2)\n")
    assert may_need_migration("import lightning as L\n")
    assert may_need_migration(Path(__file__).read_text())
