"""The model's plugin constructors (precision, cluster environment, checkpoint IO) against the real
release's, read with inspect.signature."""

from __future__ import annotations

import inspect
from typing import Any

import harness
import pytest

from lightning_migrate.semantics import Version, classes, constructors
from lightning_migrate.semantics.precision import CLASSES, Constructor, PrecisionClass

pytestmark = pytest.mark.real


def _running_init(cls: type) -> Any:
    """The ``__init__`` that takes the arguments: a deprecated alias whose ``__init__(*args, **kwargs)``
    only warns and forwards (1.9's NativeMixedPrecisionPlugin, 2.1.1+'s graveyard classes) hands them to
    its base class."""
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        params = list(inspect.signature(init).parameters.values())[1:]
        forwards = [p.kind for p in params] == [
            inspect.Parameter.VAR_POSITIONAL,
            inspect.Parameter.VAR_KEYWORD,
        ]
        if not forwards:
            return init
    return object.__init__


@pytest.mark.parametrize("row", CLASSES, ids=lambda row: row.name)
def test_constructor_is_the_modelled_one(row: PrecisionClass) -> None:
    version = Version.parse(harness.release())
    if not row.exists_in(version):
        pytest.skip(f"{row.name} is not in {version}")
    assert_constructor(row.name, row.constructor(version))


OTHERS = [row for row in classes.CLASSES if row.name in constructors.PLUGIN_CONSTRUCTORS]


@pytest.mark.parametrize("row", OTHERS, ids=lambda row: row.name)
def test_environment_and_checkpoint_io_constructors(row: classes.LightningClass) -> None:
    version = Version.parse(harness.release())
    if not row.exists_in(version):
        pytest.skip(f"{row.name} is not in {version}")
    model = constructors.plugin_constructor(row.name, version)
    assert model is not None
    assert_constructor(row.name, model)


def assert_constructor(name: str, model: Constructor) -> None:
    init = _running_init(harness.find_class(name))
    if model.owner is None:
        assert init is object.__init__
        return
    assert init.__qualname__ == f"{model.owner}.__init__"
    params = list(inspect.signature(init).parameters.values())[1:]
    real = tuple((p.name, p.default is inspect.Parameter.empty) for p in params)
    assert real == model.params
