"""Colour for the text report, as ruff colours it: the path bold, the colons cyan, the code red and bold, the
fix mark cyan. The styles are always written; click strips them where the stream is no terminal (a pipe, a
file) unless told otherwise: ``NO_COLOR`` (any value, https://no-color.org) turns colour off,
``FORCE_COLOR`` (a value other than empty) on, for pipes too; ``NO_COLOR`` wins."""

from __future__ import annotations

import os

import click


def colour() -> bool | None:
    """What to pass as ``click.echo(color=...)``: False (off), True (on) or None (on a terminal only)."""
    if "NO_COLOR" in os.environ:
        return False
    return True if os.environ.get("FORCE_COLOR") else None


def located(path: str, where: str) -> str:
    """``where:`` (``where`` is ``path:line:col``, ``path:cell N:line:col`` or the path alone) with ``path``
    bold and each colon after it cyan."""
    colon = click.style(":", fg="cyan")
    return click.style(path, bold=True) + (where[len(path) :] + ":").replace(":", colon)


def code(text: str) -> str:
    return click.style(text, fg="red", bold=True)


def mark(text: str) -> str:
    """The fix mark, ``[*]``."""
    return click.style(text, fg="cyan")


def path(text: str) -> str:
    return click.style(text, bold=True)
