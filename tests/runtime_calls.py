"""Check a rewritten call whose values are only known at run time by substitution, independently of the
codemod's planner: every expression that is not a literal takes each value of a domain, every test of a
conditional expression is True or False, and the old and the new call are read with the same choices.

A fixture says what an expression may hold with a line ``# values: args.gpus in (0, 1, 2)``; an expression
it says nothing of takes the whole domain of the flag it is passed as in the old call (``domains.DOMAINS``).
"""

from __future__ import annotations

import ast
import copy
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from lightning_migrate.cli.callparse import NotLiteral, _trainer_skip, bound_once, literal, trainer_aliases
from lightning_migrate.plan.domains import DOMAINS
from lightning_migrate.semantics.classes import lookup
from lightning_migrate.semantics.model import Value
from lightning_migrate.semantics.signature import MODELLED

Choices = dict[str, object]  # expression text -> its value; test text -> True/False

# What reads the machine (`torch.cuda.device_count()`, under the name torch is imported as): a rewrite may
# test it (a strategy 1.x chose by the GPU count); its value is the machine's (``machine_facts``).
MACHINE_READ = re.compile(r"\b(\w+)\.cuda\.(device_count|is_available)\(\)")


def machine_facts(texts: str, cuda: int) -> Choices:
    """What each machine reader that ``texts`` (calls as written) read gives on a machine with ``cuda`` CUDA
    GPUs (empty where they read none)."""
    facts: Choices = {}
    for alias, _ in MACHINE_READ.findall(texts):
        facts[f"{alias}.cuda.device_count()"] = cuda
        facts[f"{alias}.cuda.is_available()"] = cuda > 0
    return facts


@dataclass(frozen=True)
class HoledCall:
    line: int
    text: str
    keywords: dict[str, ast.expr]  # the modelled flags, as written
    names: dict[str, ast.expr]  # the names the file binds once (constants)


def machine_names(call: HoledCall) -> str:
    """The machine readers the names a call may read are bound to (`num_gpus = torch.cuda.device_count()`),
    as written: a call that reads one is judged machine by machine (``machine_facts``)."""
    return " ".join(text for text in map(ast.unparse, call.names.values()) if MACHINE_READ.fullmatch(text))


def holed_calls(source: str) -> list[HoledCall]:
    """Every Trainer call of ``source`` with its modelled keywords as ``ast`` expressions, in file order."""
    tree = ast.parse(source)
    names = bound_once(tree)
    aliases = trainer_aliases(tree)
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _trainer_skip(node, aliases) is not None:
            keywords = {k.arg: k.value for k in node.keywords if k.arg in MODELLED}
            text = ast.get_source_segment(source, node) or ast.unparse(node)
            calls.append(HoledCall(node.lineno, text, keywords, names))
    return sorted(calls, key=lambda c: c.line)


def declared(source: str) -> dict[str, tuple[Value, ...]]:
    """The fixture's ``# values: EXPR in (v1, v2, ...)`` lines."""
    found = {}
    for match in re.finditer(r"^# values: (.+?) in (\(.*\))\s*$", source, re.M):
        text = ast.unparse(ast.parse(match.group(1).strip(), mode="eval").body)
        found[text] = tuple(ast.literal_eval(match.group(2)))
    return found


def choices(old: HoledCall, new: HoledCall, domains: dict[str, tuple[Value, ...]]) -> Iterator[Choices]:
    """Every assignment of the old call's run-time expressions and tests (the new call's must be among
    them: a rewrite never invents a run-time value)."""
    holes: dict[str, tuple[object, ...]] = {}
    for flag, node in old.keywords.items():
        _collect(node, flag, old.names, domains, holes)
    for node in new.keywords.values():
        for text in _texts(node, new.names):
            inlined = ast.unparse(_Inline(new.names).visit(ast.parse(text, mode="eval").body))
            assert any(
                t in holes or _computed(t, holes) or MACHINE_READ.search(t) for t in (text, inlined)
            ), f"the rewrite reads `{text}`, which the old call did not: {new.text}"
    for combination in itertools.product(*holes.values()):
        yield dict(zip(holes, combination))


def evaluate(call: HoledCall, chosen: Choices) -> dict[str, Value]:
    return {flag: _value(node, call.names, chosen) for flag, node in call.keywords.items()}


class Impossible(Exception):
    """Python raises on these values before the Trainer is called (`None > 1`): no run passes them."""


def _derived(node: ast.expr, names: dict[str, ast.expr]) -> ast.expr:
    """A name the file binds once to `a or b` / `a and b` is that expression (`n = args.gpus or 1`: never 0),
    and one bound to a conditional expression that conditional (`gpus = -1 if torch.cuda.is_available() else
    None`: its test is chosen once for every keyword that reads it), with ``names`` inlined into it; any
    other expression as it is."""
    bound = names.get(node.id) if isinstance(node, ast.Name) else None
    if isinstance(bound, (ast.BoolOp, ast.IfExp)):
        return _Inline(names).visit(copy.deepcopy(bound))  # type: ignore[no-any-return]
    if isinstance(bound, ast.Call) and MACHINE_READ.fullmatch(ast.unparse(bound)):
        return bound  # (`num_gpus = torch.cuda.device_count()`: the machine's, read where the name is)
    return node


