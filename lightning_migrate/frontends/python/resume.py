"""Where `Trainer(resume_from_checkpoint=X)` can become `trainer.fit(..., ckpt_path=X)`, or go.

1.4-1.6 read the path in `fit` alone (1.4.9 `Trainer.fit` calls `checkpoint_connector.resume_start()`; 1.5.10
and 1.6.5 `_fit_impl`: `ckpt_path = ckpt_path or self.resume_from_checkpoint`), and only in the first `fit`
that completes (`resume_end` then clears it). So the move keeps what the code did where the Trainer is bound
to a name that one function uses only through attributes, with exactly one `.fit(` call on it, after the
Trainer is built and in no loop the Trainer is not built in, and no `.tune(` (whose search runs `fit`); and
where ``X`` gives the same value when `fit` runs: a literal, or a name (or its attributes and constant
subscripts) bound once, or a local of the function bound only before the Trainer is built. A Trainer that
never runs `fit` never read the path (``never_fits``): the keyword goes.
"""

from __future__ import annotations

import ast

from lightning_migrate.plan.locate import Located, Scope

_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_OWNERS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module, ast.ClassDef)
_MAX_POSITIONAL = 4  # fit(model, train_dataloaders, val_dataloaders, datamodule): 1.5's fifth is deprecated


def sole_fit(call: ast.Call, path: ast.expr, located: Located, scope: Scope) -> ast.Call | None:
    """The one `.fit(` call the Trainer ``call`` builds can take ``path`` (its `resume_from_checkpoint=`)
    as `ckpt_path=`, or None where the move may change what the code does."""
    found = _trainer_uses(call, located)
    if found is None:
        return None
    uses, owner, parents = found
    if not _stable(path, located, scope, call, owner):
        return None
    if any(attribute.attr == "tune" for attribute in uses):
        return None
    fits = [parents.get(id(attribute)) for attribute in uses if attribute.attr == "fit"]
    if len(fits) != 1 or not isinstance(fits[0], ast.Call):
        return None
    fit = fits[0]
    if (fit.lineno, fit.col_offset) < (call.lineno, call.col_offset) or _owner(fit, parents) is not owner:
        return None
    if _loops(fit, parents, owner) - _loops(call, parents, owner):
        return None  # a second run of `fit` did not resume
    if any(isinstance(a, ast.Starred) for a in fit.args) or len(fit.args) > _MAX_POSITIONAL:
        return None
    if any(k.arg in (None, "ckpt_path") for k in fit.keywords):
        return None
    return fit


# The Trainer attributes that run `fit` (the tuner's searches do) or reach the path it resumes from: a Trainer
# used through none of them, nor through a private attribute, never read `resume_from_checkpoint=`.
_FITS = frozenset({"fit", "tune", "tuner", "fit_loop", "resume_from_checkpoint", "checkpoint_connector"})


def never_fits(call: ast.Call, path: ast.expr, located: Located, scope: Scope) -> bool:
    """Does the Trainer ``call`` builds never run `fit`, the only method that read `resume_from_checkpoint=`
    (1.4-1.6: `fit` alone, see above; 1.7-1.9: `_fit_impl`'s `resume_from_checkpoint_fit_path`; `validate`,
    `test` and `predict` take their own `ckpt_path=`)? Then the keyword did nothing and goes: the Trainer is
    bound to a local name of a function that uses it only through attributes, none of which runs `fit`
    (so it never leaves the function), and ``path`` is
    evaluated without side effects (a literal, or a name with attributes and constant subscripts)."""
    found = _trainer_uses(call, located)
    if found is None or not _pure(path):
        return False
    uses, owner, _ = found
    if not _stable(path, located, scope, call, owner):
        return False  # (a name bound after the call raised there: dropping it would hide that)
    if not isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False  # a module's or a class's Trainer may be fit by the code that imports it
    return not any(a.attr in _FITS or a.attr.startswith("_") for a in uses)


def _trainer_uses(
    call: ast.Call, located: Located
) -> tuple[list[ast.Attribute], ast.AST, dict[int, ast.AST]] | None:
    """The attributes through which the function that builds the Trainer (``call``, assigned to a name)
    uses it, that function and the tree's parents; None where the Trainer is not bound to a name alone, or
    the name is rebound or used whole (passed to code that may fit it)."""
    parents = _parents(located.tree)
    statement = parents.get(id(call))
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return None
    target = statement.targets[0]
    if not isinstance(target, ast.Name):
        return None
    owner = _owner(statement, parents)
    uses = []
    for node in ast.walk(owner):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and target.id in node.names:
            return None
        if not isinstance(node, ast.Name) or node.id != target.id or node is target:
            continue
        attribute = parents.get(id(node))
        if isinstance(node.ctx, ast.Store) or not isinstance(attribute, ast.Attribute):
            return None  # rebound, or passed whole to code that may fit it
        uses.append(attribute)
    return uses, owner, parents


def _pure(path: ast.expr) -> bool:
    node = path
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
            return False
        node = node.value
    return isinstance(node, (ast.Constant, ast.Name))


def _stable(path: ast.expr, located: Located, scope: Scope, call: ast.Call, owner: ast.AST) -> bool:
    """Does ``path`` give the same value when `fit` runs as when the Trainer was built? A literal, or a name
    (or its attributes and constant subscripts) bound once, a parameter, or a local of the function whose
    every binding comes before the Trainer's call (``_bound_before``)."""
    node = path
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
            return False
        node = node.value
    if isinstance(node, ast.Constant):
        return node is path
    if not isinstance(node, ast.Name):
        return False
    if _unbound_or_shared(node.id, owner):
        return False
    if located.parameter(node, scope) is not None:
        return True
    if scope.lookup(node.id) is scope:  # a local: bound before the Trainer is built (else it raised there)
        return _bound_before(node.id, call, owner)
    return located.bound(node, scope) is not None


def _unbound_or_shared(name: str, owner: ast.AST) -> bool:
    """Is ``name`` deleted in ``owner`` (`fit` would raise NameError), or declared ``global``/``nonlocal``
    there (code the function calls may bind it again)?"""
    for node in ast.walk(owner):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Del):
            return True
    return False


def _bound_before(name: str, call: ast.Call, owner: ast.AST) -> bool:
    """Is every binding of the local ``name`` in ``owner`` (``r = None``, ``if ...: r = ckpts[-1]``) written
    before ``call``? Then no binding runs between the
    Trainer's call and a `fit` after it outside any loop the call is not in (``sole_fit`` checks that)."""
    start = (call.lineno, call.col_offset)
    found = False
    for node in ast.walk(owner):
        bound = (isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)) or (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler))
            and node.name == name
        )
        if isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) == name:
            bound = True
        if not bound:
            continue
        line = getattr(node, "lineno", None)
        if line is None or (line, getattr(node, "col_offset", 0)) >= start:
            return False
        found = True
    return found


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _owner(node: ast.AST, parents: dict[int, ast.AST]) -> ast.AST:
    """The function (or module, class body) whose code runs ``node``."""
    parent = parents.get(id(node))
    while parent is not None and not isinstance(parent, _OWNERS):
        parent = parents.get(id(parent))
    assert parent is not None
    return parent


def _loops(node: ast.AST, parents: dict[int, ast.AST], owner: ast.AST) -> set[int]:
    """The loops of ``owner`` that run ``node``."""
    found = set()
    parent = parents.get(id(node))
    while parent is not None and parent is not owner:
        if isinstance(parent, _LOOPS):
            found.add(id(parent))
        parent = parents.get(id(parent))
    return found
