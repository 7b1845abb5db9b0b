"""The model's tables against the real release: registered strategy names and exported classes."""

from __future__ import annotations

import importlib
import inspect

import harness
import pytest

from lightning_migrate.plan.gone import accepts as keyword_accepted
from lightning_migrate.semantics import Version, constructors
from lightning_migrate.semantics.classes import BROKEN, CLASSES, lookup
from lightning_migrate.semantics.keywords import KEYWORDS
from lightning_migrate.semantics.registry import registered
from lightning_migrate.semantics.signature import TRAINER_FLAGS, accepts, is_default

pytestmark = pytest.mark.real


def real_registry() -> dict[str, str]:
    root = harness.lightning().__name__
    try:
        registry = importlib.import_module(f"{root}.strategies").StrategyRegistry
    except (ImportError, AttributeError):
        registry = importlib.import_module(f"{root}.plugins").TrainingTypePluginsRegistry
    return {name: entry.get("strategy", entry.get("plugin")).__name__ for name, entry in registry.items()}


def test_registered_strategy_names() -> None:
    version = Version.parse(harness.release())
    model = set(registered(version))
    real = set(real_registry())
    # third-party strategies (bagua, colossalai, hpu, ipu) register only when their package is installed
    assert model - real <= {"bagua", "colossalai", "hpu_parallel", "hpu_single", "ipu_strategy"}
    assert real <= model


def test_registered_names_build_the_modelled_family() -> None:
    version = Version.parse(harness.release())
    model = registered(version)
    for name, cls in real_registry().items():
        assert harness.STRATEGY_FAMILIES[cls][0] == model[name].name, name


@pytest.mark.parametrize("row", CLASSES, ids=lambda row: row.name)
def test_class_exists_where_the_model_says(row) -> None:  # type: ignore[no-untyped-def]
    version = Version.parse(harness.release())
    try:
        harness.find_class(row.name)
        found = True
    except ImportError:
        found = False
    assert found == row.exists_in(version)


def _real_parameters(cls: type) -> tuple[frozenset[str], bool, tuple[str, ...]]:
    """The keywords ``cls(...)`` takes, whether it forwards others, and those positional arguments bind to,
    in order: a ``__init__(self, *args, **kwargs)`` that only hands everything to its base (the 1.6/1.7
    ``*Plugin`` aliases, 1.9's FairScale strategies) is read through to the base."""
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        params = list(inspect.signature(init).parameters.values())[1:]
        named = frozenset(
            p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY, p.POSITIONAL_ONLY)
        )
        forwards = any(p.kind is p.VAR_KEYWORD for p in params)
        if named or not forwards:
            positional = tuple(
                p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY)
            )
            return named, forwards, positional
    return frozenset(), False, ()


@pytest.mark.parametrize("name", sorted(constructors.SIGNATURES), ids=str)
def test_constructor_keywords_are_the_releases(name: str) -> None:
    """The keywords, and their order: positional arguments are read as the parameters they bind to
    (``classes.positional_names``), so the table's order is the release's and none is keyword-only."""
    version = Version.parse(harness.release())
    row = lookup(name)
    assert row is not None
    if not row.exists_in(version) or (row.stub_since is not None and version >= row.stub_since):
        pytest.skip(f"{version} cannot build {name}")
    if name in BROKEN and version >= BROKEN[name][0]:
        pytest.skip(f"{version} raises when {name} is built")
    expected = constructors.signature(name, version, row.renamed_to)
    assert expected is not None, f"the table has no row for {name} in {version}"
    named, forwards, positional = _real_parameters(harness.find_class(name))
    assert (named, forwards) == (expected.names, expected.forwards)
    assert positional == expected.order


def test_trainer_signature_defaults_are_tabled() -> None:
    """Every hardware/distribution keyword the installed Trainer has, and its default, as the model tables
    them (``signature.TRAINER_FLAGS`` and ``signature.DEFAULTS``)."""
    version = Version.parse(harness.release())
    init = harness.lightning().Trainer.__init__
    parameters = inspect.signature(init).parameters
    for flag in TRAINER_FLAGS:
        assert (flag in parameters) == accepts(flag, version), flag
        if flag in parameters:
            assert is_default(flag, parameters[flag].default), (flag, parameters[flag].default)


def test_trainer_keywords_are_the_tables() -> None:
    """Every keyword of the installed ``Trainer.__init__``, and no other, is one the table read from the
    wheels (``semantics.keywords``) gives this release, with a default the table lists."""
    version = Version.parse(harness.release())
    parameters = inspect.signature(harness.lightning().Trainer.__init__).parameters
    real = {name for name, p in parameters.items() if name != "self" and p.kind is not p.VAR_KEYWORD}
    assert real == {k for k in KEYWORDS if keyword_accepted(k, version)}
    for name in real:
        default = parameters[name].default
        if isinstance(default, (str, int, float, bool, type(None))):
            assert any(type(default) is type(d) and default == d for d in KEYWORDS[name][2]), (name, default)
