"""The run's Hydra command lines (``project.hydra.CommandLine``), gathered in its first pass: the command
lines of its shell scripts and of its documents' shell blocks that run a Hydra script with overrides of its
Trainer node. The YAML front end must know them before it rewrites a config below them (the files that hold
them may be migrated later, or in another worker): a command line left as written must not run over a
rewritten config that changes what its Trainer gets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lightning_migrate.project.hydra import CommandLine

_KINDS = frozenset({"shell", "markdown", "rest"})


def may_hold(kind: str, text: str) -> bool:
    """Whether a file of ``kind`` may hold a Hydra override of a Trainer flag (the words, not parsed)."""
    return kind in _KINDS and "trainer." in text


def command_lines(path: Path, kind: str, text: str) -> list[CommandLine]:
    """The Hydra command lines of the file at ``path`` (of ``kind``: shell, markdown, rest)."""
    from lightning_migrate.frontends.shell.command_line import moved, read
    from lightning_migrate.frontends.shell.words import commands

    found: list[CommandLine] = []
    for view, first_line in _views(kind, text):
        folder: Path | None = path.parent
        for command in commands(view):
            folder = moved(command, view, folder)  # (`cd configs/..`: the commands after it run there)
            for site in read(command, view, folder):
                if site.flavour.name != "hydra" or site.primary is None or not site.entries:
                    continue
                entries = site.entries.values()
                known = all(e.text is not None and e.words[0].value is not None for e in entries)
                trainer = tuple(e.words[0].value or "" for e in entries) if known else None
                line = first_line + view.count("\n", 0, command.words[0].start)
                found.append(CommandLine(f"{path}:{line}", site.primary, site.others, trainer))
    return found


def _views(kind: str, text: str) -> Iterator[tuple[str, int]]:
    """The texts of the file's command lines, each with the file's line it starts on."""
    if kind == "shell":
        yield text, 1
        return
    from lightning_migrate.frontends.docs.frontend import SHELL_LANGUAGES, blocks, shell_view

    for block in blocks(text, kind == "rest"):
        if block.language in SHELL_LANGUAGES:
            yield shell_view(block), block.line
