"""What a front end knows of a flag's value: the value itself (a ``Value``), the values it may take at run
time (``RunTime``), or one of a few written alternatives (``Choice``: a conditional expression's branches).

The planner (``decide.plan``) quantifies over them: a rewrite is made only if it keeps the call's behaviour
for every value a ``RunTime`` may take and every branch of a ``Choice``. A ``RunTime`` value stays as written:
it keeps its keyword or moves to another (``gpus=args.gpus`` to ``devices=args.gpus``); a ``Choice`` may also
have each branch rewritten in place (``accelerator="ddp" if n > 1 else None`` to ``strategy="ddp" if n > 1
else None``).
"""

from __future__ import annotations

import ast
import functools
import itertools
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from lightning_migrate.semantics.model import Obj, Value


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
    # the tests as the planner evaluates them (``evaluate``), where it can: one per test, or None
    conditions: tuple[Expr, ...] | None = None
    # the name the call passes, where the conditional is bound to one (``gpus=gpus`` after ``gpus = -1 if
    # torch.cuda.is_available() else None``): written as that name while its branches are kept
    name: str | None = None
    # a test the planner writes of the machine the call runs on (``torch.cuda.device_count() > 1``): the
    # first branch where the machine has more than one CUDA GPU (``machine_branch``), else the last
    machine: bool = False

    def __repr__(self) -> str:
        if self.name is not None:
            return self.name
        if self.split and or_form(self):
            return f"{self.tests[0]} or {self.branches[1]!r}"
        parts = [f"{branch!r} if {test} else " for branch, test in zip(self.branches, self.tests)]
        return "".join(parts) + repr(self.branches[-1])

    def with_branches(self, branches: tuple[Value | RunTime, ...]) -> Choice:
        return Choice(self.flag, branches, self.tests, self.pure, self.split, self.conditions)


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


# --- related values, judged together ------------------------------------------------------------------------
#
# `Trainer(gpus=n, accelerator="ddp" if n > 1 else None)` passes two values read from one: the planner takes
# each value `n` may take once and computes both keywords from it (``joint``), rather than every pair of a
# `gpus=` value and a branch (`gpus=None, accelerator="ddp"` never happens: Python raises on `None > 1`).


@dataclass(frozen=True)
class Atom:
    """A value a test reads that the planner does not compute (``n``, ``args.gpus``, ``cfg.cuda``,
    ``torch.cuda.device_count()``), by its text as ``ast.unparse`` writes it; ``domain``: its values where
    they are known on their own (a machine reader), else those of a keyword that passes the same
    expression."""

    key: str
    domain: tuple[Value, ...] | None = None
    machine: str = ""  # the machine reader it calls (``torch.cuda.is_available``), where it is one


@dataclass(frozen=True)
class Const:
    value: object  # a value, or a tuple or list of them (`n in (2, 4)`)


@dataclass(frozen=True)
class Op:
    """``name`` applied to ``operands``: `not`, `and`, `or`, `len`, `neg` (unary minus), a binary operator
    (`+`, `-`, `*`, `//`, `%`) or `compare`, a comparison chain whose ``ops`` (`<`, `==`, `is`, `in` ...)
    stand between consecutive operands."""

    name: str
    operands: tuple[Expr, ...]
    ops: tuple[str, ...] = ()


Expr = Union[Atom, Const, Op]


class Raises(Exception):
    """Python raises evaluating the test with these values (`None > 1`, `len(2)`)."""


class Unevaluable(Exception):
    """The planner cannot tell what the test gives (an object, a number too large to be sure of)."""


_BINARY: dict[str, Callable[[Any, Any], object]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
}
_COMPARE: dict[str, Callable[[Any, Any], object]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "in": lambda a, b: operator.contains(b, a),
    "not in": lambda a, b: not operator.contains(b, a),
    "is": operator.is_,
    "is not": operator.is_not,
}
# An identity test says the same on every Python only where one side is a singleton (`n is None`).
_SINGLETONS = (None, True, False)
# Whole numbers beyond this are not a count of devices or nodes: no test is judged with them.
MAX_MAGNITUDE = 10**6


def evaluate(expr: Expr, values: Mapping[str, Value]) -> object:
    """What ``expr`` gives where each atom holds its value in ``values``, as Python computes it (the real
    operators on plain values; never ``eval``). Raises ``Raises`` where Python raises, ``Unevaluable``
    where the planner cannot tell."""
    if isinstance(expr, Const):
        return expr.value
    if isinstance(expr, Atom):
        return values[expr.key]
    if expr.name in ("and", "or"):  # Python's: the first operand that decides, else the last
        result: object = None
        for operand in expr.operands:
            result = evaluate(operand, values)
            if _truth(result) == (expr.name == "or"):
                break
        return result
    given = [evaluate(operand, values) for operand in expr.operands]
    try:
        if expr.name == "compare":
            return _compare(given, expr.ops)
        if expr.name == "not":
            return not _truth(given[0])
        if expr.name == "len":
            return len(given[0])  # type: ignore[arg-type]
        if expr.name == "neg":
            return _bounded(-given[0])  # type: ignore[operator]
        if any(not _number(value) for value in given):
            raise Unevaluable(expr.name)  # (`"ab" * n`: sequences are not what a test of devices computes)
        return _bounded(_BINARY[expr.name](*given))
    except (TypeError, ValueError, ZeroDivisionError) as error:
        raise Raises(str(error)) from error


