"""What a front end knows of a flag's value: the value itself (a ``Value``), the values it may take at run
time (``RunTime``), or one of a few written alternatives (``Choice``: a conditional expression's branches).

The planner (``decide.plan``) quantifies over them: a rewrite is made only if it keeps the call's behaviour
for every value a ``RunTime`` may take and every branch of a ``Choice``. A ``RunTime`` value stays as written:
it keeps its keyword or moves to another (``gpus=args.gpus`` to ``devices=args.gpus``); a ``Choice`` may also
have each branch rewritten in place (``accelerator="ddp" if n > 1 else None`` to ``strategy="ddp" if n > 1
else None``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Union

from lightning_migrate.semantics.model import Value


@dataclass(frozen=True, eq=False)
class RunTime:
    """A value only known at run time: the expression as written (``text``) at keyword ``flag``, and every
    value it may take there (its ``domain``, narrowed by what the file says: ``domains``). It is the
    expression as written: two with the same text at the same keyword are equal, whatever the planner took
    their values to be (``planner.token`` tells those apart)."""

    flag: str
    text: str
    domain: tuple[Value, ...]
    pure: bool = False  # it reads names and attributes only: written twice, it gives the same value
    told: bool = False  # the file writes each value of the domain (``domains.Domain``)
    written: tuple[Value, ...] = ()  # where not told, the values of the domain the file does write

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunTime) and (self.flag, self.text) == (other.flag, other.text)

    def __hash__(self) -> int:
        return hash((self.flag, self.text))

    def __repr__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Choice:
    """A conditional expression ``b0 if t0 else b1 if t1 else b2`` written at keyword ``flag``: its
    ``branches`` (values, or ``RunTime`` values) and the ``tests`` that choose them, as written. ``pure``: the
    tests read names and attributes only, so writing them a second time (in another keyword's conditional)
    evaluates them to the same branch."""

    flag: str
    branches: tuple[Value | RunTime, ...]
    tests: tuple[str, ...]
    pure: bool = False
    split: bool = False  # made by the planner of a run-time value and its truth (``x if n else y``)

    def __repr__(self) -> str:
        if self.split and or_form(self):
            return f"{self.tests[0]} or {self.branches[1]!r}"
        parts = [f"{branch!r} if {test} else " for branch, test in zip(self.branches, self.tests)]
        return "".join(parts) + repr(self.branches[-1])

    def with_branches(self, branches: tuple[Value | RunTime, ...]) -> Choice:
        return Choice(self.flag, branches, self.tests, self.pure, self.split)


def or_form(choice: Choice) -> bool:
    """Is ``choice`` ``x if x else y``, which reads better as ``x or y``?"""
    first = choice.branches[0]
    return len(choice.branches) == 2 and isinstance(first, RunTime) and first.text == choice.tests[0]


Known = Union[Value, RunTime, Choice]
Hole = Union[RunTime, Choice]


def holes(flags: Mapping[str, Known]) -> dict[str, Hole]:
    """The flags whose values are not known at the call, by flag."""
    return {k: val for k, val in flags.items() if isinstance(val, (RunTime, Choice))}


def values_of(hole: Hole) -> Iterator[tuple[int, Value]]:
    """Every (branch, value) ``hole`` may take; a ``RunTime`` is its own branch 0."""
    if isinstance(hole, RunTime):
        for value in hole.domain:
            yield 0, value
        return
    for index, branch in enumerate(hole.branches):
        if isinstance(branch, RunTime):
            for value in branch.domain:
                yield index, value
        else:
            yield index, branch


def written_values(value: Known) -> list[Value]:
    """Every value ``value`` is written to be, once each: itself, a conditional's branches, a run-time
    value's domain where the file writes each value (not a flag's whole domain, assumed for want of
    better)."""
    if isinstance(value, RunTime):
        return unique(value.domain if value.told else value.written)
    if isinstance(value, Choice):
        return unique(v for branch in value.branches for v in written_values(branch))
    return [value]


def unique(values: Iterable[Value]) -> list[Value]:
    """``values`` once each, in order (told apart as written: `1` and `True`, `[1]` and `[True]` are two)."""
    seen: dict[str, Value] = {}
    for value in values:
        seen.setdefault(repr(value), value)
    return list(seen.values())


def keywords(flags: Mapping[str, Known]) -> str:
    """``flags`` as they would be passed: ``strategy='ddp', devices=args.gpus``."""
    return ", ".join(f"{k}={value!r}" for k, value in flags.items())
