"""Read a flag value that is only known at run time into what the planner can quantify over (``knowledge``).

- A conditional expression is a ``Choice`` of its branches (``1 if args.cuda else 0``), each a value or, in
  turn, a run-time value; the branches of ``a if t0 else b if t1 else c`` are read as one chain.
- Any other expression is a ``RunTime`` over its flag's domain (``domains``), narrowed by what the file says:
  a name bound once is what it is bound to; an option of the file's own ``argparse`` parser (``args.gpus``
  with ``add_argument("--gpus", type=int)``; or of a parser another module of the project builds for it,
  ``Imported``) or of ``Trainer.add_argparse_args`` holds what that option gives;
  ``int(x)``/``str(x)`` hold what the conversion makes of ``x``'s values.

A flag with no domain (``accelerator=``, ``strategy=``, objects...) cannot be quantified over: ``None``, and
the call is reported as before.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from lightning_migrate.files.text import Text
from lightning_migrate.plan import domains
from lightning_migrate.plan.ast_values import Reader, Unknown
from lightning_migrate.plan.domains import Domain
from lightning_migrate.plan.knowledge import Atom, Choice, Const, Expr, Op, RunTime
from lightning_migrate.plan.locate import Located, Scope
from lightning_migrate.semantics.model import Obj, Value

# Tests made of these nodes only read values: written a second time, they choose the same branch.
_PURE = (
    ast.Name,
    ast.Attribute,
    ast.Constant,
    ast.Compare,
    ast.BoolOp,
    ast.UnaryOp,
    ast.BinOp,
    ast.Subscript,
    ast.Tuple,
    ast.List,
    ast.Load,
    ast.cmpop,
    ast.boolop,
    ast.unaryop,
    ast.operator,
)
MAX_DEPTH = 8
# The operators of a test the planner evaluates (``knowledge.Op``), by their name there.
_OPERATORS: dict[type, str] = {
    ast.And: "and",
    ast.Or: "or",
    ast.Not: "not",
    ast.USub: "neg",
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.FloorDiv: "//",
    ast.Mod: "%",
}
_COMPARISONS: dict[type, str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}


@dataclass(frozen=True)
class Imported:
    """What the project's other modules say about a file's argparse options (``project.script_options``):
    the options of the parser they build for it, by destination, and the dotted names under which the file
    calls the functions of theirs that return what that parser parsed (``get_opts``, ``opt.get_opts``)."""

    options: tuple[tuple[str, domains.Option], ...] = ()
    parsers: frozenset[str] = frozenset()
    trainer: bool = False  # the parser adds the Trainer's options (``Trainer.add_argparse_args``)


NOTHING_IMPORTED = Imported()


def _nothing() -> Imported:
    return NOTHING_IMPORTED


@dataclass(frozen=True)
class RunTimeReader:
    located: Located
    reader: Reader
    text: Text
    # what other modules say, asked only when a value may be an argparse option (a file read from disk)
    imported: Callable[[], Imported] = field(default=_nothing)

    def known(self, node: ast.expr, scope: Scope, flag: str) -> RunTime | Choice | None:
        """What the planner may take ``node`` (the value of ``flag``) to be, or None."""
        if isinstance(node, ast.IfExp):
            return self._choice(node, scope, flag)
        through = self._through_name(node, scope, flag)
        if through is not None:
            return through
        found = self.domain(node, scope, flag)
        if found is None or not found.values:
            return None
        pure = self._pure(node, scope)
        return RunTime(flag, self.text.segment(node), found.values, pure, found.told, found.written)

    def _through_name(self, node: ast.expr, scope: Scope, flag: str) -> Choice | None:
        """A name bound once, in the call's own scope, to a conditional expression whose tests the planner
        evaluates and may write again at the call (``gpus = -1 if torch.cuda.is_available() else None``):
        that conditional, read as the name (``Choice.name``), so that values chosen by the same tests are
        judged together, per outcome of the tests (the other branches never go with them); None otherwise."""
        if not isinstance(node, ast.Name):
            return None
        binding = self.located.sole_binding(node, scope)
        if binding is None or binding.scope is not scope or not isinstance(binding.value, ast.IfExp):
            return None
        choice = self._choice(binding.value, scope, flag)
        if choice is None or choice.conditions is None or not choice.pure:
            return None
        tests: list[ast.expr] = []
        current: ast.expr = binding.value
        while isinstance(current, ast.IfExp):
            tests.append(current.test)
            current = current.orelse
        if not all(self._portable(test, scope) for test in tests):
            return None
        return replace(choice, name=node.id)

    def _portable(self, test: ast.expr, scope: Scope) -> bool:
        """Does ``test`` give at the call what it gave where the name was bound: it reads the machine
        (``torch.cuda.is_available()``), nothing else? (An attribute, ``args.cuda``, may be set by any code
        run between the two.)"""
        for node in ast.walk(test):
            if isinstance(node, ast.Subscript):
                return False
            if isinstance(node, ast.Name):
                where = scope.lookup(node.id)
                bindings = where.bindings[node.id] if where is not None else []
                modules = {b.qualified for b in bindings}
                # only a module (imported again, as a notebook's cells do, it is the same module): a test of
                # a parameter is judged with the values the call gives it elsewhere, and a run leaving it
                # (`gpus = 0 if plugins is None else 1` beside `plugins=plugins`) took a second run to finish
                if not bindings or len(modules) != 1 or None in modules:
                    return False
            if isinstance(node, ast.Attribute) and not _called(node, test):
                return False
        return True

    def _choice(self, node: ast.IfExp, scope: Scope, flag: str) -> Choice | None:
        chain: list[ast.expr] = []
        tests: list[ast.expr] = []
        current: ast.expr = node
        while isinstance(current, ast.IfExp):
            chain.append(current.body)
            tests.append(current.test)
            current = current.orelse
        chain.append(current)
        branches: list[Value | RunTime] = []
        for branch in chain:
            value = self.reader.read(branch, scope)
            if isinstance(value, Unknown):
                if isinstance(branch, ast.IfExp):
                    return None  # a conditional inside a branch's body: not one chain
                inner = self.known(branch, scope, flag)
                if not isinstance(inner, RunTime):
                    return None
                branches.append(inner)
            elif _has_object(value):
                return None  # an object in a branch is decided where it is built, not here
            else:
                branches.append(value)
        pure = all(self._pure(test, scope) for test in tests)
        conditions = [self.condition(test, scope) for test in tests]
        computed = None if None in conditions else tuple(c for c in conditions if c is not None)
        return Choice(
            flag, tuple(branches), tuple(self.text.segment(t) for t in tests), pure, False, computed
        )

    def condition(self, node: ast.expr, scope: Scope) -> Expr | None:
        """``node``, a conditional's test, as the planner evaluates it (``knowledge.evaluate``): values the
        file writes, the operators of ``_OPERATORS``, the builtin ``len``, and as atoms what only reads a
        value (``n``, ``args.gpus``, ``torch.cuda.device_count()``); None where it does more (an unknown
        function: the planner then takes each branch to be possible)."""
        value = self.reader.read(node, scope)
        if not isinstance(value, Unknown):
            return None if _has_object(value) else Const(value)
        parts: list[ast.expr] | None = None
        name = ops = None
        if isinstance(node, ast.BoolOp):
            name, parts = _OPERATORS[type(node.op)], node.values
        elif isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            name, parts = _OPERATORS[type(node.op)], [node.operand]
        elif isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            name, parts = _OPERATORS[type(node.op)], [node.left, node.right]
        elif isinstance(node, ast.Compare):
            name, parts, ops = (
                "compare",
                [node.left, *node.comparators],
                tuple(_COMPARISONS[type(o)] for o in node.ops),
            )
        elif isinstance(node, ast.Call) and self._len(node, scope):
            name, parts = "len", node.args
        if name is not None and parts is not None:
            operands = [self.condition(part, scope) for part in parts]
            if None in operands:
                return None
            return Op(name, tuple(o for o in operands if o is not None), ops or ())
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) and _pure(node):
            return Atom(ast.unparse(node))
        reader = self._reader(node, scope)  # (any other call may do anything, and give anything)
        return None if reader is None else Atom(ast.unparse(node), domains.CALLS[reader], reader)

    def _pure(self, node: ast.expr, scope: Scope) -> bool:
        """``_pure``, with the machine readers also under the name the file imports torch as
        (``t.cuda.is_available()`` after ``import torch as t``)."""
        return all(
            isinstance(n, _PURE)
            or (
                isinstance(n, ast.Call)
                and (
                    domains.dotted(n.func) in domains.PURE_CALLS
                    or any(q in domains.CALLS for q in self.located.qualified(n.func, scope))
                )
            )
            for n in ast.walk(node)
        )

    def _len(self, node: ast.Call, scope: Scope) -> bool:
        """Is ``node`` the builtin ``len`` of one value?"""
        return (
            isinstance(node.func, ast.Name)
            and node.func.id == "len"
            and self.located.builtin(node.func, scope)
            and len(node.args) == 1
            and not node.keywords
        )

    def _reader(self, node: ast.expr, scope: Scope) -> str | None:
        """The machine reader ``node`` calls (``torch.cuda.is_available``), else None."""
        if not isinstance(node, ast.Call) or node.args or node.keywords:
            return None
        return next((n for n in self.located.qualified(node.func, scope) if n in domains.CALLS), None)

    def domain(self, node: ast.expr, scope: Scope, flag: str, depth: int = 0) -> Domain | None:
        """The values ``node`` may hold as ``flag``, and whether the file writes each of them."""
        if depth > MAX_DEPTH:
            return None
        value = self.reader.read(node, scope)
        if not isinstance(value, Unknown):
            return None if _has_object(value) else Domain((value,), told=True)
        if isinstance(node, ast.IfExp):
            parts = [self.domain(branch, scope, flag, depth + 1) for branch in (node.body, node.orelse)]
            return domains.union(parts)
        if isinstance(node, ast.BoolOp):
            return self._either(node, scope, flag, depth)
        if isinstance(node, ast.Name):
            return self._named(node, scope, flag, depth)
        if isinstance(node, ast.Attribute) and self._parsed(node.value, scope):
            options, trainer = self._options
            option = options.get(node.attr)
            found = None
            if option is not None:
                found = domains.of_option(flag, option)
            elif trainer and node.attr == flag:
                found = domains.whole(domains.TRAINER_OPTIONS.get(flag))
            if found is not None:
                assert isinstance(node.value, ast.Name)  # (``_parsed``)
                return self._rewritten(found, node.value.id, node.attr, flag)
        if isinstance(node, ast.Call) and not node.keywords:
            return self._called(node, scope, flag, depth)
        return domains.whole(domains.DOMAINS.get(flag))

    def _rewritten(self, parsed: Domain, name: str, attribute: str, flag: str) -> Domain | None:
        """What ``name.attribute``, an option the parser gave, may hold where the file also writes it
        (``args.gpus = [int(i) for i in args.gpu_ids.split(",")]``): the option's values and each written
        value (a literal as written, anything else the flag's whole domain). The option's own values were
        taken for the only ones, and a rewrite made for them alone (`... if args.gpus > 1 else ...`) raised
        for the list the script wrote."""
        writes = self._attribute_writes
        written = writes.get((name, attribute), []) + writes.get((name, "*"), [])
        if not written:
            return parsed
        parts: list[Domain | None] = [parsed]
        for value in written:
            literal = _literal(value)
            parts.append(
                domains.whole(domains.DOMAINS.get(flag))
                if isinstance(literal, _NotLiteral)
                else Domain((literal,), told=True)
            )
        return domains.union(parts)

    @functools.cached_property
    def _attribute_writes(self) -> dict[tuple[str, str], list[ast.expr | None]]:
        """(name, attribute) -> every value the file assigns to ``name.attribute`` (None: one not known as an
        expression: an augmented assignment, a loop's target, a tuple unpacked from one value); (name, "*")
        for a write to any attribute (``setattr(name, key, v)``, ``vars(name)``, ``name.__dict__``)."""
        found: dict[tuple[str, str], list[ast.expr | None]] = {}

        def add(target: ast.expr, value: ast.expr | None) -> None:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                found.setdefault((target.value.id, target.attr), []).append(value)
            elif isinstance(target, (ast.Tuple, ast.List)):
                pairs = (
                    isinstance(value, (ast.Tuple, ast.List))
                    and len(value.elts) == len(target.elts)
                    and not any(isinstance(e, ast.Starred) for e in (*value.elts, *target.elts))
                )
                for index, element in enumerate(target.elts):
                    item = value.elts[index] if pairs and isinstance(value, (ast.Tuple, ast.List)) else None
                    add(element.value if isinstance(element, ast.Starred) else element, item)

        assigned: set[int] = set()
        for statement in ast.walk(self.located.tree):
            if isinstance(statement, ast.Assign):
                for target in statement.targets:
                    add(target, statement.value)
                    assigned.update(id(n) for n in ast.walk(target))
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                add(statement.target, statement.value)
                assigned.update(id(n) for n in ast.walk(statement.target))
        for node in ast.walk(self.located.tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and id(node) not in assigned
            ):
                found.setdefault((node.value.id, node.attr), []).append(None)  # `+=`, `for args.x in`
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
                first = node.args[0]
                if node.func.id == "setattr" and isinstance(first, ast.Name):
                    key = node.args[1] if len(node.args) == 3 else None
                    named = isinstance(key, ast.Constant) and isinstance(key.value, str)
                    attribute = key.value if named else "*"  # type: ignore[union-attr]
                    value = node.args[2] if named else None
                    found.setdefault((first.id, attribute), []).append(value)
            written = _written_mapping(node)
            if written is not None:
                found.setdefault((written, "*"), []).append(None)
        return found

    def _either(self, node: ast.BoolOp, scope: Scope, flag: str, depth: int) -> Domain | None:
        """What `a or b` gives, as Python computes it: the true values of `a`, and those of `b` where `a`
        may be false (`n = args.gpus or 1` is never 0 or None); `a and b` the false values of `a`, and
        those of `b` where `a` may be true."""
        decides = isinstance(node.op, ast.Or)  # the truth with which an operand is the result
        parts: list[Domain] = []
        for index, operand in enumerate(node.values):
            part = self.domain(operand, scope, flag, depth + 1)
            if part is None:
                return None
            last = index == len(node.values) - 1
            kept = tuple(v for v in part.values if last or bool(v) == decides)
            parts.append(Domain(kept, part.told, tuple(v for v in part.written if v in kept)))
            if len(kept) == len(part.values) and not last and part.told:
                break  # (every value decides: the operands after it are never read)
            # (a domain assumed for want of better, a flag's or a type's, leaves out the values that flag
            # never runs with: `devices` no 0; but `n or None` is the idiom that hands 0 on as None)
        return domains.union(parts)

    def _parsed(self, node: ast.expr, scope: Scope) -> bool:
        """Is ``node`` what the file's argparse parser gave: a name bound to ``parser.parse_args()`` (or
        ``parse_known_args()[0]``), or a function's parameter in a file that parses arguments (``def
        main(args)``)? Only its attributes are the parser's options (``cfg.gpus`` from a YAML file is
        not)."""
        if not isinstance(node, ast.Name):
            return False
        bound = self.located.bound(node, scope)
        if bound is not None:
            value = bound[0].value if isinstance(bound[0], ast.Subscript) else bound[0]
            return isinstance(value, ast.Call) and self._parses(value)
        return self.located.parameter(node, scope) is not None and any(
            map(self._parses, self.located.every_call)
        )

    def _parses(self, call: ast.Call) -> bool:
        """Does ``call`` return what an argparse parser parsed: ``parser.parse_args()``, a function of the
        file's own (``args = get_args()``, ``_own_parsers``) or of another module of the project that returns
        it (``get_opts()``, ``Imported.parsers``)?"""
        name = domains.dotted(call.func)
        if name.endswith(domains.PARSE):
            return True
        if isinstance(call.func, ast.Name) and name in self._own_parsers:
            return True
        return bool(name) and not call.args and name in self._imported.parsers

    @functools.cached_property
    def _own_parsers(self) -> frozenset[str]:
        """The functions defined once at the file's top level, and bound nowhere else there, that return what
        their parser parsed (``def get_args(): ...; return parser.parse_args()``): what a call of one gives
        holds the file's own options."""
        module = self.located.scopes[0] if self.located.scopes else None
        functions = [
            node
            for node in self.located.tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and domains.returns_parsed(node)
        ]
        return frozenset(
            function.name
            for function in functions
            if module is not None and len(module.bindings.get(function.name, ())) == 1
        )

    def _named(self, node: ast.Name, scope: Scope, flag: str, depth: int) -> Domain | None:
        """A name bound once is what it is bound to; a parameter what its test's parametrize lists, or its
        annotation and default say; a name bound in branches any of its values."""
        bound = self.located.bound(node, scope)
        if bound is not None:
            return self.domain(bound[0], bound[1], flag, depth + 1)
        parameter = self.located.parameter(node, scope)
        if parameter is not None:
            binding, outside = parameter
            assert binding.parameter is not None
            tested = domains.parametrized(binding.function, node.id) if binding.function else None
            if tested is not None:  # a test run with each value `pytest.mark.parametrize` lists
                return Domain(tested, told=True)
            default = binding.default
            given: object = domains.MISSING if default is None else self.reader.read(default, outside)
            values = domains.of_annotation(flag, binding.parameter.annotation, given)
            if values is None:
                return None
            # the default is a value the file writes: `strategy: Optional[str] = None` is a call with
            # `strategy=None` whenever the caller leaves it out
            if given is None or isinstance(given, (bool, int, float, str)):
                return Domain(values, written=(given,))
            return Domain(values)
        assigned = self.located.assigned(node, scope)
        if assigned is not None:  # bound in branches: any of the values
            return domains.union(self.domain(value, where, flag, depth + 1) for value, where in assigned)
        return domains.whole(domains.DOMAINS.get(flag))

    def _called(self, node: ast.Call, scope: Scope, flag: str, depth: int) -> Domain | None:
        """What a call gives: a builtin conversion of a value (``int(args.gpus)``), ``min``/``max`` of values,
        a function whose results the model knows (``torch.cuda.device_count()``), else the whole domain."""
        known = next(
            (domains.CALLS[n] for n in self.located.qualified(node.func, scope) if n in domains.CALLS), None
        )
        if known is not None and not node.args:
            return domains.whole(known)
        if not self.located.builtin(node.func, scope):
            return domains.whole(domains.DOMAINS.get(flag))
        assert isinstance(node.func, ast.Name)
        parts = [self.domain(arg, scope, flag, depth + 1) for arg in node.args]
        if not parts or any(part is None for part in parts):
            return None
        given = [part for part in parts if part is not None]
        if node.func.id in ("min", "max") and len(given) > 1:
            values = domains.extreme(node.func.id, [part.values for part in given])
        elif len(given) == 1:
            values = domains.converted(node.func.id, given[0].values)
        else:
            return domains.whole(domains.DOMAINS.get(flag))
        # (what a call gives is never told: only values the file writes out show a sign of the old API)
        return domains.whole(values)

    @functools.cached_property
    def _imported(self) -> Imported:
        return self.imported()

    @functools.cached_property
    def _options(self) -> tuple[dict[str, domains.Option], bool]:
        """The file's own argparse options (``domains.options``), and whether it adds the Trainer's; with
        those of the parser another module of the project builds or extends for it where the file parses
        (``get_opts()``, or ``parser.parse_args()`` after ``Model.add_model_specific_args(parser)``); the
        file's own ``add_argument`` of an option wins."""
        own, trainer = domains.options(self.located.every_call)
        imported = self._imported
        if not any(self._parses(call) for call in self.located.every_call):
            return own, trainer
        return {**dict(imported.options), **own}, trainer or imported.trainer