def _compare(given: list[object], ops: tuple[str, ...]) -> bool:
    for left, op, right in zip(given, ops, given[1:]):
        if op in ("is", "is not") and not any(v is s for v in (left, right) for s in _SINGLETONS):
            raise Unevaluable(op)
        if not _truth(_COMPARE[op](left, right)):
            return False
    return True


def _truth(value: object) -> bool:
    if isinstance(value, Obj) or (
        isinstance(value, (list, tuple)) and any(isinstance(v, Obj) for v in value)
    ):
        raise Unevaluable("an object")
    return bool(value)


def _number(value: object) -> bool:
    return isinstance(value, (int, float))  # (a bool too: `True + 1` is 2)


def _bounded(value: object) -> object:
    if isinstance(value, (int, float)) and abs(value) > MAX_MAGNITUDE:
        raise Unevaluable("a large number")
    return value


def reads(expr: Expr, truth: bool = True) -> Iterator[tuple[Atom, bool]]:
    """Every atom ``expr`` reads, with whether only its truth decides (an operand of `not`, `and`, `or` in
    a test): such a value may be taken to be True or False."""
    if isinstance(expr, Atom):
        yield expr, truth
    elif isinstance(expr, Op):
        inner = truth and expr.name in ("not", "and", "or")
        for operand in expr.operands:
            yield from reads(operand, inner)


@functools.lru_cache(maxsize=4096)
def key_of(text: str) -> str:
    """The text of an expression as ``ast.unparse`` writes it: the same expression, however spaced."""
    try:
        return ast.unparse(ast.parse(f"({text})", mode="eval").body)
    except SyntaxError:
        return text


Assignment = tuple[dict[str, int], dict[str, Value]]  # flag -> branch, flag -> value


def joint(found: Mapping[str, Hole], limit: int) -> list[Assignment] | None:
    """Every (branch, value) of each flag of ``found`` that one run may give, where some conditional's
    tests read a run-time value the call passes elsewhere too (or one read only for its truth): each value
    that run-time value may take is taken once, and every keyword computed from it. A value for which a
    test raises is no run of the call (the script raises before it reaches the Trainer). None where
    nothing is related, where a test cannot be computed (an unknown function: each branch is then
    possible, as before) or where more than ``limit`` assignments would have to be tried."""
    domains = _atom_domains(found)
    linked = {f: hole for f, hole in found.items() if isinstance(hole, Choice) and _linked(hole, domains)}
    if not linked:
        return None
    atoms = sorted(
        {a.key for hole in linked.values() for c in hole.conditions or () for a, _ in reads(c)}
        | {_key(b) for hole in linked.values() for b in hole.branches if isinstance(b, RunTime)}
    )
    free = [f for f, hole in found.items() if f not in linked and not _determined(hole, atoms)]
    variables = [domains[key] for key in atoms] + [list(values_of(found[f])) for f in free]
    total = 1
    for options in variables:
        total *= len(options)
    if total > limit * 20:
        return None
    readers = {
        a.key: a.machine
        for hole in linked.values()
        for c in hole.conditions or ()
        for a, _ in reads(c)
        if a.machine
    }
    out: dict[str, Assignment] = {}
    for combination in itertools.product(*variables):
        values = dict(zip(atoms, combination))
        chosen = dict(zip(free, combination[len(atoms) :]))
        try:
            assignment = _assign(found, values, chosen)  # type: ignore[arg-type]
        except Raises:
            continue  # (Python raises evaluating the keywords: no run of the script gets to the Trainer)
        except Unevaluable:
            return None
        if assignment is not None:
            # what the tests took the machine to say goes with the values (``MACHINE``)
            assignment[1].update({MACHINE + readers[k]: values[k] for k in readers if k in values})
            out.setdefault(
                repr(sorted(assignment[1].items())) + repr(sorted(assignment[0].items())), assignment
            )
    return list(out.values()) or None


# The key under which an assignment of ``joint`` holds what a machine reader gave in it
# (``MACHINE + "torch.cuda.is_available"``): no keyword's name starts so.
MACHINE = "\x00machine:"


