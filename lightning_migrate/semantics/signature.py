"""The hardware/distribution keywords of ``Trainer.__init__``, release by release (spec section 2)."""

from __future__ import annotations

from lightning_migrate.semantics.model import Version, v

# flag -> (first release with it, first release without it)
TRAINER_FLAGS: dict[str, tuple[Version, Version | None]] = {
    "accelerator": (v("1.4"), None),
    "strategy": (v("1.5"), None),
    "distributed_backend": (v("1.4"), v("1.5")),
    "plugins": (v("1.4"), None),
    "devices": (v("1.4"), None),
    "num_nodes": (v("1.4"), None),
    "gpus": (v("1.4"), v("2.0")),
    "tpu_cores": (v("1.4"), v("2.0")),
    "ipus": (v("1.4"), v("2.0")),
    "num_processes": (v("1.4"), v("2.0")),
    "auto_select_gpus": (v("1.4"), v("2.0")),
    "sync_batchnorm": (v("1.4"), None),
    "precision": (v("1.4"), None),
    "amp_backend": (v("1.4"), v("2.0")),
    "amp_level": (v("1.4"), v("2.0")),
    "replace_sampler_ddp": (v("1.4"), v("2.0")),
    "use_distributed_sampler": (v("2.0"), None),
}

# The last release that removed one of them: from it on, every release takes the same keywords.
LAST_REMOVAL: Version = max(gone for _, gone in TRAINER_FLAGS.values() if gone is not None)

# The hardware/distribution keywords a release deprecates (it warns for every value the user sets) before it
# removes them: passing one is old usage whatever its value (spec section 1).
DEPRECATED_KEYWORDS: dict[str, Version] = {
    "distributed_backend": v("1.4"),
    "gpus": v("1.7"),
    "tpu_cores": v("1.7"),
    "ipus": v("1.7"),
    "num_processes": v("1.7"),
    "auto_select_gpus": v("1.9"),
}

# The class methods of the Trainer that 2.0 removed with nothing in their place (#16708): a 1.x script builds
# its command line with them. The first three have a function in the runtime shim that works on every release
# (``lightning_migrate.shim.add_argparse_args(parser)``, ``parse_argparser(parser)``,
# ``from_argparse_args(Trainer, args, **overrides)``).
REMOVED_METHODS: dict[str, Version] = {
    "add_argparse_args": v("2.0"),
    "parse_argparser": v("2.0"),
    "from_argparse_args": v("2.0"),
    "default_attributes": v("2.0"),
    "match_env_arguments": v("2.0"),
}
SHIM_METHODS = frozenset({"add_argparse_args", "parse_argparser", "from_argparse_args"})

# Every default each flag has had in a release's `Trainer.__init__` signature (read from the wheels;
# `tests/real/test_registry.py` checks the installed release's). A config dict or an argparse namespace
# passes a flag nobody set at one of these.
DEFAULTS: dict[str, tuple[object, ...]] = {
    "accelerator": (None, "auto"),
    "strategy": (None, "auto"),
    "distributed_backend": (None,),
    "plugins": (None,),
    "devices": (None, "auto"),
    "num_nodes": (1,),
    "gpus": (None,),
    "tpu_cores": (None,),
    "ipus": (None,),
    "num_processes": (1, None),
    "auto_select_gpus": (False, None),
    "sync_batchnorm": (False,),
    "precision": (32, "32-true", None),
    "amp_backend": ("native", None),
    "amp_level": ("O2", None),
    "replace_sampler_ddp": (True,),
    "use_distributed_sampler": (True,),
}


# Default values whose equality is sameness: a user's object is never taken for a default, even if its
# `__eq__` says so.
DEFAULT_SCALARS = (str, int, float, bool)


def equals_default(value: object, default: object) -> bool:
    """``value`` is the keyword's ``default``: no choice of the user's (a bool is never taken for an int
    default). LightningCLI, jsonargparse, `Trainer.from_argparse_args`, Hydra's `instantiate` of a full
    config and config dicts pass every keyword of the signature, each at its default unless set."""
    if value is default:
        return True
    return isinstance(default, DEFAULT_SCALARS) and type(value) is type(default) and value == default


def is_default(flag: str, value: object) -> bool:
    """``value`` is a default ``flag`` had in some release."""
    return any(equals_default(value, default) for default in DEFAULTS.get(flag, ()))


# The flags the model interprets; any other Trainer keyword (max_epochs, logger, ...) is irrelevant to it.
MODELLED = frozenset(TRAINER_FLAGS)


def accepts(flag: str, version: Version) -> bool:
    since, until = TRAINER_FLAGS[flag]
    return since <= version and (until is None or version < until)


def current(flag: str, version: Version) -> bool:
    """``version`` has the keyword and does not deprecate it."""
    deprecated = DEPRECATED_KEYWORDS.get(flag)
    return accepts(flag, version) and (deprecated is None or version < deprecated)
