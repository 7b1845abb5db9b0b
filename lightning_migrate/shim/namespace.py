"""One Lightning namespace under the shim: its shim ``Trainer`` subclass and ``install``/``uninstall``."""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable, List, Optional, Union  # noqa: UP035 (the types old argparse readers know)

from lightning_migrate.semantics.translate import TRANSLATED
from lightning_migrate.shim import removed, resume, runtime

# The types of the keywords the shim adds to a release's signature, as the releases that have them annotate
# them: `Trainer.add_argparse_args` (1.x) skips a keyword without a str/int/bool type, and jsonargparse
# (LightningCLI) checks a config value against it. typing's spelling: older jsonargparse reads no `X | Y`.
DEVICES_TYPE = Optional[Union[List[int], str, int]]  # noqa: UP006
ADDED_TYPES: dict[str, Any] = {
    "strategy": Optional[str],
    "devices": DEVICES_TYPE,
    "gpus": DEVICES_TYPE,
    "tpu_cores": DEVICES_TYPE,
    "ipus": Optional[int],
    "num_processes": Optional[int],
    "distributed_backend": Optional[str],
    resume.KEYWORD: Optional[Union[str, Path]],  # (1.9.5: `Optional[Union[Path, str]]`)
    # (1.5.10's annotations)
    "checkpoint_callback": Optional[bool],
    "progress_bar_refresh_rate": Optional[int],
    "process_position": int,
    "weights_summary": Optional[str],
    "flush_logs_every_n_steps": Optional[int],
    "stochastic_weight_avg": bool,
    "move_metrics_to_cpu": bool,
}
# The defaults the signature gives the keywords it adds (None where not said): 1.5.10's, which the shim drops
# (`from_argparse_args` passes every option, LightningCLI every key of its config)
ADDED_DEFAULTS: dict[str, Any] = {
    "process_position": 0,
    "weights_summary": "top",
    "stochastic_weight_avg": False,
    "move_metrics_to_cpu": False,
}
# The keywords the shim's signature offers where the release lacks them: the flags it translates,
# `resume_from_checkpoint=`, which it keeps for `fit` (see `resume`), and the other removed keywords it reads
# as 1.5 did (see `removed`)
ADDED = TRANSLATED | {resume.KEYWORD} | removed.KEYWORDS_TAKEN

# `warnings.warn` points at the user's `Trainer(...)`: past _warn, translated_kwargs, translate, __init__
STACKLEVEL = 2


