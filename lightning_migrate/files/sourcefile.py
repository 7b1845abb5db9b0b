"""Source as bytes on disk: regular files only, up to a size limit; Python decoded per PEP 263 (cookie, BOM),
the other kinds as UTF-8 (BOM kept); encoded back the same way, written atomically. Line endings and the
trailing newline are never touched: the text keeps them, so does LibCST."""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import re
import signal
import stat
import threading
import tokenize
from collections.abc import Iterator
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
            status = os.fstat(handle.fileno())
            _check_regular(status, limit)
            # the size it has, and one byte more: a read of `limit + 1` bytes allocates them all first (32 MiB
            # for each file: half the time of a read); one that grows while it is read is read on, up to the
            # limit, as one read of `limit + 1` would
            data = handle.read(min(status.st_size, limit) + 1)
            if len(data) > status.st_size:
                data += handle.read(limit + 1 - len(data))
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


@dataclass(frozen=True)
class Stamp:
    """What a path was when it was read: the file it named (device and inode), the link it was if it was a
    symbolic link (discovery takes links to files on purpose: the file they point to is rewritten), and a
    digest of the bytes read. A write goes ahead only where all of this still holds."""

    link: str | None  # the link's text, for a path that was a symbolic link
    device: int
    inode: int
    digest: bytes


def stamp(path: Path, data: bytes) -> Stamp | None:
    """``path``'s stamp for the bytes ``data`` read from it (None: it cannot be looked at: no write)."""
    import hashlib

    try:
        link = os.readlink(path) if path.is_symlink() else None
        status = path.stat()
    except OSError:
        return None
    return Stamp(link, status.st_dev, status.st_ino, hashlib.sha256(data).digest())


class WriteError(Exception):
    """A file that is not written: it changed since it was read, it may not be written, or writing failed."""


# A run's temporary files: a later run recognises them by this pattern (tempfile's random part is 8 letters,
# digits or underscores) and removes those a killed run left beside a file it rewrites.
TEMPORARY = ".{name}.lightning-migrate."
_LEFTOVER = r"\.{name}\.lightning-migrate\.[a-z0-9_]{{8}}\.tmp"


def write_checked(path: Path, data: bytes, read_as: Stamp, started_ns: int) -> None:
    """Replace ``path``'s contents by ``data`` if it still is what was read (``read_as``: the same link or
    regular file, the same inode, the same bytes), else raise ``WriteError`` and leave it alone; ``OSError``
    where writing fails. Atomic (a temporary file in the same folder, synced, then a rename), keeping the
    permission bits, owner and group; a file without write permission is refused. Temporary files of a killed
    run beside it, older than this run (``started_ns``, ``time.time_ns()``), are removed first."""
    target = _target(path, read_as)
    with _opened(target, os.O_RDONLY) as descriptor:
        status = _check(descriptor, read_as)
    if not status.st_mode & 0o222 or not os.access(target, os.W_OK):
        raise WriteError(f"no write permission (mode {stat.S_IMODE(status.st_mode):04o}), left as it was")
    if status.st_nlink > 1:
        # Another name shares this inode: a rename would split them (the other name keeping the old text),
        # and refusing would leave the user to make the same edit by hand. Written in place, as an editor
        # writes a hard-linked file: not atomic, but every name sees the new text.
        _write_in_place(target, data, read_as)
        return
    _remove_leftovers(target, started_ns)
    _replace(target, data, read_as, status)


def _target(path: Path, read_as: Stamp) -> Path:
    """The file to replace: ``path`` itself, or the file the link it still is points to."""
    status = os.lstat(path)
    link = os.readlink(path) if stat.S_ISLNK(status.st_mode) else None
    if link != read_as.link:
        now = "a symbolic link" if link is not None else "no longer the symbolic link it was"
        raise WriteError(f"changed since it was read (it is now {now}), not written")
    return Path(os.path.realpath(path)) if link is not None else path


@contextlib.contextmanager
def _opened(target: Path, flags: int) -> Iterator[int]:
    """``target`` opened, never through a link (``_target`` followed the one that was read)."""
    descriptor = os.open(target, flags | os.O_NOFOLLOW)
    try:
        yield descriptor
    finally:
        os.close(descriptor)


def _check(descriptor: int, read_as: Stamp) -> os.stat_result:
    """The open file's status, once its inode and bytes are checked to be those that were read."""
    import hashlib

    status = os.fstat(descriptor)
    if stat.S_ISREG(status.st_mode) and (status.st_dev, status.st_ino) == (read_as.device, read_as.inode):
        digest = hashlib.sha256()
        os.lseek(descriptor, 0, os.SEEK_SET)
        while chunk := os.read(descriptor, 1 << 20):
            digest.update(chunk)
        if digest.digest() == read_as.digest:
            return status
    raise WriteError("changed since it was read (edited or replaced during the run), not written")


def _write_in_place(target: Path, data: bytes, read_as: Stamp) -> None:
    with _opened(target, os.O_RDWR) as descriptor:
        _check(descriptor, read_as)
        # Ctrl-C waits until the file holds the whole new text (it would otherwise cut it mid-write).
        masked = _block_interrupts()
        try:
            os.lseek(descriptor, 0, os.SEEK_SET)
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view) :]
            os.ftruncate(descriptor, len(data))
            os.fsync(descriptor)
        finally:
            _unblock(masked)


def _block_interrupts() -> bool:
    if threading.current_thread() is not threading.main_thread():
        return False
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    return True


def _unblock(masked: bool) -> None:
    if masked:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _replace(target: Path, data: bytes, read_as: Stamp, status: os.stat_result) -> None:
    import tempfile  # (only for a run that writes: with `random`, a few ms of every run's start-up)

    descriptor, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=TEMPORARY.format(name=target.name), suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), stat.S_IMODE(status.st_mode))
            if os.geteuid() == 0:  # (only root can give a file away; anyone else's files are their own)
                os.fchown(handle.fileno(), status.st_uid, status.st_gid)
            os.fsync(handle.fileno())
        # the last look: the path, the inode and the bytes are still those that were read
        if _target(target, Stamp(None, 0, 0, b"")) != target:
            raise WriteError("changed since it was read (it is now a symbolic link), not written")
        with _opened(target, os.O_RDONLY) as current:
            _check(current, read_as)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _remove_leftovers(target: Path, started_ns: int) -> None:
    """Remove the temporary files a killed run left beside ``target``: only names of ``TEMPORARY``'s exact
    pattern, regular files older than this run."""
    leftover = re.compile(_LEFTOVER.format(name=re.escape(target.name)))
    try:
        names = [name for name in os.listdir(target.parent) if leftover.fullmatch(name)]
    except OSError:
        return
    for name in names:
        path = target.parent / name
        try:
            status = os.lstat(path)
            if stat.S_ISREG(status.st_mode) and status.st_mtime_ns < started_ns:
                path.unlink()
        except OSError:
            continue
