"""LightningCLI's own API (LM008): the facts table (``semantics.removed``'s LightningCLI rows, read from the
1.4.9-2.6.6 wheels) checked against itself and against what the wheels say release by release, then the
rewrites and reports of ``frontends.python.cli_api`` case by case (the golden fixtures are
``fixtures/cli_api``; ``tests/real/test_cli_api_real.py`` builds the rewritten forms on each real release)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan.prefilter import may_need_migration
from lightning_migrate.semantics.model import RELEASES, release, v
from lightning_migrate.semantics.removed import (
    CLI_KEYWORDS,
    CLI_KWARGS,
    CLI_MODULE_SINCE,
    CLI_MOVED,
    CLI_PARAMETERS,
    CLI_REGISTRIES,
    OLD_CLI_MODULE_REMOVED,
    cli_accepts,
    mentions_cli_api,
)

# --- the facts ----------------------------------------------------------------------------------------------

# What each release's `LightningCLI(...)` takes without raising, as read from its wheel (the explicit
# parameters, and in 1.8/1.9 what `_handle_deprecated_params` takes through `**kwargs`): a few keywords.
TAKES = {
    "1.5": {"save_config_overwrite", "description", "env_parse"},
    "1.6": {"save_config_overwrite", "description", "env_parse", "auto_registry"},
    "1.7": {"save_config_overwrite", "description", "env_parse", "auto_registry"},
    "1.8": {
        "save_config_overwrite",
        "save_config_kwargs",
        "description",
        "env_parse",
        "auto_registry",
        "args",
    },
    "1.9": {
        "save_config_overwrite",
        "save_config_kwargs",
        "description",
        "env_parse",
        "args",
        "auto_configure_optimizers",
    },
    "2.0": {"save_config_kwargs", "args", "auto_configure_optimizers"},
    "2.6": {"save_config_kwargs", "args", "auto_configure_optimizers", "parser_class"},
}
ASKED = sorted({k for keywords in TAKES.values() for k in keywords})


@pytest.mark.parametrize("line", sorted(TAKES))
def test_what_each_release_takes(line: str) -> None:
    version = release(line)
    assert {k for k in ASKED if cli_accepts(k, version)} == TAKES[line]


def test_the_keyword_rows_agree_with_the_parameters() -> None:
    for row in CLI_KEYWORDS:
        until = CLI_PARAMETERS[row.keyword][1]
        assert until is not None, row
        assert until <= row.removed, row  # no release takes it as a parameter after
        assert row.deprecated < row.removed, row
        if row.into:
            assert CLI_PARAMETERS[row.into][1] is None, row  # the dict keyword stays
            assert row.since <= row.deprecated, row  # every release that deprecates it has the replacement
        if until < row.removed:  # taken through `**kwargs` in between, and only there
            assert CLI_KWARGS[0] <= until, row
            assert row.removed <= CLI_KWARGS[1], row


def test_the_module_facts() -> None:
    assert v("1.7") == CLI_MODULE_SINCE
    assert v("1.9") == OLD_CLI_MODULE_REMOVED
    assert set(CLI_MOVED.values()) == {"cli", "utilities.types"}
    assert not set(CLI_MOVED) & set(CLI_REGISTRIES)
    assert all(since >= v("1.5") for since in CLI_REGISTRIES.values())


@pytest.mark.parametrize(
    ("text", "mentions"),
    [
        ("from pytorch_lightning.utilities.cli import LightningCLI", True),
        ("from pytorch_lightning.utilities import cli", True),
        ("from lightning.pytorch.utilities import rank_zero_only, cli", True),
        (
            "from pytorch_lightning.cli import LightningCLI\nLightningCLI(Model, save_config_overwrite=True)",
            True,
        ),
        ("from lightning.pytorch.cli import LightningCLI\nLightningCLI(Model)", False),
        ("save_config_overwrite = True", False),
    ],
)
def test_the_prefilter_words(text: str, mentions: bool) -> None:
    assert mentions_cli_api(text) is mentions
    if mentions:
        assert may_need_migration(text)


# --- the rewrites -------------------------------------------------------------------------------------------

# (source, target, expected code or None for unchanged, the LM008 findings as (line, fixable))
CASES: list[tuple[str, str, str | None, list[tuple[int, bool]]]] = [
    # no release before 1.7 has the new module: nothing to do, nothing to say
    ("from pytorch_lightning.utilities.cli import LightningCLI\n", "1.6", None, []),
    (
        "from pytorch_lightning.utilities.cli import LightningCLI\n",
        "1.7",
        "from pytorch_lightning.cli import LightningCLI\n",
        [(1, True)],
    ),
    # a comment in a statement that must be split: reported, not split
    (
        "from pytorch_lightning.utilities.cli import (  # the CLI\n"
        "    LightningCLI,\n    MODEL_REGISTRY,\n)\n",
        "2.6",
        None,
        [(1, False), (1, False)],
    ),
    # ... but one whose module alone changes keeps its comment and layout
    (
        "from pytorch_lightning.utilities.cli import (  # the CLI\n"
        "    LightningCLI,\n    instantiate_class,\n)\n",
        "2.6",
        "from pytorch_lightning.cli import (  # the CLI\n    LightningCLI,\n    instantiate_class,\n)\n",
        [(1, True)],
    ),
    # split in an indented block, with the file's line ends
    (
        "def f():\r\n\tfrom pytorch_lightning.utilities.cli import LRSchedulerType, LightningCLI as L\r\n",
        "2.6",
        "def f():\r\n\tfrom pytorch_lightning.utilities.types import LRSchedulerType\r\n"
        "\tfrom pytorch_lightning.cli import LightningCLI as L\r\n",
        [(2, True)],
    ),
    # a registry stays where the target only deprecates it, and is reported where it is gone
    (
        "from pytorch_lightning.utilities.cli import CALLBACK_REGISTRY\n",
        "1.8",
        None,
        [],
    ),
    (
        "from pytorch_lightning.utilities.cli import CALLBACK_REGISTRY\n",
        "1.9",
        None,
        [(1, False)],
    ),
    # a name the new module lacks (1.5 re-exported the Trainer there): reported
    ("from pytorch_lightning.utilities.cli import Trainer\n", "2.6", None, [(1, False)]),
    ("import pytorch_lightning.utilities.cli\n", "1.8", None, []),
    ("import pytorch_lightning.utilities.cli\n", "1.9", None, [(1, False)]),
    # `**kwargs` may hold the dict keyword: moved only where the target rejects the keyword anyway
    (
        "from pytorch_lightning.cli import LightningCLI\nLightningCLI(M, save_config_overwrite=True, **kw)\n",
        "1.9",
        None,
        [],
    ),
    (
        "from pytorch_lightning.cli import LightningCLI\nLightningCLI(M, save_config_overwrite=True, **kw)\n",
        "2.0",
        "from pytorch_lightning.cli import LightningCLI\n"
        'LightningCLI(M, save_config_kwargs={"overwrite": True}, **kw)\n',
        [(2, True)],
    ),
    # a deprecating target with the replacement: moved; one without it (1.7 has no save_config_kwargs): left
    (
        "from pytorch_lightning.cli import LightningCLI\nLightningCLI(M, save_config_overwrite=True)\n",
        "1.7",
        None,
        [],
    ),
    # `auto_registry=` dropped where it is gone, left where it is only deprecated; a computed one reported
    (
        "from pytorch_lightning.cli import LightningCLI\nLightningCLI(M, auto_registry=True)\n",
        "1.8",
        None,
        [],
    ),
    (
        "from pytorch_lightning.cli import LightningCLI\nLightningCLI(M, auto_registry=True)\n",
        "1.9",
        "from pytorch_lightning.cli import LightningCLI\nLightningCLI(M)\n",
        [(2, True)],
    ),
    (
        "from pytorch_lightning.cli import LightningCLI\nLightningCLI(M, auto_registry=on())\n",
        "2.6",
        None,
        [(2, False)],
    ),
    # a parser_kwargs display that unpacks another dict may set the key: reported
    (
        "from pytorch_lightning.cli import LightningCLI\n"
        "LightningCLI(M, env_parse=True, parser_kwargs={**o})\n",
        "2.6",
        None,
        [(2, False)],
    ),
    # ... a save_config_kwargs one may: the keyword is set after it, as 1.8/1.9 set it
    (
        "from pytorch_lightning.cli import LightningCLI\n"
        "LightningCLI(M, save_config_multifile=True, save_config_kwargs={**o})\n",
        "2.6",
        "from pytorch_lightning.cli import LightningCLI\n"
        'LightningCLI(M, save_config_kwargs={**o, "multifile": True})\n',
        [(2, True)],
    ),
    # a subclass with an `__init__` of its own takes its own keywords: its call is not LightningCLI's
    (
        "from pytorch_lightning.cli import LightningCLI\n"
        "class C(LightningCLI):\n    def __init__(self, description):\n        super().__init__(None)\n"
        "C(description='x')\n",
        "2.6",
        None,
        [],
    ),
    # another package's LightningCLI (lightning-flash's copy) is not Lightning's
    (
        "from flash.core.utilities.lightning_cli import LightningCLI\nLightningCLI(M, description='x')\n",
        "2.6",
        None,
        [],
    ),
]


@pytest.mark.parametrize(("source", "target", "expected", "found"), CASES)
def test_case(source: str, target: str, expected: str | None, found: list[tuple[int, bool]]) -> None:
    result = migrate(source, release(target))
    assert result.code == (source if expected is None else expected)
    assert [(f.line, f.fixable) for f in result.findings if f.code == "LM008"] == found
    assert migrate(result.code, release(target)).code == result.code, "not a fixed point"


def test_a_suppressed_finding_leaves_its_statement_and_its_keyword() -> None:
    """``leave`` (the positions of findings a `# noqa` suppresses, as the run gives them): reported, not
    rewritten."""
    source = (
        "from pytorch_lightning.utilities.cli import LightningCLI  # noqa: LM008\n"
        "LightningCLI(M, save_config_overwrite=True)  # noqa: LM008\n"
    )
    result = migrate(source, release("2.6"), leave=frozenset({(1, 1), (2, 17)}))
    assert result.code == source
    assert [(f.line, f.column, f.fixable) for f in result.findings] == [(1, 1, True), (2, 17, True)]


# --- every import the rewrite writes is one the target has ------------------------------------------------

MODULES = {  # what the wheels' modules define (the names of CLI_MOVED), release line by release line
    "cli": {
        "LightningCLI",
        "LightningArgumentParser",
        "SaveConfigCallback",
        "instantiate_class",
        "ReduceLROnPlateau",
    },
    "utilities.types": {"LRSchedulerType", "LRSchedulerTypeTuple", "LRSchedulerTypeUnion"},
}


@pytest.mark.parametrize("target", [r for r in RELEASES if r >= CLI_MODULE_SINCE], ids=str)
def test_every_written_import_exists_in_the_target(target: object) -> None:
    names = ", ".join(CLI_MOVED)
    source = f"from pytorch_lightning.utilities.cli import {names}\n"
    result = migrate(source, target)  # type: ignore[arg-type]
    imports = [n for n in ast.walk(ast.parse(result.code)) if isinstance(n, ast.ImportFrom)]
    assert {a.name for n in imports for a in n.names} == set(CLI_MOVED)
    for node in imports:
        module = (node.module or "").removeprefix("pytorch_lightning.")
        assert {a.name for a in node.names} <= MODULES[module]


# --- a subclass defined in another file of the run --------------------------------------------------------

BASE = """\
from pytorch_lightning.utilities.cli import LightningCLI


