from __future__ import annotations

import pytest

from lightning_migrate.semantics import Obj, Version, interpret
from lightning_migrate.semantics.model import RELEASES


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.9", (1, 9, 0)),
        ("1.9.5", (1, 9, 5)),
        ("1.5.10.post0", (1, 5, 10)),
        ("2.6.6+cpu", (2, 6, 6)),
        ("v2.0.0rc1", (2, 0, 0)),
    ],
)
def test_version_parse(text: str, expected: tuple[int, int, int]) -> None:
    assert Version.parse(text) == Version(*expected)


def test_version_parse_rejects_garbage() -> None:
    with pytest.raises(ValueError, match="not a Lightning version"):
        Version.parse("latest")


def test_releases_are_sorted_and_unique() -> None:
    assert list(RELEASES) == sorted(set(RELEASES))


def test_outside_the_modelled_range_is_an_error() -> None:
    with pytest.raises(ValueError, match="outside the modelled range"):
        interpret({}, "1.3.8")
    with pytest.raises(ValueError, match="outside the modelled range"):
        interpret({}, "3.0")


def test_obj_is_hashable_and_order_independent() -> None:
    assert Obj.of("DDPStrategy", a=1, b=2) == Obj.of("DDPStrategy", b=2, a=1)
