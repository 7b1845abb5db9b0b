"""Which front end reads a file, by its kind: Python source, notebooks, YAML configs, Markdown and reST
documents, shell scripts. Each front end turns its file into call sites, asks the same planner
(``callsite.Run``), and writes back only its edits; this module is the one table of kinds and the one door
the runner goes through.

A front end's module is imported only for a file of its kind (ruamel.yaml only for YAML). It has
``migrate(text, request) -> Migrated``: the new text, the findings addressed in the front end's own terms
(unique per call site, so that ``# noqa`` and a rerun without a suppressed rewrite can name them), how
``# noqa`` comments suppress them, and how each is addressed in the file for the user.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from lightning_migrate.codemod import gone
from lightning_migrate.codemod.callsite import Run
from lightning_migrate.codemod.trainers import NO_SUBCLASSES, RunSubclasses
from lightning_migrate.codemod.yaml_words import holds
from lightning_migrate.report import noqa
from lightning_migrate.report.findings import Finding
from lightning_migrate.semantics.model import RELEASES
from lightning_migrate.semantics.signature import MODELLED

if TYPE_CHECKING:
    from lightning_migrate.codemod.runner import Options


@dataclass(frozen=True)
class Request:
    """What a front end is asked to do with one file."""

    run: Run
    shim: bool = False
    path: Path = Path("-")
    subclasses: RunSubclasses = NO_SUBCLASSES  # the Trainer subclasses the run's files define

    @property
    def folder(self) -> Path | None:
        """The file's folder, where the scripts its command lines run are looked for (None: stdin)."""
        return Path(self.path).parent if str(self.path) != "-" else None


def _same(finding: Finding) -> Finding:
    return finding


@dataclass
class Migrated:
    code: str
    findings: list[Finding]
    # the suppression comments: which findings are kept, suppressed, or suppress nothing (LM900)
    suppress: Callable[[Sequence[Finding]], noqa.Outcome]
    address: Callable[[Finding], Finding] = field(default=_same)  # front end's terms -> the file's


class FrontEnd(Protocol):
    def migrate(self, text: str, request: Request) -> Migrated: ...


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
        if self.words is None:
            return True
        start = first_start(self.words, text)
        return start is not None and self.words.search(text, start) is not None

    def undecodable_is_error(self, data: bytes, path: Path) -> bool:
        """Whether a file of this kind whose bytes cannot be decoded is reported (exit 2), or left alone as
        none of the codemod's business: judged on its text read as Latin-1 (which decodes any bytes)."""
        if self.undecodable is None:
            return True
        text = data.decode("latin-1")
        return self.candidate(text) and self.undecodable(text, path)


# What every non-Python kind needs to hold a flag: one of the Trainer's keywords the model reads (the
# signature's table: `replace_sampler_ddp: false` alone is work for 2.x), a `*Plugin` class or a settings
# variable.
_FLAGS = "|".join(sorted(MODELLED, key=len, reverse=True))
# ... or a keyword beside the model's that some release rejects or deprecates (`codemod.gone`)
_GONE = gone.words(RELEASES)
_FLAG_WORDS = re.compile(
    rf"{_FLAGS}|Plugin|PL_TRAINER_" + (f"|{_GONE.pattern}" if _GONE else ""), re.IGNORECASE
)
# The non-ASCII characters Python's case-blind matching takes for ASCII letters (or whose lower case holds
# one): capital I with a dot, dotless i, long s and the Kelvin sign (Python 3.11's tables, checked by a test).
_CASE_SPECIAL = re.compile("[\u0130\u0131\u017f\u212a]")


def first_start(pattern: re.Pattern[str], text: str) -> int | None:
    """Where the first match of the case-blind ``pattern`` in ``text`` can start at the earliest: at the
    first of the words its alternatives start with, found in the text lowered (None: nowhere). A case-blind
    search tries the pattern at every character at Python's speed (a second for a 1.4 MB notebook of
    outputs); the words are found at C speed (10 ms). 0 where the text holds a character that matches an
    ASCII letter only case-blind (one whose lower case is longer, too), or where an alternative starts with
    no word: then only the search can tell."""
    stems = _stems(pattern)
    if stems is None or _CASE_SPECIAL.search(text):
        return 0
    lowered = text.lower()  # (as long as the text: the one character whose lower case is longer is special)
    found = [at for at in (lowered.find(stem) for stem in stems) if at >= 0]
    return min(found, default=None)


