"""Where `Trainer(resume_from_checkpoint=X)` can become `trainer.fit(..., ckpt_path=X)`.

1.4-1.6 read the path in `fit` alone (1.4.9 `Trainer.fit` calls `checkpoint_connector.resume_start()`; 1.5.10
and 1.6.5 `_fit_impl`: `ckpt_path = ckpt_path or self.resume_from_checkpoint`), and only in the first `fit`
that completes (`resume_end` then clears it). So the move keeps what the code did where the Trainer is bound
to a name that one function uses only through attributes, with exactly one `.fit(` call on it, after the
Trainer is built and in no loop the Trainer is not built in, and no `.tune(` (whose search runs `fit`); and
where ``X`` gives the same value when `fit` runs: a literal, or a name (or its attributes and constant
subscripts) bound once.
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
    if not _stable(path, located, scope):
        return None
    parents = _parents(located.tree)
    statement = parents.get(id(call))
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return None
    target = statement.targets[0]
    if not isinstance(target, ast.Name):
        return None
    owner = _owner(statement, parents)
    fits = []
    for node in ast.walk(owner):
        if not isinstance(node, ast.Name) or node.id != target.id or node is target:
            continue
        attribute = parents.get(id(node))
        if isinstance(node.ctx, ast.Store) or not isinstance(attribute, ast.Attribute):
            return None  # rebound, or passed whole to code that may fit it
        if attribute.attr == "tune":
            return None
        if attribute.attr == "fit":
            fits.append(parents.get(id(attribute)))
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


def _stable(path: ast.expr, located: Located, scope: Scope) -> bool:
    """Does ``path`` give the same value when `fit` runs as when the Trainer was built?"""
    node = path
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
            return False
        node = node.value
    if isinstance(node, ast.Constant):
        return node is path
    if not isinstance(node, ast.Name):
        return False
    return located.bound(node, scope) is not None or located.parameter(node, scope) is not None


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
