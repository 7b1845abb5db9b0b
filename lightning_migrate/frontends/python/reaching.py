"""The dict display a ``Trainer(**name)`` call unpacks where ``name`` is not bound once and read once: a
function that builds one dict per Trainer under the same name (``trainer_params = {...}`` before the training
Trainer, another before the testing one), or that also sets keys of it the hardware model does not read
(``trainer_kwargs["logger"] = logger``).

The binding that reaches the call is proved by the shape of the code, not guessed: every binding of the name
is a plain ``name = ...`` statement of the same block of the function (no loop variable, ``with ... as``,
augmented assignment, ``del`` or nested function binds or reads it); the call is in a statement of that block
after one of them, so the last such binding before it is the one it sees, however often the block runs. That
binding is a dict display or ``dict(...)`` of literal keys, each of the model or one the target takes as it is
(one it lacks, ``progress_bar_refresh_rate``, leaves the call reported, as a dict shared elsewhere). What
else reads that binding's dict (before or after the call) only sets, reads or deletes keys outside the
hardware model that the target takes as they are (``logger``, ``callbacks``, ``max_epochs``: not ``gpus``,
not ``progress_bar_refresh_rate``), so the rewrite of the display changes nothing they see, and nothing they
add reaches the model. Anything else (the dict handed to a function, printed, updated, read in a loop before
its first binding) leaves the call as it was: reported as a run-time value.
"""

from __future__ import annotations

import ast

from lightning_migrate.frontends.python.unpacked_keys import NESTED
from lightning_migrate.plan import gone
from lightning_migrate.plan.locate import Located, Scope
from lightning_migrate.semantics.model import Version
from lightning_migrate.semantics.signature import MODELLED

_BLOCKS = ("body", "orelse", "finalbody")


class Parents:
    """The parent of every node of a tree, found once (on first use)."""

    def __init__(self, tree: ast.AST) -> None:
        self._tree = tree
        self._of: dict[int, ast.AST] | None = None

    def of(self, node: ast.AST) -> ast.AST | None:
        if self._of is None:
            self._of = {id(c): n for n in ast.walk(self._tree) for c in ast.iter_child_nodes(n)}
        return self._of.get(id(node))


def reaching_dict(
    located: Located, name: ast.Name, scope: Scope, call: ast.Call, parents: Parents, target: Version
) -> tuple[ast.expr, Scope] | None:
    """The value (and the scope it is evaluated in) of the one binding of ``name`` that reaches ``call``, a
    call of the function ``scope`` is that unpacks ``**name``, where nothing else that sees that binding
    reads a key of the hardware model or a key the target does not take (module docstring); else None."""
    where = scope.lookup(name.id)
    if where is not scope or scope.kind != "function":
        return None
    bindings = where.bindings.get(name.id, [])
    if not bindings or any(b.value is None or not b.single or b.scope is not scope for b in bindings):
        return None
    function = function_of(call, parents)
    if function is None:
        return None
    statements: list[ast.stmt] = []
    for binding in bindings:
        statement = parents.of(binding.value)  # type: ignore[arg-type]
        if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or not _targets_only(statement, name.id):
            return None
        statements.append(statement)
    block = _block_of(statements[0], parents)
    if block is None or any(_block_of(s, parents) is not block for s in statements):
        return None
    indexes = sorted(next(i for i, s in enumerate(block) if s is statement) for statement in statements)
    at = _index_in(call, block, parents)
    if at is None or at in indexes:
        return None
    before = [i for i in indexes if i < at]
    if not before:
        return None
    start = before[-1]
    end = next((i for i in indexes if i > start), len(block))
    if not _uses_allowed(function, name.id, call, block, parents, indexes, (start, end), target):
        return None
    chosen = block[start]
    assert isinstance(chosen, (ast.Assign, ast.AnnAssign))
    if not _plain_display(chosen.value, target):
        return None
    assert chosen.value is not None
    return chosen.value, scope


