"""The model's tables against the real release: registered strategy names and exported classes."""

from __future__ import annotations

import importlib

import harness
import pytest

from lightning_migrate.semantics import Version
from lightning_migrate.semantics.classes import CLASSES
from lightning_migrate.semantics.registry import registered

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