@functools.cache
def _stems(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """The words the alternatives of ``pattern`` start with, lowered; None where one starts with no word."""
    stems = _starts(pattern.pattern)
    return None if stems is None else tuple(sorted(stems))


def _starts(pattern: str) -> set[str] | None:
    """The words a match of ``pattern`` may start with (an alternative that starts with a group starts with
    one of the group's), None where an alternative starts with anything else."""
    found: set[str] = set()
    for part in _split(pattern):
        if part.startswith("(?:"):
            inner = _starts(part[3 : _closing(part)])
            if inner is None:
                return None
            found |= inner
            continue
        word = re.match(r"\w+", part)
        if word is None:
            return None
        found.add(word.group().lower())
    return found


def _split(pattern: str) -> list[str]:
    """``pattern``'s alternatives: split at each ``|`` outside groups and character classes."""
    parts, depth, start = [], 0, 0
    for at, char in _outside_escapes(pattern):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "|" and depth == 0:
            parts.append(pattern[start:at])
            start = at + 1
    return [*parts, pattern[start:]]


def _closing(pattern: str) -> int:
    """Where the group that opens ``pattern`` closes."""
    depth = 0
    for at, char in _outside_escapes(pattern):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return at
    return len(pattern)


def _outside_escapes(pattern: str) -> list[tuple[int, str]]:
    """The characters of ``pattern`` that are syntax: not escaped, not inside a ``[...]`` class."""
    found, at, in_class = [], 0, False
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            at += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        else:
            found.append((at, char))
        at += 1
    return found


PYTHON = Kind("python", (".py", ".pyi"), "lightning_migrate.codemod.python", True)
KINDS: tuple[Kind, ...] = (
    PYTHON,
    Kind("notebook", (".ipynb",), "lightning_migrate.codemod.notebook", True, _FLAG_WORDS),
    Kind("yaml", (".yaml", ".yml"), "lightning_migrate.codemod.yaml_config", True, _FLAG_WORDS, True, holds),
    Kind("markdown", (".md", ".markdown"), "lightning_migrate.codemod.docs", False, _FLAG_WORDS),
    Kind("rest", (".rst",), "lightning_migrate.codemod.docs", False, _FLAG_WORDS),
    Kind("shell", (".sh", ".bash", ".zsh"), "lightning_migrate.codemod.shell", False, _FLAG_WORDS, True),
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
    run = Run(options.target, options.source, options.unsafe, leave)
    request = Request(run, options.shim, path, options.subclasses)
    if kind.python:
        return _python(text, request, skipped)
    if not skipped:
        return kind.front_end().migrate(text, request)
    # no flag in the file: only unused suppressions (LM900) can be found, where comments are the file's own
    comments = noqa.hash_comments(text) if kind.hash_comments else []
    return Migrated(text, [], lambda found: noqa.apply(text, found, comments=comments))


def _python(text: str, request: Request, skipped: bool) -> Migrated:
    """Python: argument lists of string literals (``subprocess.run([... "--gpus", "2"])``) first, then the
    Trainer calls (the prefilter may have ``skipped`` those: then only unused suppressions are looked for)."""
    source, found = text, []
    if ("--" in text or "PL_TRAINER_" in text) and _ARGUMENT_WORDS.search(text):
        from lightning_migrate.codemod import depth
        from lightning_migrate.codemod.arglists import migrate_arg_lists
        from lightning_migrate.sources.sourcefile import SourceError

        try:
            tree = depth.parse(text)
        except (SyntaxError, ValueError, SourceError):  # the Python front end reports it
            tree = None
        if tree is not None:
            source, lists = migrate_arg_lists(text, tree, request.run)
            found = lists.findings
    if skipped:
        return Migrated(source, found, lambda seen: noqa.apply(text, seen))
    from lightning_migrate.codemod.python import migrate as migrate_python  # (not for a cleared run)

    run = request.run
    result = migrate_python(
        source, run.target, run.source, run.unsafe, run.leave, request.shim, request.subclasses
    )
    return Migrated(
        result.code, [*result.findings, *found], lambda seen: noqa.apply(text, seen, result.calls)
    )


# a string literal that may hold a Trainer option (`codemod.arglists`): asked of every Python file
_ARGUMENT_WORDS = re.compile(rf"""["'][^"'\n]*(?:--(?:trainer\.)?(?:{_FLAGS})\b|PL_TRAINER_)""")
