"""A cheap text test run before LibCST: a file it rejects cannot contain anything the codemod acts on."""

from __future__ import annotations


def may_need_migration(text: str) -> bool:
    """False only when the codemod is sure to leave ``text`` unchanged with no findings.

    Sound because the codemod acts only on names imported from ``pytorch_lightning`` or ``lightning``,
    and both import lines contain the word.
    """
    return "lightning" in text
