"""The Trainer keywords beside the model's: those the target's Trainer does not accept, or deprecates, that a
call site still writes (LM007). The model only reads the hardware keywords (``signature.MODELLED``); every
other keyword is judged here against the table read from the releases (``semantics.keywords``) and
Lightning's own advice (``semantics.removed``), by every front end alike.

A keyword is rewritten only where Lightning documents the same meaning under a keyword the target has
(``removed.Rename``), or dropped where it is at a default (the releases that removed a keyword build, without
it, what its default built); anything else is reported as work left, so that a call is never counted fixed
while it passes a keyword the target rejects. A keyword no release has is not ours (a subclass's own).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from lightning_migrate.semantics.keywords import KEYWORDS
from lightning_migrate.semantics.model import Value, Version
from lightning_migrate.semantics.removed import BY_KEYWORD, GONE, Gone
from lightning_migrate.semantics.signature import MODELLED

CODE = "LM007"


class _RunTime:
    def __repr__(self) -> str:
        return "RUN_TIME"


RUN_TIME = _RunTime()  # a keyword's value is only known at run time
_DROPPED = None  # an edit's new keyword: the old one goes


@dataclass(frozen=True)
class Judged:
    """One keyword of the call the target does not take as written: what to say, and the edit that fixes
    it (``keyword`` None: the old keyword is dropped), if there is one."""

    old: str
    message: str
    edit: tuple[str | None, Value] | None = None

    @property
    def fixable(self) -> bool:
        return self.edit is not None


def accepts(keyword: str, version: Version) -> bool:
    since, until, _ = KEYWORDS[keyword]
    return since <= version and (until is None or version < until)


def is_default(keyword: str, value: object) -> bool:
    return any(type(value) is type(d) and value == d for d in KEYWORDS[keyword][2])


def concerns(keyword: str, target: Version) -> bool:
    """Is ``keyword`` one this module may report for ``target``: a keyword beside the model's that some
    release has, and that ``target`` lacks or that a release deprecates or takes only some values of?"""
    if keyword in MODELLED or keyword not in KEYWORDS:
        return False
    return keyword in BY_KEYWORD or not accepts(keyword, target)


@functools.lru_cache(maxsize=16)
def words(targets: tuple[Version, ...]) -> re.Pattern[str] | None:
    """What a text must hold for this module to find anything in it for some of ``targets``: one of the
    keywords it may report, or `max_steps=None` (a keyword only some values of which are old: only the
    literal value is looked for, so `Trainer(max_steps=args.steps)` costs no file a parse). None: nothing."""
    keywords = {
        k
        for k in KEYWORDS
        for t in targets
        if concerns(k, t) and not (k in BY_KEYWORD and BY_KEYWORD[k].values)
    }
    alternatives = sorted(keywords, key=len, reverse=True)
    alternatives += [
        rf"{row.keyword}\s*[=:]\s*(?:{'|'.join(_spellings(value))})"
        for row in GONE
        if row.values and any(concerns(row.keyword, t) for t in targets)
        for value in row.values
    ]
    # (no `\b` before: a pattern that starts with a word is searched for at C speed; callers check that a
    # match starts a word)
    return re.compile(rf"(?:{'|'.join(alternatives)})\b") if alternatives else None


def _spellings(value: Value) -> list[str]:
    """How Python, YAML and command lines write ``value``."""
    return ["None", "null"] if value is None else [re.escape(repr(value))]


def judge(written: Mapping[str, object], target: Version, opaque: bool = False) -> list[Judged]:
    """The keywords among ``written`` (every keyword the call writes, with its value or ``RUN_TIME``) that
    ``target`` rejects or deprecates, in the order written. ``opaque``: the call also passes a ``**dict`` or
    ``*args`` nobody can read, which may hold a keyword a rename must not meet."""
    found = []
    for keyword, value in written.items():
        if not concerns(keyword, target):
            continue
        judged = _judge(keyword, value, written, target, opaque)
        if judged is not None:
            found.append(judged)
    return found


def _judge(
    keyword: str, value: object, written: Mapping[str, object], target: Version, opaque: bool
) -> Judged | None:
    since, _, _ = KEYWORDS[keyword]
    row = BY_KEYWORD.get(keyword)
    known = value is not RUN_TIME
    if target < since:
        return Judged(keyword, f"Lightning {target} has no `{keyword}=` (added in {_line(since)}); remove it")
    if row is not None and row.values:  # only some values are old (`max_steps=None`)
        if not known or not any(_same(value, old) for old in row.values) or target < _deprecated(row):
            return None
        status = _status(f"`{keyword}={value!r}`", target, row.removed)
        return Judged(keyword, f"{status}{_dates(row)}: {row.advice}")
    if accepts(keyword, target):
        if row is None or target < _deprecated(row) or (known and is_default(keyword, value)):
            return None  # (a deprecated keyword at its default does not warn)
        status = f"Lightning {target} deprecates `{keyword}=`"
    elif known and is_default(keyword, value) and not opaque:
        message = f"Lightning {target} has no `{keyword}=`{_dates(row)}; at its default, it is dropped"
        return Judged(keyword, message, (_DROPPED, None))
    else:
        status = f"Lightning {target} has no `{keyword}=`"
    advice = row.advice if row is not None else "remove it"
    rename = row.rename(value) if row is not None and known else None  # type: ignore[arg-type]
    if opaque:  # (nothing is rewritten beside a `**dict` that may hold anything)
        return Judged(keyword, f"{status}{_dates(row)}: {advice}")
    if (
        rename is not None
        and (rename.keyword is None or accepts(rename.keyword, target))
        and not any(k in written for k in (*rename.unless, rename.keyword))
    ):
        new = "dropped" if rename.keyword is None else f"{rename.keyword}={rename.new!r}"
        message = f"{status}{_dates(row)}: {advice}; fix: `{keyword}={value!r}` is {new}"
        return Judged(keyword, message, (rename.keyword, rename.new))
    return Judged(keyword, f"{status}{_dates(row)}: {advice}")


def _status(what: str, target: Version, removed: Version | None) -> str:
    if removed is not None and target >= removed:
        return f"Lightning {target} rejects {what}"
    return f"Lightning {target} deprecates {what}"


def _deprecated(row: Gone) -> Version:
    """The first release line that warns for it (one that never warned: the one that removed it)."""
    when = row.deprecated or row.removed
    assert when is not None
    return when


def _dates(row: Gone | None) -> str:
    if row is None:
        return ""
    said = [f"deprecated in {_line(row.deprecated)}"] if row.deprecated else []
    said += [f"removed in {_line(row.removed)}"] if row.removed else []
    return f" ({', '.join(said)})" if said else ""


def _line(version: Version) -> str:
    return f"{version.major}.{version.minor}"


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b
