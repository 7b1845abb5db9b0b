"""Source as bytes on disk: regular files only, up to a size limit; Python decoded per PEP 263 (cookie, BOM),
the other kinds as UTF-8 (BOM kept); encoded back the same way, written atomically. Line endings and the
trailing newline are never touched: the text keeps them, so does LibCST."""

from __future__ import annotations

import codecs
import io
import os
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path


class SourceError(Exception):
    """A file that cannot be read, decoded or parsed; ``line`` and ``column`` are 1-based (0: unknown)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.line, self.column = line, column


@dataclass(frozen=True)
class Source:
    text: str
    encoding: str  # a codec name: "utf-8-sig" when the file starts with a BOM

    def encode(self, text: str) -> bytes:
        try:
            return text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            raise SourceError(f"the new text cannot be written as {self.encoding}: {exc.reason}") from exc


def decode(data: bytes, python: bool = True) -> Source:
    """Decode the bytes of a Python file the way the interpreter does; those of another kind (YAML, Markdown,
    a shell script, a notebook's JSON) as UTF-8: a PEP 263 cookie is Python's alone, and a Markdown file's
    first line `# Decoding: the guide` names no codec."""
    if not python:
        return _decode(data, "utf-8-sig" if data.startswith(codecs.BOM_UTF8) else "utf-8")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # an unknown codec in the cookie, or a cookie that contradicts the BOM
        raise SourceError(f"cannot decode: {exc.msg}", _cookie_line(data)) from exc
    return _decode(data, encoding)


def _decode(data: bytes, encoding: str) -> Source:
    try:
        return Source(data.decode(encoding), encoding)
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line, column = data.count(b"\n", 0, exc.start) + 1, exc.start - line_start + 1
        raise SourceError(f"cannot decode as {encoding}: {exc.reason}", line, column) from exc


def _cookie_line(data: bytes) -> int:
    return 2 if data.split(b"\n", 1)[0].startswith(b"#!") else 1


def read(path: Path, python: bool = True) -> tuple[bytes, Source]:
    data = read_bytes(path)
    return data, decode(data, python)


# No source file is this large (Lightning's biggest module is under 200 KiB, a notebook with its outputs a few
# MiB): what is, is not read, so a hostile or generated file cannot take a CI runner's memory.
MIB = 1024 * 1024
MAX_BYTES = 32 * MIB

# What a path that is not a regular file is, in words (`stat.S_IFMT`).
_NOT_REGULAR = {
    stat.S_IFDIR: "a folder",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFSOCK: "a socket",
}


def read_bytes(path: Path, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file ``path`` (a symbolic link to one is fine). Anything else is an error
    before it is opened (reading /dev/zero never ends, opening a FIFO waits for a writer), and so is a file
    over ``limit`` bytes; the file is opened without blocking and checked again, in case it was swapped."""
    try:
        _check_regular(os.stat(path), limit)
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with os.fdopen(descriptor, "rb") as handle:
            _check_regular(os.fstat(handle.fileno()), limit)
            data = handle.read(limit + 1)  # (a file that grows while it is read stops at the limit too)
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from exc
    if len(data) > limit:
        raise SourceError(_too_large(limit))
    return data


def _check_regular(status: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(status.st_mode):
        kind = _NOT_REGULAR.get(stat.S_IFMT(status.st_mode), "not a regular file")
        raise SourceError(f"cannot read: {kind}, not a source file")
    if status.st_size > limit:
        raise SourceError(_too_large(limit))


def _too_large(limit: int) -> str:
    size = f"{limit // MIB} MiB" if limit % MIB == 0 else f"{limit:,} bytes"
    return f"cannot read: larger than the {size} limit for a source file"


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path``'s contents in one step (a temporary file in the same folder, then a rename), keeping
    its permission bits. A symbolic link is followed: the file it points to is replaced, the link stays."""
    import tempfile  # (only for a run that writes: with `random`, a few ms of every run's start-up)

    target = path.resolve()
    mode = stat.S_IMODE(target.stat().st_mode)
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
