"""LightningCLI's own API (LM008) on the real release installed here (the target): the facts table against
its LightningCLI's signature and modules, the rewritten imports imported, and each rewritten LightningCLI
call built (``run=False``: no training), with the setting the old keyword gave where the release still takes
it (1.8, 1.9: the old call and its rewrite, side by side) and the documented one where it rejects it."""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import harness
import pytest

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.semantics import Version
from lightning_migrate.semantics.removed import (
    CLI_KEYWORD,
    CLI_KWARGS,
    CLI_MODULE_SINCE,
    CLI_MOVED,
    CLI_PARAMETERS,
    CLI_REGISTRIES,
    OLD_CLI_MODULE_REMOVED,
    cli_accepts,
)

pytestmark = pytest.mark.real

ROOT = harness.ROOT
RELEASE = Version.parse(harness.release())
LINE = Version(RELEASE.major, RELEASE.minor)
HAS_CLI = RELEASE >= CLI_MODULE_SINCE
CLI = f"{ROOT}.cli" if HAS_CLI else f"{ROOT}.utilities.cli"


def _module(name: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return importlib.import_module(name)


def test_the_signature_is_the_table() -> None:
    parameters = inspect.signature(_module(CLI).LightningCLI.__init__).parameters.values()
    named = {p.name for p in parameters if p.kind is not p.VAR_KEYWORD} - {"self"}
    expected = {
        k for k, (since, until) in CLI_PARAMETERS.items() if since <= LINE and (until is None or until > LINE)
    }
    assert named == expected
    assert any(p.kind is p.VAR_KEYWORD for p in parameters) is (CLI_KWARGS[0] <= LINE < CLI_KWARGS[1])


@pytest.mark.skipif(not HAS_CLI, reason="no `cli` module before 1.7")
@pytest.mark.parametrize(("name", "module"), sorted(CLI_MOVED.items()))
def test_a_moved_name_is_where_the_table_says(name: str, module: str) -> None:
    assert hasattr(_module(f"{ROOT}.{module}"), name)


@pytest.mark.parametrize("name", sorted(CLI_REGISTRIES))
def test_the_registries_go_in_1_9(name: str) -> None:
    if LINE >= OLD_CLI_MODULE_REMOVED:
        with pytest.raises((ImportError, AttributeError)):
            getattr(_module(f"{ROOT}.utilities.cli"), name)
    elif CLI_REGISTRIES[name] <= LINE:
        assert getattr(_module(f"{ROOT}.utilities.cli"), name) is not None


def test_the_rewritten_imports_import() -> None:
    source = f"from {ROOT}.utilities.cli import {', '.join(sorted(CLI_MOVED))}\n"
    code = migrate(source, RELEASE).code
    if not HAS_CLI:
        assert code == source
        return
    namespace: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # (1.7/1.8 warn for the old module's names)
        exec(compile(code, "<rewritten>", "exec"), namespace)
    assert set(CLI_MOVED) <= set(namespace)


# --- the calls ---------------------------------------------------------------------------------------------

VALUES = {
    "save_config_filename": "run.yaml",
    "save_config_overwrite": True,
    "save_config_multifile": True,
    "description": "Train the model",
    "env_prefix": "APP",
    "env_parse": True,
    "auto_registry": True,
}


def _model() -> type:
    lightning = harness.lightning()
    torch = importlib.import_module("torch")

    class Model(lightning.LightningModule):  # type: ignore[misc,name-defined]
        def __init__(self, width: int = 4) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(width, 2)

    return Model


def _built(code: str, tmp: Path) -> Any:
    """The LightningCLI ``code`` builds (as ``cli``), with no command-line argument."""
    namespace: dict[str, Any] = {"Model": _model(), "TMP": str(tmp)}
    argv, sys.argv = sys.argv, ["cli"]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(code, "<call>", "exec"), namespace)
    finally:
        sys.argv = argv
    return namespace["cli"]


def _setting(cli: Any, keyword: str) -> object:
    """What the keyword set, read from the built LightningCLI."""
    row = CLI_KEYWORD[keyword]
    if row.into == "save_config_kwargs":
        if hasattr(cli, "save_config_kwargs"):
            return cli.save_config_kwargs.get(row.key)
        return getattr(cli, keyword)  # (1.5-1.7 keep the keyword as an attribute)
    if row.into == "parser_kwargs":
        return getattr(cli.parser, row.key)
    return None  # auto_registry: nothing left to read (the call builds, that is all)


BARE = (
    f"from {CLI} import LightningCLI\n"
    "cli = LightningCLI(Model, run=False, trainer_defaults={'logger': False, 'default_root_dir': TMP})\n"
)


@functools.lru_cache(maxsize=1)
def _bare_fails() -> str:
    """Why this release's LightningCLI cannot be built here with no keyword at all, or ''. (1.5.10 with the
    jsonargparse its pins allow raises on Python 3.11 while it adds its empty LR scheduler registry:
    `Union[()]`.)"""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            _built(BARE, Path(tmp))
        except Exception as exc:  # any failure of the bare call is the environment's
            return f"{type(exc).__name__}: {exc}"
    return ""


@pytest.mark.skipif(Version(1, 5) > RELEASE, reason="no `run=False` before 1.5")
@pytest.mark.parametrize("keyword", sorted(VALUES))
def test_a_rewritten_call_builds_what_the_keyword_set(keyword: str, tmp_path: Path) -> None:
    if _bare_fails():
        pytest.skip(f"this release's LightningCLI cannot be built here, with no keyword: {_bare_fails()}")
    value = VALUES[keyword]
    call = (
        f"from {CLI} import LightningCLI\n"
        f"cli = LightningCLI(Model, run=False, trainer_defaults={{'logger': False, 'default_root_dir': TMP}},"
        f" {keyword}={value!r})\n"
    )
    code = migrate(call, RELEASE).code
    taken = cli_accepts(keyword, RELEASE)
    if code == call and not taken:
        pytest.skip(f"left for the user: this release rejects `{keyword}=` and the call was not rewritten")
    rewritten = _setting(_built(code, tmp_path), keyword)
    if taken:  # the old call runs here too: the rewrite sets what it set
        assert rewritten == _setting(_built(call, tmp_path), keyword)
    elif CLI_KEYWORD[keyword].into:
        assert rewritten == value
