"""Which front end reads a file, by its kind: Python source, notebooks, YAML configs, Markdown and reST
documents, shell scripts. Each front end turns its file into call sites, asks the same planner
(``callsite.Run``), and writes back only its edits (``frontends.contract``); this module is the one table of
kinds and the one door the runner goes through.

A front end's module is imported only for a file of its kind (ruamel.yaml only for YAML).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from lightning_migrate.files import word_test
from lightning_migrate.frontends.contract import FrontEnd, Migrated, Request
from lightning_migrate.frontends.yaml.words import holds
from lightning_migrate.plan.callsite import Run
from lightning_migrate.plan.prefilter import FLAG_NAMES, FLAG_WORDS
from lightning_migrate.project.key_references import renamed_in
from lightning_migrate.report import noqa
from lightning_migrate.report.findings import Finding
from lightning_migrate.run.options import Options


@dataclass(frozen=True)
class Kind:
    name: str
    suffixes: tuple[str, ...]
    module: str  # the front end
    walked: bool  # taken from a walked folder by default; else only with `extend-include` (or named)
    # a file of this kind whose text matches none of these cannot hold a Trainer flag: not read further
    words: re.Pattern[str] | None = None
    hash_comments: bool = False  # its suppression comments are `#` comments of its own (YAML, shell)
    # whether a file of this kind that cannot be decoded is an error, by its text read leniently (None:
    # always; YAML: only one that holds a Trainer config, `yaml_words.holds`)
    undecodable: Callable[[str, Path], bool] | None = None

    @property
    def python(self) -> bool:
        return self.name == "python"

    def front_end(self) -> FrontEnd:
        return importlib.import_module(self.module)

    def candidate(self, text: str) -> bool:
        return self.words is None or word_test.search(self.words, text)

    def undecodable_is_error(self, data: bytes, path: Path) -> bool:
        """Whether a file of this kind whose bytes cannot be decoded is reported (exit 2), or left alone as
        none of the codemod's business: judged on its text read as Latin-1 (which decodes any bytes)."""
        if self.undecodable is None:
            return True
        text = data.decode("latin-1")
        return self.candidate(text) and self.undecodable(text, path)


def _front(kind: str) -> str:
    """The module of a kind's front end: each front end's package has its ``frontend``."""
    return f"lightning_migrate.frontends.{kind}.frontend"


PYTHON = Kind("python", (".py", ".pyi"), _front("python"), True)
KINDS: tuple[Kind, ...] = (
    PYTHON,
    Kind("notebook", (".ipynb",), _front("notebook"), True, FLAG_WORDS),
    Kind("yaml", (".yaml", ".yml"), _front("yaml"), True, FLAG_WORDS, True, holds),
    Kind("markdown", (".md", ".markdown"), _front("docs"), False, FLAG_WORDS),
    Kind("rest", (".rst",), _front("docs"), False, FLAG_WORDS),
    # (walked: shell scripts are where launch commands live; documentation stays opt-in)
    Kind("shell", (".sh", ".bash", ".zsh"), _front("shell"), True, FLAG_WORDS, True),
)
BY_SUFFIX = {suffix: kind for kind in KINDS for suffix in kind.suffixes}
WALKED_SUFFIXES = tuple(suffix for kind in KINDS if kind.walked for suffix in kind.suffixes)
_SHEBANG = re.compile(r"#![^\n]*\b(?P<program>python[\d.]*|sh|bash|zsh)\b")
_BY_PROGRAM = {"sh": "shell", "bash": "shell", "zsh": "shell"}


def kind_of(path: Path, text: str | None = None) -> Kind:
    """The kind of ``path``: by its suffix, else by its ``#!`` line (``#!/bin/bash``), else Python (a file
    named on the command line is read as Python, as it always was)."""
    kind = BY_SUFFIX.get(path.suffix.lower())
    if kind is not None:
        return kind
    match = _SHEBANG.match(text or "")
    if match is not None and match.group("program") in _BY_PROGRAM:
        return next(k for k in KINDS if k.name == _BY_PROGRAM[match.group("program")])
    return PYTHON


def migrate(
    path: Path, text: str, options: Options, leave: frozenset[tuple[int, int]], skipped: bool
) -> Migrated:
    """``text`` (the file at ``path``) migrated by the front end of its kind; a file the prefilter
    ``skipped`` is only searched for unused suppressions."""
    kind = kind_of(path, text)
    followed: list[Finding] = []
    if kind.python or kind.name == "yaml":  # (a reference to a renamed config key follows it)
        text, followed = renamed_in(path, text, options.references)
    if followed:
        migrated = _migrate(path, kind, text, options, leave, skipped)
        return replace(migrated, findings=[*followed, *migrated.findings])
    return _migrate(path, kind, text, options, leave, skipped)


def _migrate(
    path: Path, kind: Kind, text: str, options: Options, leave: frozenset[tuple[int, int]], skipped: bool
) -> Migrated:
    run = Run(options.target, options.source, options.unsafe, leave, options.floor, options.source_pinned)
    request = Request(
        run,
        options.shim,
        path,
        options.subclasses,
        options.clis,
        options.loaded,
        options.references,
        options.commands,
        configs=options.configs,
    )
    if kind.python:
        return _python(text, request, skipped, options.line_length)
    if not skipped:
        return kind.front_end().migrate(text, request)
    # no flag in the file: only unused suppressions (LM900) can be found, where comments are the file's own
    comments = noqa.hash_comments(text) if kind.hash_comments else []
    return Migrated(text, [], lambda found: noqa.apply(text, found, comments=comments))


def _python(text: str, request: Request, skipped: bool, width: int | None) -> Migrated:
    """Python: argument lists of string literals (``subprocess.run([... "--gpus", "2"])``) first, then the
    Trainer calls (the prefilter may have ``skipped`` those: then only unused suppressions are looked for).
    A one-line call made longer than ``width`` is wrapped (a Python file's only: a notebook cell or a code
    block in docs is written back by its lines)."""
    source, found = text, []
    if ("--" in text or "PL_TRAINER_" in text) and _ARGUMENT_WORDS.search(text):
        from lightning_migrate.files import depth
        from lightning_migrate.files.sourcefile import SourceError
        from lightning_migrate.frontends.python.arglists import migrate_arg_lists

        try:
            tree = depth.parse(text)
        except (SyntaxError, ValueError, SourceError):  # the Python front end reports it
            tree = None
        if tree is not None:
            source, lists = migrate_arg_lists(text, tree, request.run)
            found = lists.findings
    if skipped:
        return Migrated(source, found, lambda seen: noqa.apply(text, seen))
    from lightning_migrate.frontends.python.frontend import (
        migrate as migrate_python,  # (not for a cleared run)
    )

    run = request.run
    path = request.path if str(request.path) != "-" else None
    result = migrate_python(
        source,
        run.target,
        run.source,
        run.unsafe,
        run.leave,
        request.shim,
        request.subclasses,
        path,
        request.clis.of_script(request.path),
        request.loaded,
        run.floor,
        width=width,
        pinned=run.pinned,
    )
    return Migrated(
        result.code, [*result.findings, *found], lambda seen: noqa.apply(text, seen, result.calls)
    )


# a string literal that may hold a Trainer option (`frontends.python.arglists`): asked of every Python file
_ARGUMENT_WORDS = re.compile(rf"""["'][^"'\n]*(?:--(?:trainer\.)?(?:{FLAG_NAMES})\b|PL_TRAINER_)""")
