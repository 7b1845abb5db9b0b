"""The Trainer calls of a run's Python that may take a Trainer config's flags from a YAML file (issue 24,
part 7): a call that unpacks a ``**`` mapping known only at run time (``Trainer(**cfg.trainer)``,
``Trainer(**kwargs)`` after ``kwargs.update(config.trainer)``), a call whose arguments read a key of a config
section (``Trainer(distributed_backend=cfg.trainer.distributed_backend)``), and a Hydra ``instantiate`` of a
section (``instantiate(cfg.trainer)``), which builds whatever the config's ``_target_`` names. A config whose
keys other code reads is not rewritten where it is (``frontends.yaml``); with ``--shim`` it is handed to the
runtime shim, its keys as they are, where every such call of the run builds the shim's Trainer, as written or
once the run has written its file (``run.runner`` asks the Python front end which ones it hands to the
shim)."""

from __future__ import annotations

import ast
from pathlib import Path

from lightning_migrate.files import depth
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.files.text import Text
from lightning_migrate.plan.locate import locate
from lightning_migrate.plan.prefilter import may_call_trainer
from lightning_migrate.plan.trainers import NO_SUBCLASSES, SHIM_TRAINERS, RunSubclasses
from lightning_migrate.project.key_references import Taker, lines_of, named, section_of
from lightning_migrate.report.findings import written

_INSTANTIATE = frozenset({"hydra.utils.instantiate", "hydra.utils.call"})


def may_take(text: str) -> bool:
    """May the Python ``text`` hold a call that takes a config's flags (asked of every Python file)?"""
    return "Trainer" in text or "instantiate" in text


def in_python(path: Path, text: str, subclasses: RunSubclasses = NO_SUBCLASSES) -> list[Taker]:
    """The calls of the Python ``text`` (the file at ``path``) that may take a config's flags."""
    if not _may_hold_taker(path, text, subclasses):
        return []
    try:
        tree = depth.parse(text)
    except (SyntaxError, ValueError, SourceError):  # the file's own migration reports it
        return []
    located = locate(tree, Text(text), subclasses, subclasses.starred_in(path))
    lines = lines_of(text)
    found: dict[int, Taker] = {}
    for call in located.calls:
        if call.owner:  # (a subclass's `super().__init__(**kwargs)`: its callers' flags, judged there)
            continue
        taker = _taker(path, call.node, lines)
        if taker is not None:
            found[id(call.node)] = taker
    for node, scope in located.scoped_calls:
        if id(node) in found:
            continue
        names = located.qualified(node.func, scope)
        if names & SHIM_TRAINERS.keys():
            taker = _taker(path, node, lines)
            if taker is not None:
                found[id(node)] = Taker(**{**taker.__dict__, "built": True})
        elif names & _INSTANTIATE and node.args and section_of(node.args[0]) is not None:
            section = section_of(node.args[0])
            assert section is not None
            where = _where(path, node, lines)
            found[id(node)] = Taker(*where, sections=(section,), instantiates=True)
    return sorted(found.values(), key=lambda t: (t.line, t.column))


def _may_hold_taker(path: Path, text: str, subclasses: RunSubclasses) -> bool:
    """False only if ``in_python`` finds no call in ``text``, told without parsing it (asked of every Python
    file of a run whose code refers to a config's keys; most have no Trainer call: about 4 in 10 of those
    that name a Trainer on the census corpus, whose parse and scope pass were a seventh of a run there).
    Each call it finds is a Trainer call ``plan.locate`` finds (``prefilter.may_call_trainer`` says whether
    the text may hold one, the run's own subclasses included), a call of the shim's Trainer (a callee that
    ends with ``Trainer`` or an import alias of it, which that finds too), or a call that resolves to
    Hydra's ``instantiate`` or ``call``: only through an import that names ``hydra`` in the file or a star
    import of one of the run's modules (the names those bind are the only others ``locate`` resolves)."""
    if "hydra" in text or subclasses.starred_in(path):
        return True
    return may_call_trainer(text, subclasses.names)


def _taker(path: Path, node: ast.Call, lines: list[str]) -> Taker | None:
    """``node`` as a call that may take a config's flags; None where it takes none. Every keyword counts
    (a ``from_argparse_args`` namespace or ``partial``'s class comes first, positionally)."""
    unpacks = any(k.arg is None and not isinstance(k.value, ast.Dict) for k in node.keywords)
    sections: dict[str, None] = {}
    for value in [k.value for k in node.keywords] + list(node.args):
        for inner in ast.walk(value):
            reads = named(inner)
            if reads is not None and not reads[1]:
                sections[reads[0][0]] = None
    if not unpacks and not sections:
        return None
    return Taker(*_where(path, node, lines), sections=tuple(sections), unpacks=unpacks)


def _where(path: Path, node: ast.Call, lines: list[str]) -> tuple[str, int, int, int, str]:
    line = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
    text = line.encode()[node.col_offset :].decode(errors="replace").strip()
    return str(path), node.lineno, node.col_offset + 1, node.end_lineno or node.lineno, written(text)