def on_machine(facts: Mapping[str, Value], cuda: int) -> bool:
    """Could a machine with ``cuda`` CUDA GPUs give what ``facts`` (machine reader -> value) say?"""
    for reader, value in facts.items():
        if reader == "torch.cuda.is_available" and bool(value) != (cuda > 0):
            return False
        if reader == "torch.cuda.device_count" and value != cuda:
            return False
    return True


def machine_branch(choice: Choice, cuda: int, value: Value = None) -> int:
    """The branch a test of the machine (``Choice.machine``) takes on a machine with ``cuda`` CUDA GPUs; where
    the test also reads the run-time value split (``Choice.split``: `n and n != 1 and
    torch.cuda.device_count() > 1`), with that value holding ``value``."""
    assert choice.conditions is not None
    for index, condition in enumerate(choice.conditions):
        given = {atom.key: cuda if atom.machine else value for atom, _ in reads(condition)}
        if _truth(evaluate(condition, given)):
            return index
    return len(choice.conditions)


def _atom_domains(found: Mapping[str, Hole]) -> dict[str, tuple[Value, ...]]:
    """The values of each run-time value the call reads, by key: those of the keywords that pass it (the
    values of each, and only those every such keyword may take), else those it is known to take, else True
    and False where only its truth is read."""
    by_flag: dict[str, dict[str, list[Value]]] = {}
    for flag, hole in found.items():
        for part in hole.branches if isinstance(hole, Choice) else (hole,):
            if isinstance(part, RunTime) and part.pure:
                by_flag.setdefault(_key(part), {}).setdefault(flag, []).extend(part.domain)
    domains: dict[str, tuple[Value, ...]] = {}
    for key, flags in by_flag.items():
        kept = [unique(values) for values in flags.values()]
        spelled = set.intersection(*({repr(v) for v in values} for values in kept))
        domains[key] = tuple(v for v in kept[0] if repr(v) in spelled)
    tests = [
        (atom, truth)
        for hole in found.values()
        if isinstance(hole, Choice)
        for condition in hole.conditions or ()
        for atom, truth in reads(condition)
    ]
    for atom, _ in tests:
        if atom.key not in domains and atom.domain is not None:
            domains[atom.key] = atom.domain
    for atom, _ in tests:
        if atom.key not in domains and all(truth for other, truth in tests if other.key == atom.key):
            domains[atom.key] = (True, False)
    return domains


def _linked(hole: Choice, domains: Mapping[str, tuple[Value, ...]]) -> bool:
    """Can ``hole``'s branch be computed from the run-time values it reads? Its tests are evaluated
    (``conditions``), each value they read is known, and each run-time branch is read as written."""
    if hole.conditions is None:
        return False
    read = {atom.key for condition in hole.conditions for atom, _ in reads(condition)}
    branches = [b for b in hole.branches if isinstance(b, RunTime)]
    return bool(read) and read <= set(domains) and all(b.pure for b in branches)


def _determined(hole: Hole, atoms: list[str]) -> bool:
    return isinstance(hole, RunTime) and hole.pure and _key(hole) in atoms


def _assign(
    found: Mapping[str, Hole], values: Mapping[str, Value], chosen: Mapping[str, tuple[int, Value]]
) -> Assignment | None:
    """Each flag's branch and value for one value of each atom (``values``) and of each unrelated flag
    (``chosen``); None where they contradict each other (a run-time value outside a keyword's domain)."""
    branches: dict[str, int] = {}
    out: dict[str, Value] = {}
    for flag, hole in found.items():
        if flag in chosen:
            index, value = chosen[flag]
        elif isinstance(hole, RunTime):
            index, value = 0, values[_key(hole)]
        else:
            assert hole.conditions is not None
            index = next(
                (i for i, c in enumerate(hole.conditions) if _truth(evaluate(c, values))), len(hole.tests)
            )
            branch = hole.branches[index]
            value = values[_key(branch)] if isinstance(branch, RunTime) else branch
        part = hole.branches[index] if isinstance(hole, Choice) else hole
        # a run-time value read elsewhere too is the same value here, and one of this keyword's
        if isinstance(part, RunTime) and part.pure and _key(part) in values:
            held = values[_key(part)]
            if not _among(held, part.domain) or not _among(value, (held,)):
                return None
        branches[flag] = index
        out[flag] = value
    return branches, out


def _key(value: RunTime) -> str:
    return key_of(value.text)


def _among(value: Value, domain: Iterable[Value]) -> bool:
    return any(type(value) is type(v) and value == v for v in domain)


# --- tests the planner writes -------------------------------------------------------------------------------
#
# A run-time value that no single spelling keeps for each value it may take may still be kept with keywords
# written as conditional expressions over its own expression
# (`strategy="ddp_spawn_find_unused_parameters_true" if n > 1 else "auto"`). Each test is one of a few plain
# ones (``ValueTest``), evaluated with the planner's own `evaluate` for every value of the domain: one that
# raises for any (`None > 1`, `"0,1" > 1`) is never written, and what a written test decides is what the
# judge is shown.


