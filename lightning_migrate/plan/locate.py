"""Locate the Trainer calls of a Python file with the standard library's ``ast``, and resolve their names.

One walk over the tree builds Python's scopes (module, class, function, lambda, comprehension, with
``global``/``nonlocal``, class bodies that nested functions do not see, defaults and decorators evaluated
outside the function) and records, per scope, every binding of each name and every read of it. Then:

- ``qualified(node, scope)``: what a name or attribute chain is, through the imports that bind its first
  name (``pl.Trainer`` with ``import pytorch_lightning as pl`` is ``pytorch_lightning.Trainer``); a name
  some function parameter or local assignment shadows is not the import.
- ``bound(name, scope)``: the expression a name is bound to when it is bound exactly once (a constant);
  with ``sole_use``, only when that binding is also read exactly once (a ``**cfg`` dict used only there).
- ``calls``: every call that builds a Lightning Trainer, ``Trainer(...)``, ``Trainer.from_argparse_args(args,
  ...)`` or ``functools.partial(Trainer, ...)``, with the number of leading arguments that are not flags, and
  whether the code expects it to raise: it runs in the body of ``with pytest.raises(...)`` or ``with
  self.assertRaises(...)`` (``assertRaisesRegex``), or in the callable handed to one of them
  (``pytest.raises(E, lambda: Trainer(...))``); and the ``super().__init__(...)`` (``super(Cls,
  self).__init__``, ``Base.__init__(self, ...)``) of a module-level Trainer subclass's ``__init__``, where its
  flags reach Lightning (``super_inits``).

These are the answers the LibCST scope analysis gave the codemod before (``tests/test_locate.py`` runs both
on every fixture and on generated code), at a fraction of its cost: the file is read once, by CPython's
parser, and only the statements the rewrite edits reach LibCST.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from lightning_migrate.files.text import Text
from lightning_migrate.plan.trainers import (
    ECOSYSTEM,
    LIGHTNING_TRAINERS,
    LOCAL,
    NO_SUBCLASSES,
    PARTIAL_NAMES,
    SHIM_MODULES,
    SHIM_TRAINERS,
    RunSubclasses,
    subclasses,
    super_init_owner,
)
from lightning_migrate.report.findings import Span
from lightning_migrate.semantics.classes import CLASSES
from lightning_migrate.semantics.signature import REMOVED_METHODS

TRAINER_NAMES = LIGHTNING_TRAINERS
CLASS_NAMES = frozenset(row.name for row in CLASSES)


@dataclass
class Binding:
    """One binding of a name: an ``x = value`` / ``x: T = value`` statement (``value``; ``single``: the only
    target), an import (``qualified``: the dotted name it binds), or anything else (a parameter, a loop)."""

    value: ast.expr | None = None
    single: bool = False
    qualified: str | None = None
    scope: Scope | None = None  # where ``value`` is evaluated
    parameter: ast.arg | None = None  # a function's parameter (its annotation says what it may hold) ...
    default: ast.expr | None = None  # ... its default value ...
    function: ast.FunctionDef | ast.AsyncFunctionDef | None = None  # ... and the function (its decorators)


@dataclass(eq=False)
class Scope:
    kind: str  # "module", "class", "function" (also lambda) or "comprehension"
    parent: Scope | None
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    reads: Counter[str] = field(default_factory=Counter)
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)

    def bind(self, name: str, binding: Binding) -> None:
        owner: Scope = self
        if name in self.declared_global:
            owner = _module(self)
        elif name in self.declared_nonlocal:  # the nearest enclosing function's name
            while owner.parent is not None and (owner is self or owner.kind != "function"):
                owner = owner.parent
        owner.bindings.setdefault(name, []).append(binding)

    def lookup(self, name: str) -> Scope | None:
        """The scope whose bindings of ``name`` a read of it here sees; None: a builtin or undefined."""
        scope: Scope | None = self
        asked = True  # a class body is seen from itself, not from the functions it holds
        while scope is not None:
            if name in scope.declared_global:
                module = _module(scope)
                return module if name in module.bindings else None
            if (
                name in scope.bindings
                and name not in scope.declared_nonlocal
                and (asked or scope.kind != "class")
            ):
                return scope
            asked = False
            scope = scope.parent
        return None


def _module(scope: Scope) -> Scope:
    while scope.parent is not None:
        scope = scope.parent
    return scope


@dataclass(frozen=True)
class TrainerCall:
    node: ast.Call
    skip: (
        int  # leading arguments that are not flags (``args`` of ``from_argparse_args``, ``partial``'s class)
    )
    scope: Scope
    indent: str  # the indentation of the statement the call is in (LibCST edits it in that context)
    consumes: str = ""  # the callee is a Trainer subclass that takes flags itself: why (``trainers``)
    expects_raise: bool = False  # it runs where the code expects a raise (``expected_raises``)
    # a subclass's ``super().__init__(...)``: the subclass's name, and the ``*args``/``**kwargs`` parameters
    # of its ``__init__`` the call hands on (its callers' flags, judged where it is called)
    owner: str = ""
    forwarded: frozenset[str] = frozenset()
    # the callee's own parameters that never reach Lightning's Trainer under their name: not flags of the call
    swallowed: frozenset[str] = frozenset()
    # the namespace whose runtime shim builds it (``lightning_migrate.shim.Trainer(...)``, ``partial(`` of it,
    # the shim's ``from_argparse_args(Trainer, args, ...)``), which translates what it is given: "" for any
    # other call (``Located.shim_calls``)
    shim: str = ""

    @property
    def namespace(self) -> ast.expr | None:
        """The argparse namespace (or parser) of ``X.from_argparse_args(args, ...)``, whose flags the call
        passes too."""
        func = self.node.func
        if not (isinstance(func, ast.Attribute) and func.attr == _FROM_ARGPARSE[1:]):
            return None
        named = [k.value for k in self.node.keywords if k.arg == "args"]
        first = 1 if self.shim and self.skip == 2 else 0  # (the shim's function: the class comes first)
        return self.node.args[first] if len(self.node.args) > first else named[0] if named else None


@dataclass
class Located:
    tree: ast.Module
    calls: list[TrainerCall]
    scopes: list[Scope]
    indents: dict[int, str]  # id(call or dict node) -> the indentation of its statement
    import_froms: list[ast.ImportFrom]  # every `from ... import`, wherever it is
    guarded: set[int]  # id() of the imports inside an `if` or `try` (compatibility code, version guards)
    names: set[str]  # every name the code reads, writes or deletes
    class_names: list[ast.Name]  # the names of Lightning classes (the uses a class rename may follow)
    every_call: list[ast.Call]
    # what builds a Lightning Trainer: its own names, the ecosystem's and the file's subclasses that pass the
    # flags through; and the subclasses that consume flags, with why (``trainers``)
    trainers: frozenset[str] = TRAINER_NAMES
    consuming: dict[str, str] = field(default_factory=dict)
    swallowing: dict[str, frozenset[str]] = field(default_factory=dict)  # (``trainers.swallowed``)
    # the calls of a Trainer class's method 2.0 removed (``Trainer.add_argparse_args(parser)``), each with its
    # scope and the classes it names (``signature.REMOVED_METHODS``)
    methods: list[tuple[ast.Call, Scope, frozenset[str]]] = field(default_factory=list)
    # id() of the guarded imports whose only guard is a `try:` that catches ImportError (the import is
    # the code's, the handler its fallback) -> that `try`
    tried: dict[int, ast.Try] = field(default_factory=dict)
    # every call with the scope it is made in (a LightningCLI's `trainer_defaults` are read in its scope)
    scoped_calls: list[tuple[ast.Call, Scope]] = field(default_factory=list)
    # the calls that build the runtime shim's Trainer (``TrainerCall.shim``; not among ``calls``): the shim
    # translates their hardware flags and takes the removed keywords 1.5 read, the rest reaches Lightning
    shim_calls: list[TrainerCall] = field(default_factory=list)

    def call_spans(self) -> tuple[Span, ...]:
        """Where every call of the file is (for ``# noqa`` over a multi-line call)."""
        return tuple(
            (c.lineno, c.col_offset, c.end_lineno or c.lineno, c.end_col_offset or 0) for c in self.every_call
        )

    def qualified(self, node: ast.expr, scope: Scope) -> set[str]:
        """The imported names ``node`` (a name, an attribute chain, or a call or subscript of one) is."""
        dotted = _dotted(node)
        if dotted is None:
            return set()
        head, _, rest = dotted.partition(".")
        where = scope.lookup(head)
        if where is None:
            return set()
        out = set()
        for binding in where.bindings[head]:
            if binding.qualified is not None:
                out.add(f"{binding.qualified}.{rest}" if rest else binding.qualified)
        return out

    def builtin(self, node: ast.expr, scope: Scope) -> bool:
        """Is ``node`` a name no scope binds (so the builtin of that name)?"""
        return isinstance(node, ast.Name) and scope.lookup(node.id) is None

    def bound(self, name: ast.Name, scope: Scope, sole_use: bool = False) -> tuple[ast.expr, Scope] | None:
        """The expression ``name`` is bound to, and the scope it is evaluated in, when ``name`` is bound
        exactly once, by an assignment statement (with ``sole_use``: as its only target, and read once)."""
        where = scope.lookup(name.id)
        if where is None:
            return None
        bindings = where.bindings[name.id]
        if len(bindings) != 1 or bindings[0].value is None or bindings[0].scope is None:
            return None
        if sole_use and (not bindings[0].single or self.reads(name.id, where) != 1):
            return None
        return bindings[0].value, bindings[0].scope

    def sole_binding(self, name: ast.Name, scope: Scope) -> Binding | None:
        """The binding of ``name`` where it is bound exactly once, by an assignment statement with it as its
        only target."""
        where = scope.lookup(name.id)
        bindings = where.bindings[name.id] if where is not None else []
        if len(bindings) != 1 or bindings[0].value is None or not bindings[0].single:
            return None
        return bindings[0]

    def assigned(self, name: ast.Name, scope: Scope) -> list[tuple[ast.expr, Scope]] | None:
        """Every expression ``name`` is bound to, with the scope it is evaluated in, when each of its
        bindings is an assignment statement (``if c: n = 1`` / ``else: n = 0``); None otherwise."""
        where = scope.lookup(name.id)
        bindings = where.bindings[name.id] if where is not None else []
        if not bindings or any(b.value is None or b.scope is None for b in bindings):
            return None
        return [(b.value, b.scope) for b in bindings]  # type: ignore[misc]

    def parameter(self, name: ast.Name, scope: Scope) -> tuple[Binding, Scope] | None:
        """When ``name`` is a function's parameter bound nowhere else: its binding (the parameter, its
        default, the function) and the scope the default is evaluated in (the one the function is defined
        in)."""
        where = scope.lookup(name.id)
        bindings = where.bindings[name.id] if where is not None else []
        if len(bindings) != 1 or bindings[0].parameter is None or where is None or where.parent is None:
            return None
        return bindings[0], where.parent

    def reads(self, name: str, where: Scope) -> int:
        return sum(s.reads[name] for s in self.scopes if name in s.reads and s.lookup(name) is where)


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        value = _dotted(node.value)
        return None if value is None else f"{value}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    if isinstance(node, ast.Subscript):
        return _dotted(node.value)
    return None


def trainer_skip(located: Located, call: ast.Call, scope: Scope, trainers: frozenset[str]) -> int | None:
    """How many leading arguments precede the Trainer flags, if ``call`` builds one of ``trainers``."""
    found = trainer_callee(located, call, scope, trainers)
    return None if found is None else found[0]


def trainer_callee(
    located: Located, call: ast.Call, scope: Scope, trainers: frozenset[str]
) -> tuple[int, frozenset[str]] | None:
    """If ``call`` builds one of ``trainers`` (``X(...)``, ``partial(X, ...)``, ``X.from_argparse_args(args,
    ...)``): how many leading arguments precede its flags, and the names of ``trainers`` it builds."""
    names = _named(located, call.func, scope)
    if not names:
        return None
    if names & trainers:
        return 0, names & trainers
    if names & PARTIAL_NAMES and call.args and _named(located, call.args[0], scope) & trainers:
        return 1, _named(located, call.args[0], scope) & trainers
    built = {n[: -len(_FROM_ARGPARSE)] for n in names if n.endswith(_FROM_ARGPARSE)} & trainers
    return (1, frozenset(built)) if built else None


_FROM_ARGPARSE = ".from_argparse_args"
# the runtime shim's function that builds a Trainer from an argparse namespace, by its dotted path, with the
# namespace whose Trainer it builds (``from_argparse_args(Trainer, args, **flags)``)
SHIM_PACKAGE = "lightning_migrate"
SHIM_BUILDERS = {f"{module}{_FROM_ARGPARSE}": namespace for namespace, module in SHIM_MODULES.items()}


def shim_callee(located: Located, call: ast.Call, scope: Scope) -> tuple[int, str] | None:
    """If ``call`` builds the runtime shim's Trainer (``shim.Trainer(...)``, ``partial(shim.Trainer, ...)``,
    ``shim.Trainer.from_argparse_args(args, ...)``, ``shim.from_argparse_args(Trainer, args, ...)``): how
    many leading arguments precede its flags, and the namespace of the shim that builds it."""
    names = _named(located, call.func, scope)
    if not names:
        return None
    builder = next((SHIM_BUILDERS[n] for n in sorted(names) if n in SHIM_BUILDERS), None)
    if builder is not None:
        return min(2, len(call.args)), builder
    found = trainer_callee(located, call, scope, frozenset(SHIM_TRAINERS))
    if found is None:
        return None
    return found[0], SHIM_TRAINERS[min(found[1])]


def _named(located: Located, node: ast.expr, scope: Scope) -> frozenset[str]:
    """What ``node`` names, a sibling module's `.trainer.X` as `trainer.X`."""
    return frozenset(name.lstrip(".") for name in located.qualified(node, scope))


def locate(
    tree: ast.Module,
    text: Text,
    run: RunSubclasses = NO_SUBCLASSES,
    starred: tuple[tuple[str, str], ...] = (),
) -> Located:
    """Scopes, bindings and Trainer calls of ``tree``, parsed from ``text``; ``run``: the Trainer subclasses
    the other files of the run define; ``starred``: the names (and the dotted names they are) the file's star
    imports of the project's modules bind (``run.starred_in``), each bound at module level beside the
    file's own bindings of it."""
    walker = _Walker(text)
    walker.run(tree)
    if starred and walker.stars:
        for name, dotted in starred:
            walker.scopes[0].bind(name, Binding(qualified=dotted))
    located = Located(
        tree,
        [],
        walker.scopes,
        walker.indents,
        walker.import_froms,
        walker.guarded,
        walker.names,
        walker.class_names,
        [call for call, _ in walker.calls],
        tried=walker.tried,
        scoped_calls=walker.calls,
    )
    module = walker.scopes[0]
    known = TRAINER_NAMES | ECOSYSTEM | run.passing
    located.consuming = dict(run.consuming)
    located.swallowing = {name: frozenset(own) for name, own in run.swallowing}
    located.trainers = known
    if walker.classes:  # the file's own Trainer subclasses
        qualified = lambda base: _named(located, base, module)  # noqa: E731
        passing, consuming, swallowing = subclasses(
            walker.classes, qualified, known, dict(run.consuming), located.swallowing
        )
        located.consuming.update(consuming)
        located.swallowing.update(swallowing)
        located.trainers = known | passing
    every = located.trainers | frozenset(located.consuming)
    raising: set[int] | None = None  # (worked out for a file with a Trainer call only)
    inits = super_inits(located, walker.classes, module) if walker.classes else {}
    # (the runtime shim is looked for where its package is named; NFKC may hide the name in other text)
    shims = SHIM_PACKAGE in text.source or not text.source.isascii()
    for call, scope in walker.calls:
        if id(call) in inits:
            skip, owner, forwarded, why = inits[id(call)]
            if raising is None:
                raising = expected_raises(located, walker.withs, walker.calls)
            indent = walker.indents[id(call)]
            located.calls.append(
                TrainerCall(call, skip, scope, indent, why, id(call) in raising, owner, forwarded)
            )
            continue
        found = trainer_callee(located, call, scope, every)
        if found is not None:
            skip, built = found
            consumer = next((n for n in sorted(built) if n in located.consuming), None)
            why = located.consuming[consumer] if consumer is not None else ""
            swallowed = located.swallowing.get(consumer, frozenset()) if consumer is not None else frozenset()
            if raising is None:
                raising = expected_raises(located, walker.withs, walker.calls)
            indent = walker.indents[id(call)]
            located.calls.append(
                TrainerCall(call, skip, scope, indent, why, id(call) in raising, swallowed=swallowed)
            )
        elif shims:
            shim = shim_callee(located, call, scope)
            if shim is not None:
                indent = walker.indents[id(call)]
                located.shim_calls.append(TrainerCall(call, shim[0], scope, indent, shim=shim[1]))
        if isinstance(call.func, ast.Attribute) and call.func.attr in REMOVED_METHODS:
            named = _named(located, call.func.value, scope) & every
            if named:
                located.methods.append((call, scope, named))
    return located


def super_inits(
    located: Located, classes: list[ast.ClassDef], module: Scope
) -> dict[int, tuple[int, str, frozenset[str], str]]:
    """The calls by which the ``__init__`` of a module-level class whose first base is a Trainer that hands
    its flags to Lightning (``located.trainers``: Lightning's own, a subclass that passes them through) calls
    that base's ``__init__``: the flags it writes there reach Lightning as a Trainer call's do. By id():
    the leading arguments that are not flags (``self`` of ``Base.__init__(self, ...)``), the class's name,
    the ``*args``/``**kwargs`` parameters of its ``__init__`` it hands on, and why it is reported and not
    rewritten, where it is not (it hands on ``**kwargs``: its callers may pass the same flags). A call that
    writes no keyword of its own is left out (its callers' calls are judged)."""
    found: dict[int, tuple[int, str, frozenset[str], str]] = {}
    for node in classes:
        base = _named(located, node.bases[0], module)
        if not base & located.trainers:
            continue
        init = next(
            (
                s
                for s in node.body
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"
            ),
            None,
        )
        if init is None:
            continue
        params = init.args
        own = [a.arg for a in (*params.posonlyargs, *params.args)]
        forwarded = frozenset(a.arg for a in (params.vararg, params.kwarg) if a is not None)
        for call in ast.walk(init):
            if not isinstance(call, ast.Call):
                continue
            skip = super_init_owner(call, node.name, own[0] if own else "")
            if skip is None:
                continue
            if skip and not _named(located, call.func.value, module) & base:  # type: ignore[attr-defined]
                continue  # (`Mixin.__init__(self, ...)`: not the Trainer's)
            written = [k for k in call.keywords if k.arg is not None]
            if not written:
                continue
            hands_on = any(k.arg is None and _is_one_of(k.value, forwarded) for k in call.keywords)
            why = (
                f"its `__init__` hands `**{params.kwarg.arg if params.kwarg else ''}` (its callers' flags) to"
                " Lightning beside them"
                if hands_on
                else ""
            )
            found[id(call)] = (skip, node.name, forwarded, why)
    return found


def _is_one_of(node: ast.expr, names: frozenset[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names


# What tests expect to raise: `pytest.raises` (by qualified name) and unittest's methods (on any object).
RAISES = frozenset({"pytest.raises"})
RAISES_METHODS = frozenset({"assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})


def expected_raises(
    located: Located, withs: list[tuple[ast.With | ast.AsyncWith, Scope]], calls: list[tuple[ast.Call, Scope]]
) -> set[int]:
    """``id()`` of the calls the code expects to raise: those that run in the body of a ``with`` one of whose
    context managers expects a raise (not those of a function defined there, which runs when called), and
    those in the callable handed to one (``pytest.raises(E, lambda: ...)``, ``assertRaises(E, f, ...)``)."""
    found: set[int] = set()
    for statement, scope in withs:
        if any(_expects(located, item.context_expr, scope) for item in statement.items):
            found.update(id(call) for call in _run_calls(statement.body))
    for call, scope in calls:
        if _expects(located, call, scope):
            handed = [node for arg in call.args[1:] for node in ast.walk(arg)]
            found.update(id(node) for node in handed if isinstance(node, ast.Call))
    return found


def _expects(located: Located, node: ast.expr, scope: Scope) -> bool:
    """Is ``node`` a call that expects a raise: ``pytest.raises(...)``, ``self.assertRaises(...)``?"""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in RAISES_METHODS:
        return True
    named = isinstance(func, ast.Name) or (isinstance(func, ast.Attribute) and func.attr == "raises")
    return named and not located.qualified(func, scope).isdisjoint(RAISES)  # (`from pytest import raises`)


def _run_calls(statements: list[ast.stmt]) -> list[ast.Call]:
    """The calls ``statements`` make as they run, without those of the functions they define."""
    found: list[ast.Call] = []
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(node.decorator_list)  # (the decorators run; the body does not)
            continue
        if isinstance(node, ast.Call):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


_GUARDS = (ast.If, ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_TYPE_PARAMETERS = tuple(getattr(ast, n) for n in ("TypeVar", "ParamSpec", "TypeVarTuple") if hasattr(ast, n))
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Walker:
    """One pass over the tree: scopes, bindings, reads, and the calls and dicts with their statement's
    indentation."""

    def __init__(self, text: Text) -> None:
        self.text = text
        self.import_froms: list[ast.ImportFrom] = []
        self.guarded: set[int] = set()
        self.classes: list[ast.ClassDef] = []  # the module-level classes with bases
        self.guards = 0  # how many `if`/`try` statements the walk is in
        self.trying: ast.Try | None = None  # the one guard is a `try` that catches ImportError
        self.tried: dict[int, ast.Try] = {}
        self.names: set[str] = set()  # every name the code reads, writes or deletes
        self.class_names: list[ast.Name] = []
        self.scopes: list[Scope] = []
        self.calls: list[tuple[ast.Call, Scope]] = []
        self.indents: dict[int, str] = {}
        self.withs: list[tuple[ast.With | ast.AsyncWith, Scope]] = []  # every `with` statement, and its scope
        self.stars = 0  # how many star imports the file has (`from x import *`)

    def new_scope(self, kind: str, parent: Scope | None) -> Scope:
        scope = Scope(kind, parent)
        self.scopes.append(scope)
        return scope

    def indent_of(self, statement: ast.stmt) -> str:
        line = self.text.line(statement.lineno)
        return line[: len(line) - len(line.lstrip(" \t\f"))]

    def run(self, tree: ast.Module) -> None:
        module = self.new_scope("module", None)
        self.block(tree.body, module)

    def block(self, statements: list[ast.stmt], scope: Scope) -> None:
        for statement in statements:
            self.statement(statement, scope)

    def statement(self, node: ast.stmt, scope: Scope) -> None:
        handler = _STATEMENTS.get(type(node), _Walker.compound)
        handler(self, node, scope, self.indent_of(node))

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, indent: str) -> None:
        for decorator in node.decorator_list:
            self.expr(decorator, scope, indent)
        self.arguments_outside(node.args, scope, indent)
        if node.returns is not None:
            self.expr(node.returns, scope, indent)
        scope.bind(node.name, Binding())
        inner = self.new_scope("function", scope)
        self.parameters(node.args, inner, node)
        self.block(node.body, inner)

    def class_(self, node: ast.ClassDef, scope: Scope, indent: str) -> None:
        for child in (*node.decorator_list, *node.bases, *(k.value for k in node.keywords)):
            self.expr(child, scope, indent)
        if scope.parent is None and node.bases:  # a module-level class may be a Trainer subclass
            self.classes.append(node)
            scope.bind(node.name, Binding(qualified=f"{LOCAL}.{node.name}"))
        else:
            scope.bind(node.name, Binding())
        self.block(node.body, self.new_scope("class", scope))

    def declare(self, node: ast.Global | ast.Nonlocal, scope: Scope, indent: str) -> None:
        declared = scope.declared_global if isinstance(node, ast.Global) else scope.declared_nonlocal
        declared.update(node.names)

    def assign(self, node: ast.Assign, scope: Scope, indent: str) -> None:
        self.expr(node.value, scope, indent)
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.seen(target)
                scope.bind(target.id, Binding(node.value, len(node.targets) == 1, scope=scope))
            else:
                self.expr(target, scope, indent)

    def annotated(self, node: ast.AnnAssign, scope: Scope, indent: str) -> None:
        if node.value is not None:
            self.expr(node.value, scope, indent)
        self.expr(node.annotation, scope, indent)
        if isinstance(node.target, ast.Name):
            self.seen(node.target)
            scope.bind(node.target.id, Binding(node.value, True, scope=scope if node.value else None))
        else:
            self.expr(node.target, scope, indent)

    def compound(self, node: ast.stmt, scope: Scope, indent: str) -> None:
        """Any other statement: its expressions, and the statements, handlers and cases it holds."""
        guard = isinstance(node, _GUARDS)
        trying = self.trying
        self.trying = (
            node if isinstance(node, ast.Try) and not self.guards and catches_import_error(node) else None
        )
        if isinstance(node, (ast.With, ast.AsyncWith)):
            self.withs.append((node, scope))
        self.guards += guard
        self._children(node, scope, indent)
        self.guards -= guard
        self.trying = trying

    def _children(self, node: ast.stmt, scope: Scope, indent: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.statement(child, scope)
            elif isinstance(child, ast.expr):
                self.expr(child, scope, indent)
            elif isinstance(child, ast.ExceptHandler):
                if child.type is not None:
                    self.expr(child.type, scope, indent)
                if child.name:
                    scope.bind(child.name, Binding())
                self.block(child.body, scope)
            elif isinstance(child, ast.match_case):
                self.pattern(child.pattern, scope, indent)
                if child.guard is not None:
                    self.expr(child.guard, scope, indent)
                self.block(child.body, scope)
            elif isinstance(child, ast.withitem):
                self.expr(child.context_expr, scope, indent)
                if child.optional_vars is not None:
                    self.expr(child.optional_vars, scope, indent)
            else:  # type parameters (3.12)
                for grandchild in ast.walk(child):
                    if isinstance(grandchild, ast.expr):
                        self.expr(grandchild, scope, indent, shallow=True)
                    elif isinstance(grandchild, _TYPE_PARAMETERS):
                        scope.bind(grandchild.name, Binding())

    def pattern(self, node: ast.AST, scope: Scope, indent: str) -> None:
        for child in ast.walk(node):
            name = getattr(child, "name", None) or getattr(child, "rest", None)
            if isinstance(child, (ast.MatchAs, ast.MatchStar, ast.MatchMapping)) and name:
                scope.bind(name, Binding())
            elif isinstance(child, ast.expr):
                self.expr(child, scope, indent, shallow=True)

    def imports(self, node: ast.Import | ast.ImportFrom, scope: Scope, indent: str = "") -> None:
        if isinstance(node, ast.ImportFrom):
            self.import_froms.append(node)
            if self.guards:
                self.guarded.add(id(node))
            if self.guards == 1 and self.trying is not None and any(s is node for s in self.trying.body):
                self.tried[id(node)] = self.trying
        for alias in node.names:
            if alias.name == "*":
                self.stars += 1
                continue
            if isinstance(node, ast.Import):
                local = alias.asname or alias.name.split(".")[0]
                real = alias.name if alias.asname else local
            else:
                local = alias.asname or alias.name
                module = "." * node.level + (node.module or "")
                real = (
                    f"{module}.{alias.name}" if module and not module.endswith(".") else module + alias.name
                )
            scope.bind(local, Binding(qualified=real))

    def arguments_outside(self, args: ast.arguments, scope: Scope, indent: str) -> None:
        """Defaults and annotations are evaluated where the function is defined."""
        for default in (*args.defaults, *(d for d in args.kw_defaults if d is not None)):
            self.expr(default, scope, indent)
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None and arg.annotation is not None:
                self.expr(arg.annotation, scope, indent)

    def parameters(
        self,
        args: ast.arguments,
        inner: Scope,
        function: ast.FunctionDef | ast.AsyncFunctionDef | None = None,
    ) -> None:
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(
            args.defaults
        )
        for arg, default in zip([*positional, *args.kwonlyargs], [*defaults, *args.kw_defaults]):
            inner.bind(arg.arg, Binding(parameter=arg, default=default, function=function))
        for rest in (args.vararg, args.kwarg):
            if rest is not None:
                inner.bind(rest.arg, Binding())

    def seen(self, name: ast.Name) -> None:
        self.names.add(name.id)
        if name.id in CLASS_NAMES:
            self.class_names.append(name)

    def expr(self, node: ast.expr, scope: Scope, indent: str, shallow: bool = False) -> None:
        stack: list[ast.AST] = [node]
        while stack:
            node = stack.pop()  # type: ignore[assignment]
            if isinstance(node, ast.Name):
                self.seen(node)
                if isinstance(node.ctx, ast.Store):
                    scope.bind(node.id, Binding())
                else:  # a load, or a `del` (which also ends a dict's sole use)
                    scope.reads[node.id] += 1
                continue
            if isinstance(node, ast.Call):
                self.calls.append((node, scope))
                self.indents[id(node)] = indent
            elif isinstance(node, (ast.Dict, ast.IfExp)):
                self.indents[id(node)] = indent
            elif isinstance(node, ast.Lambda):
                self.arguments_outside(node.args, scope, indent)
                inner = self.new_scope("function", scope)
                self.parameters(node.args, inner)
                self.expr(node.body, inner, indent)
                continue
            elif isinstance(node, _COMPREHENSIONS):
                self.comprehension(node, scope, indent)
                continue
            elif isinstance(node, ast.NamedExpr):
                target = scope
                while target.kind == "comprehension" and target.parent is not None:
                    target = target.parent  # a walrus in a comprehension binds in the enclosing scope
                target.bind(node.target.id, Binding())
                stack.append(node.value)
                continue
            if not shallow:
                for name in _CHILD_FIELDS.get(type(node)) or _child_fields(type(node)):
                    child = getattr(node, name, None)
                    if isinstance(child, list):
                        stack.extend(child)
                    elif child is not None:
                        stack.append(child)

    def comprehension(self, node: ast.expr, scope: Scope, indent: str) -> None:
        generators: list[ast.comprehension] = node.generators  # type: ignore[attr-defined]
        self.expr(generators[0].iter, scope, indent)  # the first iterable is evaluated outside
        inner = self.new_scope("comprehension", scope)
        for index, generator in enumerate(generators):
            if index:
                self.expr(generator.iter, inner, indent)
            self.expr(generator.target, inner, indent)
            for condition in generator.ifs:
                self.expr(condition, inner, indent)
        if isinstance(node, ast.DictComp):
            self.expr(node.key, inner, indent)
            self.expr(node.value, inner, indent)
        else:
            self.expr(node.elt, inner, indent)  # type: ignore[attr-defined]


# The fields of each node type that may hold nodes (``ast.iter_child_nodes`` without its per-node cost).
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def catches_import_error(node: ast.Try) -> bool:
    """Does a handler of ``node`` catch an ImportError (``except ImportError``, a tuple with it, a base
    class of it, a bare ``except:``)?"""
    for handler in node.handlers:
        caught = handler.type
        names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        if caught is None or any(isinstance(n, ast.Name) and n.id in _IMPORT_ERRORS for n in names):
            return True
    return False


def _child_fields(kind: type) -> tuple[str, ...]:
    leaves = {"ctx", "op", "id", "arg", "attr", "kind", "type_comment", "conversion", "is_async"}
    fields = () if kind is ast.Constant else tuple(f for f in getattr(kind, "_fields", ()) if f not in leaves)
    _CHILD_FIELDS[kind] = fields
    return fields


_STATEMENTS: dict[type, Callable[..., None]] = {
    ast.FunctionDef: _Walker.function,
    ast.AsyncFunctionDef: _Walker.function,
    ast.ClassDef: _Walker.class_,
    ast.Import: _Walker.imports,
    ast.ImportFrom: _Walker.imports,
    ast.Global: _Walker.declare,
    ast.Nonlocal: _Walker.declare,
    ast.Assign: _Walker.assign,
    ast.AnnAssign: _Walker.annotated,
}
