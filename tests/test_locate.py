"""The ``ast`` locator sees exactly the Trainer calls, and resolves exactly the names, that the LibCST scope
analysis the codemod used before did: run side by side on every fixture and example and on generated files
that mix imports, aliases, shadowing, nested scopes, ``partial``, ``from_argparse_args`` and names bound once
or more."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameSource, ScopeProvider

from lightning_migrate.files.text import Text
from lightning_migrate.plan.locate import PARTIAL_NAMES, TRAINER_NAMES, locate, trainer_skip

ROOT = Path(__file__).parent.parent
FILES = sorted(ROOT.glob("fixtures/**/*.py")) + sorted(ROOT.glob("examples/**/*.py"))

# What is seen of one Trainer call: where it starts (line, character column), how many leading arguments
# are not flags, and for each keyword whose value is a bare name: where the expression it is bound to starts,
# when bound once by an assignment (None otherwise), and the same when it must also be the name's only use.
Seen = tuple[int, int, int, tuple[tuple[str, object, object], ...]]


class _Reference(cst.CSTVisitor):
    """The codemod's locator before issue 10: LibCST's scopes and qualified names."""

    METADATA_DEPENDENCIES = (PositionProvider, ScopeProvider)

    def __init__(self, module: cst.Module) -> None:
        super().__init__()
        self.assigned = _assignments(module)
        self.seen: list[Seen] = []

    def _qualified(self, node: cst.CSTNode) -> set[str]:
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return set()
        names = scope.get_qualified_names_for(node)
        return {q.name for q in names if q.source == QualifiedNameSource.IMPORT}

    def _skip(self, call: cst.Call) -> int | None:
        names = self._qualified(call.func)
        if names & TRAINER_NAMES:
            return 0
        if names & PARTIAL_NAMES and call.args and self._qualified(call.args[0].value) & TRAINER_NAMES:
            return 1
        if any(
            n.endswith(".Trainer.from_argparse_args") and n[: -len(".from_argparse_args")] in TRAINER_NAMES
            for n in names
        ):
            return 1
        return None

    def _binding(self, name: cst.Name, sole_use: bool) -> object:
        scope = self.get_metadata(ScopeProvider, name, None)
        assignments = list(scope[name.value]) if scope is not None else []
        if len(assignments) != 1 or (sole_use and len(assignments[0].references) != 1):
            return None
        bound = self.assigned.get(id(getattr(assignments[0], "node", None)))
        if bound is None or (sole_use and not bound[1]):
            return None
        start = self.get_metadata(PositionProvider, bound[0]).start
        return (start.line, start.column)

    def visit_Call(self, node: cst.Call) -> None:
        skip = self._skip(node)
        if skip is None:
            return
        names = tuple(
            (arg.keyword.value, self._binding(arg.value, False), self._binding(arg.value, True))
            for arg in node.args
            if arg.keyword is not None
            and isinstance(arg.value, cst.Name)
            and arg.value.value not in ("True", "False", "None")
        )
        start = self.get_metadata(PositionProvider, node).start
        self.seen.append((start.line, start.column, skip, names))


def _assignments(module: cst.Module) -> dict[int, tuple[cst.BaseExpression, bool]]:
    found: dict[int, tuple[cst.BaseExpression, bool]] = {}
    blocks = (
        cst.BaseSuite,
        cst.BaseCompoundStatement,
        cst.Else,
        cst.ExceptHandler,
        cst.Finally,
        cst.MatchCase,
    )
    stack: list[cst.CSTNode] = list(module.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in node.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            found[id(target.target)] = (small.value, len(small.targets) == 1)
                elif isinstance(small, cst.AnnAssign) and small.value and isinstance(small.target, cst.Name):
                    found[id(small.target)] = (small.value, True)
        elif isinstance(node, blocks):
            stack.extend(c for c in node.children if isinstance(c, (*blocks, cst.BaseStatement)))
    return found


def reference(source: str) -> list[Seen]:
    module = cst.parse_module(source)
    visitor = _Reference(module)
    MetadataWrapper(module, unsafe_skip_copy=True).visit(visitor)
    return sorted(visitor.seen)


def located(source: str) -> list[Seen]:
    text = Text(source)
    found = locate(ast.parse(source), text)
    seen: list[Seen] = []
    # (the reference knows Lightning's own Trainer only; subclasses are the golden fixtures' subject)
    for call in (c for c in found.calls if trainer_skip(found, c.node, c.scope, TRAINER_NAMES) is not None):

        def where(name: ast.Name, sole_use: bool) -> object:
            bound = found.bound(name, call.scope, sole_use)  # noqa: B023 (used right away)
            if bound is None:
                return None
            line, column = text.position(bound[0])
            return (line, column - 1)

        names = tuple(
            (k.arg, where(k.value, False), where(k.value, True))
            for k in call.node.keywords
            if k.arg is not None and isinstance(k.value, ast.Name)
        )
        line, column = text.position(call.node)
        seen.append((line, column - 1, call.skip, names))
    return sorted(seen)


def test_there_are_files_to_compare() -> None:
    assert len(FILES) > 200


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_the_locators_agree_on_every_fixture_and_example(path: Path) -> None:
    source = path.read_text()
    assert located(source) == reference(source)


# --- generated files ---------------------------------------------------------------------------------------

IMPORTS = [
    "import pytorch_lightning as pl",
    "import pytorch_lightning",
    "import pytorch_lightning.trainer",
    "from pytorch_lightning import Trainer",
    "from pytorch_lightning import Trainer as T",
    "from pytorch_lightning.trainer.trainer import Trainer",
    "import lightning as L",
    "import lightning.pytorch as pl",
    "from lightning.pytorch import Trainer",
    "from transformers import Trainer",
    "from functools import partial",
    "import functools",
    "from pytorch_lightning.plugins import DDPPlugin",
]
CALLEES = [
    "Trainer",
    "T",
    "pl.Trainer",
    "pytorch_lightning.Trainer",
    "pytorch_lightning.trainer.Trainer",
    "L.Trainer",
    "Trainer.from_argparse_args",
    "pl.Trainer.from_argparse_args",
    "partial(Trainer",
    "functools.partial(pl.Trainer",
]
BINDINGS = [
    "cfg = {'gpus': 2}",
    "cfg = dict(accelerator='ddp')",
    "ddp = DDPPlugin(find_unused_parameters=False)",
    "acc = 'ddp'",
    "acc: str = 'ddp_spawn'",
    "acc = other = 'dp'",
    "acc, n = 'ddp', 2",
    "for acc in ('ddp', 'dp'): pass",
    "n = 2",
    "n += 1",
    "Trainer = object",
    "T = None",
    "import os as acc",
    "del n",
    "with open('f') as cfg: pass",
]
KEYWORDS = ["accelerator=acc", "gpus=n", "plugins=ddp", "**cfg", "strategy=ddp", "max_epochs=1"]
STATEMENTS = ["t = {}", "{}", "return {}", "x = [{} for _ in range(2)]", "y = lambda: {}"]
SCOPES = [
    "def f():\n{body}",
    "def f(Trainer=None):\n{body}",
    "def f(acc='ddp', *, n=2):\n{body}",
    "class C:\n{body}",
    "class C:\n    acc = 'dp'\n    def m(self):\n    {body}",
    "def outer():\n    acc = 'ddp'\n    def inner():\n    {body}\n    return inner",
    "def f():\n    global acc\n    acc = 'dp'\n{body}",
    "if True:\n{body}",
    "try:\n{body}\nexcept Exception as cfg:\n    pass",
]


@st.composite
def programs(draw: st.DrawFn) -> str:
    callee = draw(st.sampled_from(CALLEES))
    lines = draw(st.lists(st.sampled_from(IMPORTS), min_size=1, max_size=4))
    if draw(st.booleans()):  # most often, the import the callee needs (and maybe a binding that hides it)
        lines += [i for i in IMPORTS if callee.split("(")[-1].split(".")[0] in i.split()[-1:]][:1]
        lines += ["from functools import partial"] if "partial" in callee else []
    lines += draw(st.lists(st.sampled_from(BINDINGS), max_size=4))
    head = "args, " if callee.endswith("from_argparse_args") else ""
    keywords = draw(
        st.lists(
            st.sampled_from(
                ["accelerator=acc", "gpus=n", "plugins=ddp", "**cfg", "strategy=ddp", "max_epochs=1"]
            ),
            max_size=3,
            unique=True,
        )
    )
    arguments = ", ".join([*([head.rstrip(", ")] if head else []), *keywords])
    call = (
        f"{callee}, {arguments})" if callee.startswith(("partial", "functools")) else f"{callee}({arguments})"
    )
    statement = draw(
        st.sampled_from(["t = {}", "{}", "return {}", "x = [{} for _ in range(2)]", "y = lambda: {}"])
    )
    inner = draw(st.lists(st.sampled_from(BINDINGS), max_size=2))
    body = "\n".join(f"    {line}" for line in [*inner, statement.format(call)])
    scope = draw(st.sampled_from(SCOPES))
    if "return" in statement and not scope.startswith("def"):
        scope = "def f():\n{body}"
    lines.append(scope.format(body=body.replace("\n", "\n    ") if "    {body}" in scope else body))
    lines += draw(st.lists(st.sampled_from(BINDINGS), max_size=2))
    return "\n".join(lines) + "\n"


@settings(max_examples=400, deadline=None, derandomize=True)
@given(source=programs())
def test_the_locators_agree_on_generated_files(source: str) -> None:
    try:
        ast.parse(source)
    except SyntaxError:
        return  # a combination Python rejects (`global` after a use, `return` outside a function)
    assert located(source) == reference(source)