class ShimmedNamespace:
    """The shim for ``pytorch_lightning`` or ``lightning.pytorch``; ``module`` is the public module that
    exposes it (``Trainer`` pickles by that module's name, which ddp_spawn needs)."""

    def __init__(self, namespace: str, module: str) -> None:
        self.namespace = namespace
        self.module = module
        self._trainer: type | None = None
        self._saved_init: Callable[..., None] | None = None  # the real __init__ while installed
        self._saved_fit: Callable[..., Any] | None = None  # the real fit, where install() replaced it

    def base(self) -> type:
        trainer: type = runtime.load(self.namespace).Trainer
        return trainer

    def original_init(self) -> Callable[..., None]:
        init: Callable[..., None] = self._saved_init or self.base().__dict__["__init__"]
        return init

    def original_fit(self) -> Callable[..., Any]:
        fit: Callable[..., Any] = self._saved_fit or self.base().__dict__["fit"]
        return fit

    def translate(self, kwargs: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
        return runtime.translated_kwargs(self.namespace, kwargs, defaults, STACKLEVEL + 1)

    def trainer(self) -> type:
        """A real subclass of the installed Trainer whose constructor translates its flags."""
        if self._trainer is None:
            # the real __init__ is looked up per call: while installed, the saved one (no second translation)
            __init__ = _translating(self, self.original_init)
            __init__.__doc__ = self.original_init().__doc__
            namespace: dict[str, Any] = {
                "__init__": __init__,
                "__module__": self.module,
                "__qualname__": "Trainer",
            }
            namespace.update(self._resuming())
            self._trainer = type("Trainer", (self.base(),), namespace)
        return self._trainer

    def _resuming(self) -> dict[str, Any]:
        """Where the release removed `resume_from_checkpoint=`: the `fit` and the attribute that keep 1.x's
        reading of it (``resume``)."""
        if not resume.removed(self.original_init()):
            return {}
        fit = functools.wraps(self.original_fit())(resume.fitting(self.namespace, self.original_fit))
        return {"fit": fit, resume.KEYWORD: property(resume.pending_path)}

    @property
    def is_installed(self) -> bool:
        return self._saved_init is not None

    def install(self) -> None:
        """Patch the installed ``Trainer.__init__`` in place (``from_argparse_args``, ``LightningCLI`` and
        ``Trainer(**cfg)`` then build translated trainers). Installing twice is a no-op."""
        if self.is_installed:
            return
        base = self.base()
        original = base.__dict__["__init__"]
        __init__ = functools.wraps(original)(_translating(self, lambda: original))
        __init__.__signature__ = extended_signature(original)  # type: ignore[attr-defined]
        self._saved_init = original
        base.__init__ = __init__  # type: ignore[misc]
        resuming = self._resuming()
        if resuming:
            self._saved_fit = base.__dict__["fit"]
            for name, value in resuming.items():
                setattr(base, name, value)

    def uninstall(self) -> None:
        """Put the installed ``Trainer.__init__`` back exactly as it was."""
        if self._saved_init is None:
            return
        base = self.base()
        base.__init__ = self._saved_init  # type: ignore[misc]
        self._saved_init = None
        if self._saved_fit is not None:
            base.fit = self._saved_fit  # type: ignore[attr-defined]
            delattr(base, resume.KEYWORD)
            self._saved_fit = None

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """``with installed(): ...`` installs the shim for the block and restores what was there."""
        was_installed = self.is_installed
        self.install()
        try:
            yield
        finally:
            if not was_installed:
                self.uninstall()


def _translating(shim: ShimmedNamespace, real_init: Callable[[], Callable[..., None]]) -> Callable[..., None]:
    """A Trainer ``__init__`` that translates its flags and calls ``real_init()`` with them (the signature
    carries the shim's extra flags)."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init = real_init()
        args, kwargs = _by_name(init, args, kwargs)
        kwargs, path = resume.taken(init, kwargs)
        kwargs, said = removed.taken(shim.namespace, init, kwargs)
        init(self, *args, **shim.translate(kwargs, release_defaults(init)))
        for message in said:
            runtime.warn_deprecated(message, shim.namespace, STACKLEVEL)
        if path is not None:
            runtime.warn_deprecated(resume.message(path), shim.namespace, STACKLEVEL)
            setattr(self, resume.ATTRIBUTE, path)

    __init__.__signature__ = extended_signature(real_init())  # type: ignore[attr-defined]
    return __init__


def _by_name(init: Callable[..., None], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Positional arguments bound to their names, so a flag given positionally is translated too."""
    if not args:
        return args, kwargs
    signature = inspect.signature(init)
    try:
        bound = signature.bind_partial(None, *args, **kwargs)
    except TypeError:
        return args, kwargs  # the real Trainer raises its own error
    named = dict(bound.arguments)
    named.pop(next(iter(signature.parameters)))
    var_keyword = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
    extra = named.pop("kwargs", {}) if var_keyword else {}
    return (), {**named, **extra}


@functools.cache
def release_defaults(init: Callable[..., None]) -> dict[str, Any]:
    """The installed release's defaults of the translated keywords (``devices="auto"`` on 2.x): a call
    that passes one of them does not give that flag (see ``translate.given_flags``)."""
    parameters = inspect.signature(init).parameters.items()
    return {k: p.default for k, p in parameters if k in TRANSLATED and p.default is not p.empty}


def extended_signature(init: Callable[..., None]) -> inspect.Signature:
    """The installed ``__init__`` signature plus the flags the shim accepts that this release lacks
    (``strategy`` on 1.4, ``distributed_backend``/``gpus``/``resume_from_checkpoint`` on 2.x):
    ``from_argparse_args`` and ``LightningCLI`` read the signature to decide which arguments to pass."""
    signature = inspect.signature(init)
    params = list(signature.parameters.values())
    var_keyword = [p for p in params if p.kind is p.VAR_KEYWORD]
    params = [p for p in params if p.kind is not p.VAR_KEYWORD]
    missing = sorted(ADDED - set(signature.parameters))
    params += [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=ADDED_DEFAULTS.get(name),
            annotation=ADDED_TYPES.get(name, Any),
        )
        for name in missing
    ]
    return signature.replace(parameters=params + var_keyword)


def module_getattr(shimmed: ShimmedNamespace, name: str) -> Any:
    """``Trainer`` is built on first use, so that importing the shim never imports Lightning."""
    if name == "Trainer":
        return shimmed.trainer()
    raise AttributeError(f"module {shimmed.module!r} has no attribute {name!r}")
