"""``inspect``: what each release builds from one Trainer call, and how to keep its behaviour elsewhere."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lightning_migrate.semantics import Hardware, Interpretation, Obj, Setup, Value, Version, interpret
from lightning_migrate.semantics.model import FULL_PRECISION
from lightning_migrate.semantics.render import Inexpressible, render


def format_value(value: Value) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, Obj):
        return f"{value.cls}({', '.join(f'{k}={format_value(v)}' for k, v in value.kwargs)})"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return repr(value)


def format_call(flags: Mapping[str, Value]) -> str:
    return "Trainer(" + ", ".join(f"{k}={format_value(v)}" for k, v in flags.items()) + ")"


def describe(setup: Setup) -> str:
    devices = ", ".join(map(str, setup.devices))
    nodes = f" x {setup.num_nodes} nodes" if setup.num_nodes != 1 else ""
    precision = f", precision {setup.precision}" if setup.precision != FULL_PRECISION else ""
    return f"{setup.accelerator} [{devices}]{nodes}, strategy {setup.strategy}{precision}"


INDENT = " " * 10  # the column the table's text starts at, after "  1.5.10  "


def _aligned(first: str, text: str) -> str:
    """``text`` after ``first``, its further lines (an exception's message of several lines) at the table's
    column too, not at the start of the line."""
    head, *rest = text.split("\n")
    return "\n".join([first + head, *(INDENT + line.strip() for line in rest)])


@dataclass
class Row:
    version: Version
    interpretation: Interpretation
    keep: Mapping[str, Value] | Inexpressible | None  # how to write the source behaviour here

    @property
    def outcome(self) -> str:
        outcome = self.interpretation.outcome
        return describe(outcome) if isinstance(outcome, Setup) else f"error: {outcome}"


@dataclass
class Report:
    flags: Mapping[str, Value]
    hardware: Hardware
    source: Version | None
    rows: list[Row]

    @property
    def title(self) -> str:
        return f"{format_call(self.flags)} on {self.hardware.describe()}"

    def table(self) -> str:
        lines = []
        if self.source is None:
            lines.append("  no release from 1.4 to 2.6 accepts this call")
        previous: tuple[str, str] = ("", "")
        for row in self.rows:
            marker = "  (source)" if row.version == self.source else ""
            keep = self._keep_text(row)
            # (the newest release is always shown in full: the row most read, without scanning up)
            newest = row is self.rows[-1]
            if (row.outcome, keep) == previous and not row.interpretation.deprecations and not newest:
                lines.append(f"  {row.version!s:<7} same as above")
                continue
            same = row.outcome == previous[0] and not newest and not marker
            previous = (row.outcome, keep)
            outcome = "same as above" if same else f"{row.outcome}{marker}"
            lines.append(_aligned(f"  {row.version!s:<7} ", outcome))
            lines.extend(
                _aligned(INDENT, f"deprecated: {d.message}") for d in row.interpretation.deprecations
            )
            if keep:
                lines.append(_aligned(INDENT, keep))
        return "\n".join(lines)

    def _keep_text(self, row: Row) -> str:
        if isinstance(row.keep, Inexpressible):
            return f"cannot keep the {self.source} behaviour: {row.keep}"
        if row.keep is not None:
            return f"to keep the {self.source} behaviour: {format_call(row.keep)}"
        return ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "flags": {k: format_value(v) for k, v in self.flags.items()},
            "hardware": self.hardware.describe(),
            "source": str(self.source) if self.source else None,
            "releases": [
                {
                    "release": str(row.version),
                    "outcome": row.outcome,
                    "deprecations": [d.message for d in row.interpretation.deprecations],
                    "keep_source_behaviour": None
                    if row.keep is None
                    else (str(row.keep) if isinstance(row.keep, Inexpressible) else format_call(row.keep)),
                }
                for row in self.rows
            ],
        }


def inspect_call(
    flags: Mapping[str, Value], hardware: Hardware, releases: Sequence[Version], source: Version | None
) -> Report:
    interpretations = {version: interpret(flags, version, hardware) for version in releases}
    if source is None:
        source = next((ver for ver, i in interpretations.items() if isinstance(i.outcome, Setup)), None)
        source_setup = interpretations[source].outcome if source else None
    else:
        source_setup = interpret(flags, source, hardware).outcome
        if not isinstance(source_setup, Setup):
            source_setup = None
    rows = []
    for version, interpretation in interpretations.items():
        keep: Mapping[str, Value] | Inexpressible | None = None
        needs_rewrite = interpretation.outcome != source_setup or interpretation.deprecations
        if isinstance(source_setup, Setup) and needs_rewrite:
            keep = render(source_setup, version)
        rows.append(Row(version, interpretation, keep))
    return Report(flags, hardware, source, rows)