_MAPPING_WRITES = frozenset({"update", "setdefault", "__setitem__", "pop", "clear"})


def _written_mapping(node: ast.AST) -> str | None:
    """The name whose attributes ``node`` writes through its mapping: ``args.__dict__.update(cfg)``,
    ``vars(args)[key] = v`` (a read, ``Trainer(**vars(args))``, writes nothing)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr not in _MAPPING_WRITES:
            return None
        mapping = node.func.value
    elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
        mapping = node.value
    else:
        return None
    if isinstance(mapping, ast.Attribute) and mapping.attr == "__dict__":
        return mapping.value.id if isinstance(mapping.value, ast.Name) else None
    if (
        isinstance(mapping, ast.Call)
        and isinstance(mapping.func, ast.Name)
        and mapping.func.id == "vars"
        and len(mapping.args) == 1
        and isinstance(mapping.args[0], ast.Name)
    ):
        return mapping.args[0].id
    return None


class _NotLiteral:
    pass


_NOT_LITERAL = _NotLiteral()


def _literal(node: ast.expr | None) -> Value | _NotLiteral:
    """The value ``node`` writes out, of a kind the model reads (``1``, ``"0,1"``, ``[0, 1]``, ``None``);
    else ``_NOT_LITERAL``."""
    if node is None:
        return _NOT_LITERAL
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_LITERAL
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)) and all(type(v) is int for v in value):
        return value
    return _NOT_LITERAL


def _pure(node: ast.expr) -> bool:
    """Does ``node`` only read values (names, attributes, operators, and the calls that read the machine or
    convert, ``domains.PURE_CALLS``)? Written twice, it gives the same value twice."""
    return all(
        isinstance(n, _PURE) or (isinstance(n, ast.Call) and domains.dotted(n.func) in domains.PURE_CALLS)
        for n in ast.walk(node)
    )


def _has_object(value: Value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(map(_has_object, value))
    return isinstance(value, Obj)


def _called(node: ast.Attribute, test: ast.expr) -> bool:
    """Is ``node`` (an attribute in ``test``) part of the callee of a machine reader's call
    (``torch.cuda`` of ``torch.cuda.is_available()``)? The reader itself is judged as a call."""
    for call in ast.walk(test):
        if isinstance(call, ast.Call) and any(n is node for n in ast.walk(call.func)):
            return True
    return False