class _Inline(ast.NodeTransformer):
    def __init__(self, names: dict[str, ast.expr]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return _derived(node, self.names)


def _value(node: ast.expr, names: dict[str, ast.expr], chosen: Choices) -> Value:
    node = _derived(node, names)
    if isinstance(node, ast.IfExp):
        test = _decided(_Inline(names).visit(copy.deepcopy(node.test)), chosen)
        if test is None:
            test = (
                _value(node.test, names, chosen)
                if ast.unparse(node.test) not in chosen
                else chosen[ast.unparse(node.test)]
            )
        return _value(node.body if test else node.orelse, names, chosen)
    if isinstance(node, ast.BoolOp) and ast.unparse(node) not in chosen:  # `n or 1`, as Python reads it
        value = None
        for operand in node.values:
            value = _value(operand, names, chosen)
            if bool(value) == isinstance(node.op, ast.Or):
                break
        return value
    held = _held(node, names)
    return chosen[ast.unparse(node)] if held is HOLE else held  # type: ignore[return-value]


HOLE = object()  # a value only known at run time


def _held(node: ast.expr, names: dict[str, ast.expr]) -> object:
    """The literal ``node`` is (a Lightning object built from literals too), or ``HOLE``: a run-time value
    (a call of anything else, ``torch.cuda.device_count()``, is one)."""
    if isinstance(node, ast.Call) and lookup(_callee(node.func)) is None:
        return HOLE
    try:
        return literal(node, names)
    except NotLiteral:
        return HOLE


def _callee(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _collect(
    node: ast.expr,
    flag: str,
    names: dict[str, ast.expr],
    domains: dict[str, tuple[Value, ...]],
    holes: dict[str, tuple[object, ...]],
) -> None:
    node = _derived(node, names)
    if isinstance(node, ast.BoolOp):
        for operand in node.values:
            _collect(operand, flag, names, domains, holes)
        return
    if isinstance(node, ast.IfExp):
        holes[ast.unparse(node.test)] = (True, False)
        _collect(node.body, flag, names, domains, holes)
        _collect(node.orelse, flag, names, domains, holes)
        return
    if _held(node, names) is HOLE:
        text = ast.unparse(node)
        holes[text] = domains.get(text) or DOMAINS[flag]


def _texts(node: ast.expr, names: dict[str, ast.expr]) -> Iterator[str]:
    node = _derived(node, names)
    if isinstance(node, ast.IfExp):
        yield ast.unparse(node.test)
        yield from _texts(node.body, names)
        yield from _texts(node.orelse, names)
        return
    if isinstance(node, ast.BoolOp):
        for operand in node.values:
            yield from _texts(operand, names)
        return
    if _held(node, names) is HOLE:
        yield ast.unparse(node)


def _computed(test: str, holes: dict[str, tuple[object, ...]]) -> bool:
    """Does the test ``test`` (a rewrite's conditional's, `args.gpus > 1`) read nothing but the old call's
    run-time values? Then it is computed from their values (``_decided``), not chosen."""
    replaced = _Holes(dict.fromkeys(holes))
    body = ast.parse(test, mode="eval")
    replaced.generic_visit(body)
    names = {node.id for node in ast.walk(body) if isinstance(node, ast.Name)}
    return bool(replaced.bound) and names <= {*replaced.bound, "len"}


class _Holes(ast.NodeTransformer):
    """Every sub-expression that is a chosen run-time value becomes a name bound to that value."""

    def __init__(self, chosen: Choices) -> None:
        self.chosen = chosen
        self.bound: dict[str, object] = {}

    def visit(self, node: ast.AST) -> ast.AST:
        text = ast.unparse(node) if isinstance(node, ast.expr) else None
        if text is not None and text in self.chosen and not isinstance(node, ast.Constant):
            name = f"_hole{len(self.bound)}"
            self.bound[name] = self.chosen[text]
            return ast.copy_location(ast.Name(name, ast.Load()), node)
        return super().visit(node)


def _decided(test: ast.expr, chosen: Choices) -> bool | None:
    """What Python makes of ``test`` (a conditional's) with the chosen run-time values it reads, where they
    are all it reads (`n > 1`, `args.gpus and len(args.gpus) > 1`); None where it reads something else.
    Raises ``Impossible`` where Python raises: the call is never reached with these values."""
    holes = _Holes(chosen)
    body = ast.parse(ast.unparse(test), mode="eval")
    holes.generic_visit(body.body)  # (the test as a whole is chosen True and False: its parts are read)
    if not holes.bound:
        return None
    code = compile(ast.fix_missing_locations(body), "<test>", "eval")
    try:
        return bool(eval(code, {"__builtins__": {"len": len}}, dict(holes.bound)))  # the fixture's own test
    except NameError:
        return None
    except (TypeError, ValueError, ZeroDivisionError) as error:
        raise Impossible(str(error)) from error
