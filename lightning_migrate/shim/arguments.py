"""``Trainer.add_argparse_args``, ``parse_argparser`` and ``from_argparse_args`` on every release, 1.4 to 2.x.

Lightning 2.0 removed the three class methods (#16708) that 1.x scripts build their command line with. The
shim keeps them as functions, bound to one Lightning namespace (``lightning_migrate.shim`` and
``lightning_migrate.shim.lightning`` export them):

- ``add_argparse_args(parser)`` adds an option for every keyword of the Trainer's signature, as the 1.x parser
  did, plus the flags the shim translates (``--gpus``, ``--num_processes``, ``--distributed_backend``, ... on
  2.x; ``--strategy`` on 1.4). A 1.x release's own method builds the parser (its types, its help); on 2.x the
  same rules, as 1.9.5 wrote them, read the installed signature.
- ``parse_argparser(parser)`` parses the command line as 1.x did (a bare ``--flag`` of a bool is True).
- ``from_argparse_args(Trainer, args, **overrides)`` passes the namespace's Trainer keywords and the
  overrides (which win) to a Trainer that translates them: the shim's ``Trainer`` for Lightning's own class,
  the user's subclass with the shim installed while it is built.
"""

from __future__ import annotations

import inspect
import typing
from argparse import ArgumentParser, Namespace, _ArgumentGroup
from collections.abc import Callable
from typing import Any, Union

from lightning_migrate.shim.namespace import ShimmedNamespace

ALLOWED_TYPES = (str, int, float, bool)  # an option is made only of a keyword with one of these types
IGNORED = ("self", "args", "kwargs")
ArgumentContainer = Union[ArgumentParser, _ArgumentGroup]


def add_argparse_args(
    shim: ShimmedNamespace, parent_parser: ArgumentParser, trainer_class: type | None = None, **kwargs: Any
) -> ArgumentContainer:
    """Add the Trainer's options to ``parent_parser`` (``use_argument_group=False``: return a new parser
    with them, as 1.x did); ``trainer_class``: a subclass of the Trainer whose signature to read."""
    cls = _trainer(shim, trainer_class)
    native = getattr(shim.base(), "add_argparse_args", None)
    with shim.installed():  # a subclass reads the shim's extended signature through its base
        if native is not None:
            parser: ArgumentContainer = cls.add_argparse_args(parent_parser, **kwargs)
            return parser
        added: ArgumentContainer = _add_arguments(cls, parent_parser, **kwargs)
        return added


def parse_argparser(
    shim: ShimmedNamespace, arg_parser: ArgumentParser | Namespace, trainer_class: type | None = None
) -> Namespace:
    """The command line (or a namespace already parsed) with a bare ``--flag`` of a bool keyword read as
    True, as 1.x's ``Trainer.parse_argparser``."""
    args = arg_parser.parse_args() if isinstance(arg_parser, ArgumentParser) else arg_parser
    with shim.installed():
        types = {name: (kinds, default) for name, kinds, default in _arguments(_trainer(shim, trainer_class))}
    parsed = {}
    for key, value in vars(args).items():
        kinds, default = types.get(key, ((), None))
        parsed[key] = True if value is None and bool in kinds and isinstance(default, bool) else value
    return Namespace(**parsed)


def from_argparse_args(
    shim: ShimmedNamespace, trainer_class: type, args: ArgumentParser | Namespace, **kwargs: Any
) -> Any:
    """``trainer_class(**flags)``: the namespace's values of the keywords its signature has (the shim's
    flags included), then ``kwargs`` over them, translated by the shim."""
    if isinstance(args, ArgumentParser):
        args = parse_argparser(shim, args, trainer_class)
    params = vars(args)
    cls = _trainer(shim, trainer_class)
    with shim.installed():
        valid = inspect.signature(cls.__init__).parameters
        flags = {name: params[name] for name in valid if name in params and name not in IGNORED}
        flags.update(kwargs)
        return cls(**flags)


def _trainer(shim: ShimmedNamespace, trainer_class: type | None) -> Any:
    """The class to read and build: the shim's Trainer in place of Lightning's own."""
    return shim.trainer() if trainer_class is None or trainer_class is shim.base() else trainer_class