def function_of(node: ast.AST, parents: Parents) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function whose own body (not a lambda's or a comprehension's) holds ``node``."""
    current = parents.of(node)
    while current is not None:
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return current
        if isinstance(current, (ast.Lambda, ast.ClassDef, *_COMPREHENSIONS)):
            return None
        current = parents.of(current)
    return None


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _targets_only(statement: ast.Assign | ast.AnnAssign, name: str) -> bool:
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return len(targets) == 1 and isinstance(targets[0], ast.Name) and targets[0].id == name


def _block_of(statement: ast.stmt, parents: Parents) -> list[ast.stmt] | None:
    """The statement list that holds ``statement`` directly."""
    parent = parents.of(statement)
    if parent is None:
        return None
    for field in _BLOCKS:
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(s is statement for s in block):
            return block
    return None


def _index_in(node: ast.AST, block: list[ast.stmt], parents: Parents) -> int | None:
    """The index in ``block`` of the statement that holds ``node`` (None: none of them does)."""
    current: ast.AST | None = node
    while current is not None:
        for i, statement in enumerate(block):
            if statement is current:
                return i
        current = parents.of(current)
    return None


def _uses_allowed(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    call: ast.Call,
    block: list[ast.stmt],
    parents: Parents,
    bindings: list[int],
    region: tuple[int, int],
    target: Version,
) -> bool:
    """Whether every use of ``name`` in ``function`` leaves the binding that starts ``region`` (the indexes
    of ``block`` it reaches) to ``call`` alone, but for keys outside the model (module docstring)."""
    unpacked = next(k.value for k in call.keywords if k.arg is None)
    for node in _names(function, name):
        if isinstance(node, ast.Nonlocal) or isinstance(node.ctx, ast.Del):
            return False
        assert isinstance(node, ast.Name)
        if isinstance(node.ctx, ast.Store):
            if not any(_index_in(node, block, parents) == i and _is_target(node, block[i]) for i in bindings):
                return False
            continue
        at = _index_in(node, block, parents)
        if at is None or at in bindings or at < bindings[0]:
            return False  # (read outside the block, by a binding, or before the first: a loop's last dict)
        if region[0] < at < region[1] and node is not unpacked and not _key_use(node, parents, target):
            return False
    return True


def _names(function: ast.AST, name: str) -> list[ast.Name | ast.Nonlocal]:
    """Every ``name`` of ``function``'s own code, and of any function, lambda or class in it (where one
    appears, the caller gives up: a nested scope may see the binding at any time); with ``nonlocal``s."""
    found: list[ast.Name | ast.Nonlocal] = []
    for node in ast.walk(function):
        if node is not function and isinstance(node, NESTED):
            if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node)):
                found.append(ast.Nonlocal(names=[name]))  # (stands for a use the caller refuses)
        elif isinstance(node, ast.Name) and node.id == name:
            found.append(node)
        elif isinstance(node, (ast.Nonlocal, ast.Global)) and name in node.names:
            found.append(ast.Nonlocal(names=[name]))
    return found


def _is_target(node: ast.Name, statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Assign):
        return any(t is node for t in statement.targets)
    return isinstance(statement, ast.AnnAssign) and statement.target is node


def _key_use(node: ast.Name, parents: Parents, target: Version) -> bool:
    """Is ``node`` read only to set, read or delete one literal key outside the model that ``target`` takes
    as it is (``name["logger"] = ...``, ``name.get("max_epochs")``)?"""
    parent = parents.of(node)
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return _plain_key(parent.slice, target)
    if isinstance(parent, ast.Attribute) and parent.attr == "get":
        used = parents.of(parent)
        called = isinstance(used, ast.Call) and used.func is parent and bool(used.args)
        return called and _plain_key(used.args[0], target)  # type: ignore[union-attr]
    return False


def _plain_display(node: ast.expr | None, target: Version) -> bool:
    """Is ``node`` a dict display or ``dict(...)`` of literal keys, each of the model or one ``target`` takes
    as it is (a keyword it lacks, ``progress_bar_refresh_rate``, is left to be reported with the dict)?"""
    if isinstance(node, ast.Dict):
        keys: list[ast.expr | None] = list(node.keys)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        if node.args:
            return False
        keys = [None if k.arg is None else ast.Constant(k.arg) for k in node.keywords]
    else:
        return False
    return all(k is not None and (_plain_key(k, target) or _modelled(k)) for k in keys)


def _modelled(key: ast.expr) -> bool:
    return isinstance(key, ast.Constant) and key.value in MODELLED


def _plain_key(key: ast.expr, target: Version) -> bool:
    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        return False
    word = key.value
    return word not in MODELLED and not gone.concerns(word, target) and gone.ancient(word) is None
