"""Replay a recording of a real release (``harness.py out.json``) against the model, without Lightning.

    python tests/real/replay.py /tmp/rec/pl149.json [-v]

Prints each kind of disagreement once, with how often it occurs and one example. For working on the model;
the tests themselves always build the real Trainer.
"""

from __future__ import annotations

import collections
import json
import sys

from grid import HARDWARE, cases
from harness import normalize, outcome_to_json

from lightning_migrate.semantics import interpret
from lightning_migrate.semantics.model import Rejected


def predicted(flags: dict, release: str, h: int, namespace: str) -> dict:  # type: ignore[type-arg]
    outcome = interpret(flags, release, HARDWARE[h], namespace).outcome
    if isinstance(outcome, Rejected):
        outcome = Rejected(outcome.error, normalize(outcome.message))
    return outcome_to_json(outcome)


def main() -> None:
    with open(sys.argv[1]) as recording:
        data = json.load(recording)
    grid = list(cases())
    diffs: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    for record in data["records"]:
        flags = grid[record["case"]]
        model = predicted(flags, data["release"], record["hw"], data.get("namespace", "pytorch_lightning"))
        if model != record["real"]:
            key = (json.dumps(record["real"]), json.dumps(model))
            diffs[key].append(f"{HARDWARE[record['hw']].describe()}: {flags}")
    total = len(data["records"])
    wrong = sum(len(x) for x in diffs.values())
    for (real, model), examples in sorted(diffs.items(), key=lambda kv: -len(kv[1])):
        print(f"\n{len(examples)}x  e.g. {examples[0]}")
        print(f"   real : {real}")
        print(f"   model: {model}")
        if "-v" in sys.argv:
            for example in examples[1:6]:
                print(f"          also {example}")
    print(f"\n{data['release']}: {total - wrong}/{total} agree, {len(diffs)} kinds of disagreement")


if __name__ == "__main__":
    main()