@dataclass(frozen=True)
class ValueTest:
    """A test of a run-time value the planner may write: as written (with the value's expression) and as
    evaluated (``condition``)."""

    text: str
    condition: Expr


def value_tests(value: RunTime) -> tuple[ValueTest, ...]:
    """The tests of ``value`` that Python evaluates without raising for every value of its domain,
    plainest first: its truth (`n`), `n > 1` (where None is among the values, `n is not None and n > 1`
    instead), `n == 1`."""
    text, atom = value.text, Atom(key_of(value.text))
    operand = text if _primary(text) else f"({text})"
    more = Op("compare", (atom, Const(1)), (">",))
    guard = Op("compare", (atom, Const(None)), ("is not",))
    compared = ValueTest(f"{operand} > 1", more)
    guarded = ValueTest(f"{operand} is not None and {operand} > 1", Op("and", (guard, more)))
    candidates = (
        ValueTest(text, atom),
        compared if _valid(compared, value.domain) else guarded,  # (the guard only where it is needed)
        ValueTest(f"{operand} == 1", Op("compare", (atom, Const(1)), ("==",))),
    )
    return tuple(test for test in candidates if _valid(test, value.domain))


def joined_tests(tests: Sequence[ValueTest]) -> tuple[ValueTest, ...]:
    """Tests of a split value for a part that none of ``tests`` picks alone (the parts that a test of the
    machine is joined to: ``quantify._machine_parts``), each written to stand in an `and` chain: each test's
    negation where it reads plainly (`not n`, `n != 1`, `n <= 1`), then two of the tests or their
    negations joined by `and` (`n and n != 1`), plainest first. Each holds, for each value, what Python
    computes of it (``holds``)."""
    signed = [(i, test, _and_safe(test)) for i, test in enumerate(tests)]
    negations = [(i, _negated(test)) for i, test in enumerate(tests)]
    singles = [negated for _, negated in negations if negated is not None]
    signed += [(i, negated, negated.text) for i, negated in negations if negated is not None]
    pairs = [
        ValueTest(f"{a_text} and {b_text}", Op("and", (a.condition, b.condition)))
        for (i, a, a_text), (j, b, b_text) in itertools.combinations(signed, 2)
        if i != j and _atom(a.condition) == _atom(b.condition)  # (never a test and its negation)
    ]
    return (*singles, *pairs)


def _and_safe(test: ValueTest) -> str:
    """``test``'s text, parenthesized where an `and` beside it would bind into it (`a or b`, `x if t else
    y`)."""
    try:
        node = ast.parse(test.text.strip(), mode="eval").body
    except SyntaxError:
        return f"({test.text})"
    loose = (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)) or isinstance(
        node, (ast.IfExp, ast.Lambda, ast.NamedExpr)
    )
    return f"({test.text})" if loose or "\n" in test.text else test.text


_NEGATED = {"==": "!=", ">": "<="}


def _negated(test: ValueTest) -> ValueTest | None:
    """``not test``, written plainly: `not n` for a truth, `n != 1` for `n == 1`, `n <= 1` for `n > 1`; None
    for another test (the guarded `n is not None and n > 1`)."""
    condition = test.condition
    if isinstance(condition, Atom):
        operand = test.text if _primary(test.text) else f"({test.text})"
        return ValueTest(f"not {operand}", Op("not", (condition,)))
    if isinstance(condition, Op) and condition.name == "compare" and len(condition.ops) == 1:
        op = condition.ops[0]
        right = condition.operands[1]
        tail = f" {op} {right.value!r}" if isinstance(right, Const) else ""
        if op in _NEGATED and tail and test.text.endswith(tail):
            text = f"{test.text[: -len(tail)]} {_NEGATED[op]} {right.value!r}"  # type: ignore[union-attr]
            return ValueTest(text, Op("compare", condition.operands, (_NEGATED[op],)))
    return None


def holds(condition: Expr, value: Value) -> bool:
    """What ``condition`` (a ``ValueTest``'s) gives where its run-time value holds ``value``."""
    return _truth(evaluate(condition, {_atom(condition).key: value}))


def _valid(test: ValueTest, domain: Iterable[Value]) -> bool:
    try:
        for value in domain:
            holds(test.condition, value)
    except (Raises, Unevaluable):
        return False
    return True


def _atom(expr: Expr) -> Atom:
    return next(atom for atom, _ in reads(expr))


def _primary(text: str) -> bool:
    """Can ``text`` be an operand of a comparison as written (a name, an attribute, a call, a subscript)?"""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return False
    return "\n" not in text and isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
