"""The shell front end: the command lines of a shell script (``commands``), rewritten word by word where
their flags reach Lightning's Trainer, reported where that is not known."""

from __future__ import annotations

from lightning_migrate.files.text import spliced
from lightning_migrate.frontends.contract import Migrated, Request
from lightning_migrate.frontends.shell.commands import migrate_commands
from lightning_migrate.report import noqa


def migrate(text: str, request: Request) -> Migrated:
    folder = request.folder
    found = migrate_commands(text, request.run, folder, shim=request.shim, hydra_lines=request.commands)
    new = spliced(text, found.edits) if found.edits else text
    comments = noqa.hash_comments(text)
    return Migrated(new, found.findings, lambda f: noqa.apply(text, f, found.spans, comments))
