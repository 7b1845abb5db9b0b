"""Python source as bytes on disk: decoded per PEP 263 (cookie, BOM), encoded back the same way, written
atomically. Line endings and the trailing newline are never touched: the text keeps them, so does LibCST."""

from __future__ import annotations

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


def decode(data: bytes) -> Source:
    """Decode the bytes of a Python file the way the interpreter does."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # an unknown codec in the cookie, or a cookie that contradicts the BOM
        raise SourceError(f"cannot decode: {exc.msg}", _cookie_line(data)) from exc
    try:
        return Source(data.decode(encoding), encoding)
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line, column = data.count(b"\n", 0, exc.start) + 1, exc.start - line_start + 1
        raise SourceError(f"cannot decode as {encoding}: {exc.reason}", line, column) from exc


def _cookie_line(data: bytes) -> int:
    return 2 if data.split(b"\n", 1)[0].startswith(b"#!") else 1


def read(path: Path) -> tuple[bytes, Source]:
    data = read_bytes(path)
    return data, decode(data)


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from exc


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