class CLI(LightningCLI):
    def __init__(self, model_class, run=True, **kwargs):
        parser_kwargs = {"fit": {"default_config_files": ["a.yaml"]}}
        super().__init__(model_class, run=run, parser_kwargs=parser_kwargs, **kwargs)


class OwnCLI(LightningCLI):
    def __init__(self, model_class, description="mine"):
        super().__init__(model_class)
"""
SCRIPT = """\
from project.cli import CLI, OwnCLI
from project.model import Model


class TextCLI(CLI):
    pass


TextCLI(Model, description="Text model", save_config_overwrite=True)
OwnCLI(Model, description="Own")
"""
SCRIPT_2_6 = """\
from project.cli import CLI, OwnCLI
from project.model import Model


class TextCLI(CLI):
    pass


TextCLI(Model, description="Text model", save_config_kwargs={"overwrite": True})
OwnCLI(Model, description="Own")
"""


def test_a_subclass_from_another_file_hands_the_keywords_on(tmp_path: Path) -> None:
    """``TextCLI(...)`` reaches LightningCLI through ``CLI.__init__``'s ``**kwargs``: its
    ``save_config_overwrite=`` moves; its ``description=`` cannot move into ``parser_kwargs=``, which
    ``CLI`` passes itself (both would reach LightningCLI), and is reported; ``OwnCLI`` takes
    ``description`` itself."""
    from lightning_migrate.cli.settings import Options
    from lightning_migrate.run.runner import process_all

    package = tmp_path / "project"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "cli.py").write_text(BASE)
    (package / "train.py").write_text(SCRIPT)
    results = {
        r.path.name: r for r in process_all(sorted(package.iterdir()), Options(release("2.6")), jobs=1)
    }
    assert results["train.py"].data is not None
    assert results["train.py"].data.decode() == SCRIPT_2_6
    found = [(f.line, f.fixable, f.message) for f in results["train.py"].findings if f.code == "LM008"]
    assert [(line, fixable) for line, fixable, _ in found] == [(9, False), (9, True)]
    assert "`TextCLI` passes `parser_kwargs=` itself" in found[0][2]
