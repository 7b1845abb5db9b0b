"""SARIF 2.1.0 (OASIS), the format GitHub code scanning and other dashboards read. One run, every rule
described in ``tool.driver.rules``; files that could not be processed are tool execution notifications."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from lightning_migrate.report.findings import Finding
from lightning_migrate.report.rules import RULES, Rule
from lightning_migrate.run.runner import FileResult

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_INDEX = {rule.code: index for index, rule in enumerate(RULES)}


def sarif_log(results: Sequence[FileResult], version: str) -> dict[str, Any]:
    errors = [r for r in results if r.error]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "lightning-migrate",
                        "version": version,
                        "rules": [_rule(rule) for rule in RULES],
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not errors,
                        "toolExecutionNotifications": [_error(r) for r in errors],
                    }
                ],
                "columnKind": "unicodeCodePoints",  # LibCST counts characters, not UTF-16 units
                "results": [_result(r, f) for r in results for f in r.findings],
            }
        ],
    }


def _rule(rule: Rule) -> dict[str, Any]:
    described: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "defaultConfiguration": {"level": "error"},
        "properties": {"fixable": rule.fixable},
    }
    if rule.dates():
        described["fullDescription"] = {"text": f"{rule.title} ({rule.dates('Lightning ')})"}
    if rule.link:
        described["helpUri"] = rule.link
    return described


def _location(result: FileResult, line: int, column: int) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": quote(result.path.as_posix())}}
    if line:
        physical["region"] = {"startLine": line, "startColumn": max(column, 1)}
    return {"physicalLocation": physical}


def _result(result: FileResult, finding: Finding) -> dict[str, Any]:
    """A finding in a notebook is located in the notebook's JSON text (what a diff shows); its cell is named
    in the message and, for tools, in a logical location and the properties."""
    location = _location(result, finding.line, finding.column)
    properties: dict[str, Any] = {"fixable": finding.fixable}
    prefix = ""
    if finding.cell is not None:
        number, line, column = finding.cell
        prefix = f"{finding.in_cell}: "
        location["logicalLocations"] = [{"name": f"cell {number}", "kind": "module"}]
        properties.update(cell=number, cellLine=line, cellColumn=column)
    if finding.details:  # (for tools: the evidence item by item, as the json format's "details")
        properties["details"] = list(finding.details)
    if finding.remedy:  # (the flag whose run would fix it)
        properties["remedy"] = finding.remedy
    return {
        "ruleId": finding.code,
        "ruleIndex": _INDEX[finding.code],
        "level": "error",
        "message": _message(prefix + finding.message, finding.details),
        "locations": [location],
        "properties": properties,
    }


def _message(text: str, details: Sequence[str]) -> dict[str, Any]:
    """The one-line message as ``text``; with evidence, a ``markdown`` form too (SARIF 2.1.0 §3.11.4: a
    viewer that renders Markdown shows it instead of ``text``, so it repeats the line), the details as a
    list under it."""
    if not details:
        return {"text": text}
    listed = "\n".join(f"- {' '.join(detail.split())}" for detail in details)
    return {"text": text, "markdown": f"{text}\n\n{listed}"}


def _error(result: FileResult) -> dict[str, Any]:
    return {
        "level": "error",
        "message": {"text": result.error},
        "locations": [_location(result, result.error_line, result.error_column)],
    }