def _arguments(cls: Any) -> list[tuple[str, tuple[Any, ...], Any]]:
    """(keyword, the types its annotation allows, its default) for each keyword of ``cls``'s signature."""
    parameters = inspect.signature(cls).parameters
    try:
        hints = typing.get_type_hints(cls.__init__)
    except Exception:  # an annotation that names what this Python cannot resolve: read them as written
        hints = {}
    out = []
    for name, parameter in parameters.items():
        if name in IGNORED or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        out.append((name, _types(hints.get(name, parameter.annotation)), parameter.default))
    return out


def _types(annotation: Any) -> tuple[Any, ...]:
    """The types a keyword's annotation allows (a ``Literal``'s values' types; a union's members, opened)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return tuple({type(value) for value in typing.get_args(annotation)})
    if origin is Union:
        return tuple(t for arg in typing.get_args(annotation) for t in _types(arg))
    return (annotation,)


def _add_arguments(cls: Any, parent_parser: ArgumentParser, use_argument_group: bool = True) -> Any:
    """1.9.5's ``add_argparse_args`` (``utilities/argparse.py``) over ``cls``'s signature."""
    if isinstance(parent_parser, _ArgumentGroup):
        raise RuntimeError("Please only pass an `ArgumentParser` instance.")
    parser: ArgumentContainer
    if use_argument_group:
        name = f"pl.{cls.__name__}" if cls.__module__.startswith("pytorch_lightning") else cls.__qualname__
        parser = parent_parser.add_argument_group(name)
    else:
        parser = ArgumentParser(parents=[parent_parser], add_help=False)
    for arg, arg_types, default in _arguments(cls):
        kinds = tuple(t for t in ALLOWED_TYPES if t in arg_types)
        if not kinds:
            continue  # a keyword with no type a command line can give (a logger, callbacks)
        extra: dict[str, Any] = {"nargs": "?", "const": True} if bool in kinds else {}
        parser.add_argument(
            f"--{arg}",
            dest=arg,
            default=default,
            type=_option_type(arg, kinds),
            required=default is inspect.Parameter.empty,
            **extra,
        )
    return parent_parser if use_argument_group else parser


def _option_type(arg: str, kinds: tuple[Any, ...]) -> Callable[[str], Any]:
    """How 1.x's parser read a keyword's word: by its types, with its special cases."""
    if arg in ("gpus", "tpu_cores"):
        return _int_unless_list
    if arg == "precision":
        return _int_or_word
    if arg == "track_grad_norm":
        return float
    if set(kinds) == {int, float}:
        return _int_or_float
    if bool not in kinds:
        kind: Callable[[str], Any] = kinds[0]
        return kind
    if len(kinds) == 1:
        return _bool
    if int in kinds:
        return lambda word: _bool_or(word, int)
    if str in kinds:
        return lambda word: _bool_or(word, str)
    other: Callable[[str], Any] = next(t for t in kinds if t is not bool)
    return other


_TRUE = ("y", "yes", "t", "true", "on", "1")
_FALSE = ("n", "no", "f", "false", "off", "0")


def _bool(word: str) -> bool:
    lowered = word.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"Invalid truth value {word}")


def _bool_or(word: str, other: Callable[[str], Any]) -> Any:
    try:
        return _bool(word)
    except ValueError:
        return other(word)


def _int_unless_list(word: str) -> int | str:
    return word if "," in word else int(word)


def _int_or_word(word: str) -> int | str:
    try:
        return int(word)
    except ValueError:
        return word


def _int_or_float(word: str) -> int | float:
    return float(word) if "." in word else int(word)


def bound(shim: ShimmedNamespace) -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]]:
    """The three functions for one namespace's shim: ``add_argparse_args``, ``parse_argparser``,
    ``from_argparse_args``."""

    def add(parent_parser: ArgumentParser, trainer_class: type | None = None, **kwargs: Any) -> Any:
        return add_argparse_args(shim, parent_parser, trainer_class, **kwargs)

    def parse(arg_parser: ArgumentParser | Namespace, trainer_class: type | None = None) -> Namespace:
        return parse_argparser(shim, arg_parser, trainer_class)

    def build(trainer_class: type, args: ArgumentParser | Namespace, **kwargs: Any) -> Any:
        return from_argparse_args(shim, trainer_class, args, **kwargs)

    originals = ((add, add_argparse_args), (parse, parse_argparser), (build, from_argparse_args))
    for function, original in originals:
        function.__name__ = function.__qualname__ = original.__name__
        function.__doc__ = original.__doc__
        function.__module__ = shim.module
    return add, parse, build
