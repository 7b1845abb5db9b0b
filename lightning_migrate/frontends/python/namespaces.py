"""An argparse namespace handed to the Trainer: ``Trainer.from_argparse_args(args, gpus=2, ...)``.

1.x's ``Trainer.add_argparse_args`` adds an option for every Trainer keyword, so the namespace holds every
flag, each whatever the command line gives; ``from_argparse_args`` passes them all, then the call's own
keywords over them. The defaults are one command line among many: ``from_argparse_args(args,
distributed_backend="ddp")`` trained DDP on four GPUs when run with ``--gpus 4``, so rewriting its keyword as
if the namespace held defaults only (``strategy="single_device"``) would change what a cluster run does.

No rewrite of such a call is proven for every command line (every flag of the namespace over its values,
with the call's own keywords): the codemod reports it (LM101) and never rewrites it, and ``counterexample``
says what the rewrite a call without the namespace would get does wrong for one command line. The search
varies one namespace flag at a time over the words the command line may give it (typed as the parser types
them), on every machine, for every source release: a single option is how a launch command differs from the
defaults, and one is enough to show that a rewrite is wrong.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from lightning_migrate.frontends.shell.command_line import NotAValue, argparse_value
from lightning_migrate.plan.decide import plan
from lightning_migrate.plan.domains import DOMAINS
from lightning_migrate.plan.knowledge import unique
from lightning_migrate.plan.planner import Refusal, Rewrite, _behaviour, comparable, difference
from lightning_migrate.semantics.model import RELEASES, Value, Version
from lightning_migrate.semantics.signature import DEFAULTS, MODELLED, accepts

# The words a launch command gives the flags that take names (a training type or a device); the others take
# the words of their domain (``domains.DOMAINS``).
NAMED_WORDS: dict[str, tuple[str, ...]] = {
    "accelerator": ("gpu", "cpu", "ddp", "ddp_spawn", "ddp_cpu", "dp", "ddp2", "tpu"),
    "distributed_backend": ("ddp", "ddp_spawn", "dp", "ddp2"),
    "strategy": ("ddp", "ddp_spawn", "dp", "ddp_find_unused_parameters_false"),
    "plugins": ("ddp_sharded", "ddp_find_unused_parameters_false"),
}


def command_line_values(flag: str) -> list[tuple[str, Value]]:
    """(word, value) for each word of ``flag`` a command line may give, as the 1.x parser types it."""
    words = NAMED_WORDS.get(flag) or tuple(
        str(value).replace(" ", "").strip("[]") for value in DOMAINS.get(flag, ()) if value is not None
    )
    out = []
    for word in unique(words):
        try:
            out.append((str(word), argparse_value(flag, str(word))))
        except NotAValue:
            continue
    return out


# The options a launch command sets most, tried first: the counterexample a finding quotes is then the
# command line its reader most likely runs (`--gpus 4`), not an exotic one.
FIRST = ("gpus", "num_processes", "tpu_cores", "devices", "num_nodes", "accelerator", "strategy", "plugins")


def _variations(flags: Mapping[str, Value], sources: tuple[Version, ...]) -> Iterator[tuple[str, str, Value]]:
    """(flag, word, value): one namespace flag the call does not pass itself, set from the command line."""
    for flag in sorted(
        MODELLED - set(flags), key=lambda f: (FIRST.index(f) if f in FIRST else len(FIRST), f)
    ):
        if not any(accepts(flag, release) for release in sources):
            continue  # the parser of the releases the script ran on has no such option
        for word, value in command_line_values(flag):
            if value not in DEFAULTS.get(flag, ()):
                yield flag, word, value


def counterexample(
    flags: Mapping[str, Value], target: Version, source: Version | None, since: Version = RELEASES[0]
) -> str | None:
    """Where the rewrite ``flags`` would get without a namespace breaks beside one: the command line, and
    what the target would build then instead of what the old call built; None when there is no such
    rewrite, or one command-line option does not break it."""
    decision = plan(flags, target, source, False, since)
    if not isinstance(decision, Rewrite):
        return None
    sources = (source,) if source else tuple(r for r in RELEASES if since <= r < target) or (since,)
    found = []
    for flag, word, value in _variations(flags, sources):
        behaviour = _behaviour({flag: value, **flags}, sources)
        if isinstance(behaviour, Refusal):
            continue  # a command line the old script failed on, or whose meaning the releases disagree on
        new: dict[str, Value] = {flag: value, **decision.flags}  # type: ignore[dict-item]  # (all known)
        broken = difference(new, behaviour[0], target, comparable, frozenset({flag}))
        if broken is not None:
            found.append((flag, word, *broken))
            if _silent(broken[1]):
                break
    if not found:
        return None
    # a run that trains otherwise, without a word, says it best; else the first that breaks
    flag, word, machine, instead = next((f for f in found if _silent(f[3])), found[0])
    instead = instead.split(". ")[0].split("! ")[0]  # an error's first sentence says it
    rewritten = ", ".join(f"{k}={val!r}" for k, val in decision.flags.items())
    return (
        f"`{rewritten}` would be wrong for a run with `--{flag} {word}`: on {machine.describe()},"
        f" Lightning {target} {'' if instead.startswith('raises ') else 'gives '}{instead}"
    )


def _silent(instead: str) -> bool:
    """Does the rewrite train otherwise there (rather than raise, or build where the old call raised)?"""
    return not instead.startswith(("raises", "a deprecation")) and not instead.endswith(
        "where the call raised"
    )
    return None
