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
    if rule.fixable:
        lines.append("Fix: automatic (behaviour-preserving, checked with the model).")
    elif rule.todo:
        lines += ["Fix: not automatic; the call is left as it is and reported.", f"What to do: {rule.todo}."]
    else:
        lines.append("Fix: none; the call is left as it is and reported.")
    example = EXAMPLES.get(rule.code)
    if example:
        origin = f" (fixtures/{example.fixture}.py)" if example.fixture else ""
        lines += ["", f"Example, for target Lightning {example.target}{origin}:", ""]
        lines += _block("before:", example.before)
        if example.edited is not None:
            lines += ["", *_block("written by hand instead:", example.edited)]
        if example.after is not None:
            said = f"after, with `{' '.join(example.flags)}`:" if example.flags else "after:"
            lines += ["", *_block(said, example.after)]
        else:
            lines += ["", "  after: unchanged (reported, not rewritten)"]
    return "\n".join(lines)


def _block(title: str, code: str) -> list[str]:
    return [f"  {title}", textwrap.indent(code, "    ").rstrip("\n")]
