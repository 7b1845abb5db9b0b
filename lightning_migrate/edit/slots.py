"""Where the new flags of a rewrite go among the old ones, for the writers that work on keys (YAML mappings,
command-line flags, environment variables): each old flag that changes is a slot for the new flags that
replace it, as in the Python applier (``edit.call``): a training type in
``accelerator``/``distributed_backend``/``plugins`` makes room for ``strategy``, a device-count flag for
``accelerator`` + ``devices``. The new flag closest to the old value takes over the old key (so its comment
and place survive), the others are written right after it, and a new flag with no slot goes after the last
flag."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lightning_migrate.plan.knowledge import Choice, Known
from lightning_migrate.plan.planner import RENAMED_KEYWORDS, derived
from lightning_migrate.semantics.model import Obj
from lightning_migrate.semantics.removed import GONE

# Which new flags take the place of an old one that changes.
SLOTS: dict[str, tuple[str, ...]] = {
    "distributed_backend": ("strategy",),
    "accelerator": ("strategy", "accelerator"),
    "plugins": ("plugins", "strategy"),
    "strategy": ("strategy",),
    "gpus": ("accelerator", "devices"),
    "num_processes": ("accelerator", "devices"),
    "tpu_cores": ("accelerator", "devices"),
    "ipus": ("accelerator", "devices"),
    "devices": ("devices",),
    **{old: (new,) for old, new in RENAMED_KEYWORDS.items()},  # (`replace_sampler_ddp=` in place)
    # the keywords beside the model's that Lightning renamed (`weights_summary=None` ->
    # `enable_model_summary=False`, in place)
    **{row.keyword: tuple({r.keyword: 0 for r in row.renames if r.keyword}) for row in GONE if row.renames},
}


@dataclass(frozen=True)
class Placement:
    key: str  # an old flag that changes
    heir: str | None  # the new flag written in its place (None: the old flag goes)
    beside: tuple[str, ...]  # new flags written right after it
    slot: tuple[str, ...] = ()  # heir and beside in the slot's order (a call's arguments are written so)


@dataclass(frozen=True)
class Placements:
    changed: tuple[Placement, ...]  # in the order the old flags are written
    appended: tuple[str, ...]  # new flags with no slot, written after the last flag


def place(order: Sequence[str], old: Mapping[str, Known], new: Mapping[str, Known]) -> Placements:
    """How ``old`` (its flags written in ``order``) becomes ``new``."""
    changed = [k for k in order if k in old and (k not in new or new[k] != old[k])]
    unplaced = [k for k in new if k not in old or k in changed]
    # a strategy added only to keep the launcher (`gpus=2` -> ... `strategy="ddp_spawn"`) goes beside the
    # devices
    homeless = not any("strategy" in SLOTS.get(k, (k,)) for k in changed)
    # a strategy object the user wrote takes the place of the flag that held it
    home = next((k for k in changed if any(derived(i, new.get("strategy")) for i in items(old[k]))), None)
    placements = []
    for key in changed:
        slots = SLOTS.get(key, (key,))
        if homeless and slots == ("accelerator", "devices"):
            slots = (*slots, "strategy")
        slot = [k for k in slots if k in unplaced and (k != "strategy" or home in (None, key))]
        unplaced = [k for k in unplaced if k not in slot]
        heir = min(slot, key=lambda k: distance(old[key], new[k])) if slot else None
        placements.append(Placement(key, heir, tuple(k for k in slot if k != heir), tuple(slot)))
    return Placements(tuple(placements), tuple(unplaced))


def distance(old: Known, new: Known) -> int:
    """How far the new value ``new`` is from the old value ``old``: the nearest takes over the old flag's
    place (0: the same; 1: the same conditional or object, edited; 2: part of a list; 3: unrelated)."""
    if new == old:
        return 0
    if isinstance(new, Choice) and isinstance(old, Choice) and new.flag == old.flag:
        return 1  # the same conditional, its branches rewritten in place (another keyword's is not)
    if isinstance(new, Obj) and any(derived(o, new) for o in items(old)):
        return 1  # the same object under a new class name
    if isinstance(new, list) and isinstance(old, list) and all(v in old for v in new):
        return 2  # what is left of a list
    return 3


def items(value: Known) -> list[Known]:
    return list(value) if isinstance(value, list) else [value]
