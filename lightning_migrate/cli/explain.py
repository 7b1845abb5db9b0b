"""``lightning-migrate rules`` and ``lightning-migrate explain CODE``: the rule registry, for people."""

from __future__ import annotations

import textwrap

from lightning_migrate.report.rule_examples import EXAMPLES
from lightning_migrate.report.rules import BY_CODE, RULES, Rule


def rules_table() -> str:
    rows = [("code", "name", "fix", "deprecated", "removed", "title")]
    rows += [
        (r.code, r.name, "yes" if r.fixable else "no", r.deprecated_in, r.removed_in, r.title) for r in RULES
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[5] for row in rows
    )


def find_rule(name: str) -> Rule | None:
    """A rule by code (``LM001``, any case) or by name (``accelerator-training-type``)."""
    return BY_CODE.get(name.upper()) or next((r for r in RULES if r.name == name.lower()), None)


def explain(rule: Rule) -> str:
    lines = [f"{rule.code} {rule.name}", "", rule.title[:1].upper() + rule.title[1:] + "."]
    if rule.dates():
        said = rule.dates("Lightning ")
        lines.append(said[:1].upper() + said[1:] + ".")
    if rule.link:
        lines.append(f"Upstream change: {rule.link}")
    lines.append(
        "Fix: automatic (behaviour-preserving, checked with the model)."
        if rule.fixable
        else "Fix: none; the call is left as it is and reported."
    )
    example = EXAMPLES.get(rule.code)
    if example:
        origin = f" (fixtures/{example.fixture}.py)" if example.fixture else ""
        lines += ["", f"Example, for target Lightning {example.target}{origin}:", "", "  before:"]
        lines.append(textwrap.indent(example.before, "    ").rstrip("\n"))
        if example.after is not None:
            lines += ["", "  after:", textwrap.indent(example.after, "    ").rstrip("\n")]
        else:
            lines += ["", "  after: unchanged (reported, not rewritten)"]
    return "\n".join(lines)
