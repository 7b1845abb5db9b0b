"""The rule for calls with values known only at run time (``Run.old_api``): written in the target's own form
they get no finding whatever the values are; LM101 is for calls that show a sign of the old API."""

from __future__ import annotations

import pytest

from lightning_migrate.plan.callsite import LIGHTNING_PACKAGE, UNPACKED, CallSite, Run
from lightning_migrate.semantics import interpret
from lightning_migrate.semantics.model import RELEASES, Hardware, Obj, release
from lightning_migrate.semantics.signature import DEPRECATED_KEYWORDS, accepts

OLD = RELEASES[0]
# (known flags, unknown flags -> class, the oldest release the call may be for, target, the sign, or None)
CASES = [
    # the target's own form: nothing to say
    ({}, {"strategy": None, "accelerator": None}, OLD, "2.6", None),
    ({"devices": 2}, {"strategy": None, "accelerator": None}, OLD, "2.6", None),
    ({}, {"accelerator": None, "devices": None}, OLD, "2.6", None),
    ({"accelerator": "gpu"}, {"devices": None, "precision": None}, OLD, "2.6", None),
    ({"strategy": "deepspeed_stage_2"}, {"devices": None}, OLD, "2.6", None),
    ({}, {"num_nodes": None, "sync_batchnorm": None}, OLD, "2.6", None),
    ({}, {"strategy": "DDPStrategy"}, OLD, "2.6", None),
    # written with `lightning.pytorch`: from 1.8, where `accelerator=` names hardware only
    ({}, {"accelerator": None}, LIGHTNING_PACKAGE, "2.6", None),
    ({}, {UNPACKED: None}, LIGHTNING_PACKAGE, "2.6", None),
    ({}, {"plugins": None}, LIGHTNING_PACKAGE, "2.6", None),
    # a keyword the target lacks or deprecates
    ({}, {"gpus": None}, OLD, "2.6", "Lightning 2.6.6 has no `gpus=`"),
    ({}, {"gpus": None}, OLD, "1.7", "Lightning 1.7.7 deprecates `gpus=`"),
    ({}, {"gpus": None}, OLD, "1.6", None),
    ({"gpus": 2}, {"precision": None}, OLD, "2.6", "has no `gpus=`"),
    ({}, {"distributed_backend": None}, OLD, "1.5", "Lightning 1.5.10 has no `distributed_backend=`"),
    ({}, {"auto_select_gpus": None, "devices": None}, OLD, "1.9", "deprecates `auto_select_gpus=`"),
    # a class the target renamed or lacks
    ({}, {"strategy": "DDPPlugin"}, OLD, "1.6", "`DDPPlugin` is renamed in Lightning 1.6.5"),
    ({}, {"strategy": "DDPPlugin"}, OLD, "2.6", "`DDPPlugin` is gone from Lightning 2.6.6"),
    ({}, {"plugins": "DDPPlugin"}, OLD, "1.5", "`plugins=` could hold a training type"),
    # a known value that is old usage on its own
    ({"accelerator": "ddp"}, {"devices": None}, OLD, "2.6", "`accelerator='ddp'` is old usage"),
    (
        {"plugins": [Obj.of("DDPPlugin")]},
        {"devices": None},
        OLD,
        "2.6",
        "`plugins=[DDPPlugin()]` is old usage",
    ),
    # a training type may hide in an unknown `accelerator=`/`plugins=`/`**` of a call without the new API
    (
        {},
        {"accelerator": None},
        OLD,
        "2.6",
        "up to Lightning 1.6.5, `accelerator=` could hold a training type",
    ),
    ({"num_nodes": 2}, {"plugins": None}, OLD, "2.6", "`plugins=` could hold a training type"),
    ({}, {UNPACKED: None}, OLD, "2.6", "a `**` dict could hold a training type"),
    ({}, {UNPACKED: None}, OLD, "1.5", "up to Lightning 1.5.10"),
    ({}, {UNPACKED: None, "strategy": None}, OLD, "2.6", None),
    # where the target itself takes a training type there, that is its own form (1.4: `accelerator="ddp"`)
    ({"gpus": 2}, {"accelerator": None}, OLD, "1.4", None),
    ({}, {"plugins": None}, OLD, "1.4", None),
    ({}, {UNPACKED: None}, OLD, "1.4", None),
    ({}, {"accelerator": None}, OLD, "1.5", "up to Lightning 1.5.10, `accelerator=` could hold"),
]


def test_a_call_for_an_older_release_is_reported() -> None:
    """``--source-version 1.9``: ``accelerator="cpu", devices=n`` was ddp_spawn there for n > 1, ddp in
    2.x."""
    site = CallSite(1, 1, {"accelerator": "cpu"}, OLD, {"devices": None})
    assert Run(release("2.6")).old_api(site) is None
    assert "for Lightning 1.9.5" in (Run(release("2.6"), release("1.9")).old_api(site) or "")
    assert Run(release("2.6"), release("2.6")).old_api(site) is None


@pytest.mark.parametrize(("known", "unknown", "since", "target", "sign"), CASES)
def test_old_api(known: dict, unknown: dict, since: object, target: str, sign: str | None) -> None:
    site = CallSite(1, 1, known, since, unknown)  # type: ignore[arg-type]
    said = Run(release(target)).old_api(site)
    if sign is None:
        assert said is None
    else:
        assert said is not None
        assert sign in said


# A value of each deprecated keyword, and a machine that builds it.
PROBES = {
    "distributed_backend": ("ddp", Hardware(cuda=2)),
    "gpus": (1, Hardware(cuda=2)),
    "tpu_cores": (8, Hardware(tpu_cores=8)),
    "ipus": (1, Hardware()),  # (IPU machines are not modelled: the warning comes first)
    "num_processes": (2, Hardware()),
    "auto_select_gpus": (True, Hardware(cuda=2)),
}


@pytest.mark.parametrize("flag", sorted(DEPRECATED_KEYWORDS))
def test_the_deprecated_keywords_are_those_the_model_warns_for(flag: str) -> None:
    """``DEPRECATED_KEYWORDS`` agrees with the model (itself proven against every release) on when a release
    starts to warn for a keyword."""
    value, machine = PROBES[flag]
    for version in RELEASES:
        if not accepts(flag, version):
            continue
        warned = any(d.flag == flag for d in interpret({flag: value}, version, machine).deprecations)
        assert warned == (version >= DEPRECATED_KEYWORDS[flag]), version


@pytest.mark.parametrize(
    ("default", "target", "sign"),
    [
        (None, "2.0", "with its default, `strategy=None`, Lightning 2.0.9 raises ValueError"),
        (None, "2.3", "with its default, `strategy=None`, Lightning 2.3.3 raises ValueError"),
        (None, "2.6", "with its default, `strategy=None`, Lightning 2.6.6 raises ValueError"),
        (None, "1.9", None),  # 1.x took None for "no strategy given"
        ("auto", "2.6", None),
        ("ddp", "2.6", None),
    ],
)
def test_a_parameters_default_is_a_value_the_file_writes(
    default: object, target: str, sign: str | None
) -> None:
    """`def build(strategy: Optional[str] = None): Trainer(strategy=strategy)`: every call that leaves the
    argument out passes the default, so a default the target rejects is a sign (the flag has no domain)."""
    site = CallSite(1, 1, {}, LIGHTNING_PACKAGE, {"strategy": None}, defaults={"strategy": default})
    found = Run(release(target)).old_api(site)
    assert found == sign if sign is None else found is not None and found.startswith(sign)
