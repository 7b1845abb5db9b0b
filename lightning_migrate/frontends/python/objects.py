"""The strategy object a call handed to the runtime shim builds, in the target's class.

The shim translates flags, not imports: an old ``DDPPlugin(...)`` written in a call that builds the shim's
Trainer still has to import on the target, where 2.0 removed the ``*Plugin`` classes. So such an object is
rebuilt as the target's class that builds the same strategy (family, start method, ``find_unused_parameters``
with each release's default filled in, every other argument by the role it has) as the old object did on
every source release that builds it: ``DDPPlugin()`` (1.x: unused parameters found) becomes
``DDPStrategy(find_unused_parameters=True)`` for 2.x, whose default is False. The shim then reads the new
object as the strategy the old one was (``semantics.translate.reference_value``). Where no class of the target
builds the same strategy, the object is left as written (and reported where it is imported).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from lightning_migrate.plan.planner import kept_objects
from lightning_migrate.semantics.classes import lookup, strategy_of
from lightning_migrate.semantics.model import Obj, Reject, Strategy, Version
from lightning_migrate.semantics.render import strategy_objects


def same_strategy(old: Obj, sources: Sequence[Version], target: Version) -> Obj | None:
    """``old`` (a renamed ``*Plugin`` training-type object) as an object of ``target`` that builds the
    strategy ``old`` builds on every release of ``sources`` that builds it; None where those releases
    disagree, none builds it, or ``target`` has no such class."""
    row = lookup(old.cls)
    if row is None or not row.renamed_to:
        return None
    built: set[Strategy] = set()
    for source in sources:
        try:
            built.add(strategy_of(old, source))
        except Reject:  # (not importable or a stub there: that release never ran it)
            continue
    if len(built) != 1:
        return None
    (meaning,) = built
    for candidate in _candidates(old, meaning, target):
        try:
            if strategy_of(candidate, target) == meaning:
                return candidate
        except Reject:
            continue
    return None


def _candidates(old: Obj, meaning: Strategy, target: Version) -> Iterator[Obj]:
    """The planner's forms of the user's object (``planner.kept_objects``: the renamed class with the same
    arguments, or the target's object of the same family with every argument written and those the
    target's spelling adds, such as ``find_unused_parameters=True`` where its default differs)."""
    for candidate in kept_objects(old, list(strategy_objects(meaning, target))):
        if candidate != old:
            yield candidate
