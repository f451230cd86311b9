"""The persistent cache of compiled executables.

A compiled PJRT executable is stored on disk under a key that hashes
everything its code depends on: the StableHLO bytecode, the platform and its
PJRT plugin version, the kind and ids of the devices it was compiled for,
jax/jaxlib versions and the compile options. A later process that compiles the
same module loads the stored executable instead of running XLA again.

Where: ``$HLOGRAPH_CACHE_DIR`` if set (``off`` disables the cache), else the
user cache directory (``$XDG_CACHE_HOME/hlograph`` or ``~/.cache/hlograph`` on
Linux, ``~/Library/Caches/hlograph`` on macOS, ``%LOCALAPPDATA%\\hlograph\\Cache``
on Windows). Size: at most ``$HLOGRAPH_CACHE_MAX_BYTES`` (default 1 GiB; a
plain byte count or a number with a K, M or G suffix), the least recently
used entries are evicted first. Both variables are read on every use.

One entry is one file ``<key>.hlgexe``: a header (magic, format version, key,
payload length, SHA-256 of the payload) and the payload, the serialized
executable. Entries are written to a temporary file in the same directory
and renamed into place, so readers see a whole entry or none. An entry that is
missing, truncated, corrupt, stored under another key or that jaxlib cannot
load is a miss: the module is compiled again and the entry replaced. Several
threads and processes may share one directory; files that vanish while they
are read, touched or evicted are skipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import struct
import sys
import threading
import time
import uuid
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from ..xla import log, mlir, pjrt

__all__ = [
    "ENV_DIR", "ENV_MAX_BYTES", "DEFAULT_MAX_BYTES", "ExecutableCache", "CacheEntry",
    "cache_dir", "default_cache_dir", "max_bytes", "get_cache", "cache_key",
    "compile_cached", "stats", "reset_stats",
]

ENV_DIR = "HLOGRAPH_CACHE_DIR"
ENV_MAX_BYTES = "HLOGRAPH_CACHE_MAX_BYTES"
DEFAULT_MAX_BYTES = 1 << 30

MAGIC = b"HLGEXEC\0"
FORMAT_VERSION = 1
#: magic, format version, key (sha256), payload length, sha256 of the payload
HEADER = struct.Struct("<8sI32sQ32s")
SUFFIX = ".hlgexe"
_ENTRY_NAME = re.compile(r"[0-9a-f]{64}" + re.escape(SUFFIX))
_TMP_PREFIX = ".tmp-"
#: temporary files older than this were left by writers that died mid-write
_STALE_TMP_SECONDS = 3600.0
_SIZE_SUFFIXES = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def default_cache_dir() -> Path:
    """The platform's user cache directory for hlograph."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Local")
        return Path(base) / "hlograph" / "Cache"
    if sys.platform == "darwin":
        return Path(os.path.expanduser("~")) / "Library" / "Caches" / "hlograph"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hlograph"


def cache_dir() -> Path | None:
    """The cache directory from ``$HLOGRAPH_CACHE_DIR`` (None when it is ``off``),
    else ``default_cache_dir()``."""
    value = os.environ.get(ENV_DIR, "").strip()
    if not value:
        return default_cache_dir()
    if value.lower() == "off":
        return None
    return Path(os.path.expanduser(value))


#: the subdirectory of the cache directory holding generated Numba kernels and their
#: Numba cache (runtime/host/generated.py); ``hlograph cache clear`` removes it too
KERNEL_SUBDIR = "numba"


def clear_kernels(directory: Path) -> int:
    """Removes the generated Numba kernels under ``directory``; returns the bytes freed."""
    import shutil
    path = Path(directory) / KERNEL_SUBDIR
    size = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                size += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    shutil.rmtree(path, ignore_errors=True)
    return size


def max_bytes() -> int:
    """The size bound from ``$HLOGRAPH_CACHE_MAX_BYTES`` (default 1 GiB).

    Raises:
        ValueError: the variable is not a byte count such as ``500000000``,
            ``512M`` or ``2GiB``.
    """
    value = os.environ.get(ENV_MAX_BYTES, "").strip()
    if not value:
        return DEFAULT_MAX_BYTES
    m = re.fullmatch(r"(\d+)\s*([kmgt]?)(?:i?b)?", value.lower())
    if m is None:
        raise ValueError(f"{ENV_MAX_BYTES}={value!r} is not a size in bytes "
                         f"(expected e.g. 1073741824, 512M or 2G)")
    return int(m.group(1)) * _SIZE_SUFFIXES[m.group(2)]


def get_cache() -> "ExecutableCache | None":
    """The cache the environment selects now, or None when it is disabled."""
    directory = cache_dir()
    if directory is None:
        return None
    return ExecutableCache(directory, max_bytes())


def cache_key(program: bytes, devices: Sequence, options, runtime: str) -> str:
    """The hex SHA-256 naming the executable of ``program`` (the module's
    bytecode or ``mlir.module_fingerprint``) compiled with ``options`` for
    ``devices`` by the runtime ``runtime`` (``pjrt.runtime_fingerprint(client)``)."""
    h = hashlib.sha256()

    def part(data: bytes) -> None:
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)

    part(b"hlograph executable v%d" % FORMAT_VERSION)
    part(runtime.encode())
    part(str(len(devices)).encode())
    for d in devices:
        part(f"{d.platform}|{d.device_kind}|{d.id}".encode())
    part(pjrt.compile_options_fingerprint(options))
    part(program)
    return h.hexdigest()


# --- per-process counters ------------------------------------------------------------

_stats_lock = threading.Lock()
_STAT_NAMES = ("hits", "misses", "corrupt", "writes", "write_errors", "evictions", "uncached")
_stats = dict.fromkeys(_STAT_NAMES, 0)
_warned_dirs: set[str] = set()


def _count(name: str, n: int = 1) -> None:
    with _stats_lock:
        _stats[name] += n


def stats() -> dict[str, int]:
    """This process's counters: ``hits`` (executables loaded from disk),
    ``misses`` (compiled, then stored), ``corrupt`` (entries rejected on read),
    ``writes``, ``write_errors``, ``evictions`` and ``uncached`` (compiled with
    the cache disabled)."""
    with _stats_lock:
        return dict(_stats)


def reset_stats() -> None:
    """Sets this process's counters to zero."""
    with _stats_lock:
        for name in _STAT_NAMES:
            _stats[name] = 0


# --- the directory ---------------------------------------------------------------------

@dataclass(frozen=True)
class CacheEntry:
    """One stored executable: its file, size in bytes and last use."""

    path: Path
    size: int
    #: the last time the entry was written or used (its mtime, set on every hit)
    last_used: float


class ExecutableCache:
    """The entries in one directory, bounded to ``max_bytes`` in total."""

    def __init__(self, directory: str | os.PathLike, max_bytes: int = DEFAULT_MAX_BYTES):
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
        self.directory = Path(directory)
        self.max_bytes = int(max_bytes)

    def path(self, key: str) -> Path:
        """The file of the entry of ``key``."""
        return self.directory / (key + SUFFIX)

    def read(self, key: str) -> bytes | None:
        """The verified payload stored under ``key``, or None (missing or rejected)."""
        path = self.path(key)
        try:
            with open(path, "rb") as f:
                header = f.read(HEADER.size)
                if len(header) != HEADER.size:
                    return self._reject()
                magic, version, stored_key, length, digest = HEADER.unpack(header)
                if magic != MAGIC or version != FORMAT_VERSION or stored_key != bytes.fromhex(key):
                    return self._reject()
                if os.fstat(f.fileno()).st_size != HEADER.size + length:
                    return self._reject()
                payload = f.read(length)
        except FileNotFoundError:
            return None
        except OSError:  # unreadable, or the directory is not a directory
            return None
        if len(payload) != length or hashlib.sha256(payload).digest() != digest:
            return self._reject()
        return payload

    @staticmethod
    def _reject() -> None:
        _count("corrupt")
        return None

    def touch(self, key: str) -> None:
        """Marks the entry of ``key`` as just used."""
        with contextlib.suppress(OSError):
            os.utime(self.path(key))

    def write(self, key: str, payload: bytes) -> bool:
        """Stores ``payload`` under ``key`` atomically, replacing any entry; False
        when it could not be written (it is then simply not cached) or is larger
        than the whole cache."""
        if HEADER.size + len(payload) > self.max_bytes:
            return False
        header = HEADER.pack(MAGIC, FORMAT_VERSION, bytes.fromhex(key), len(payload),
                             hashlib.sha256(payload).digest())
        for attempt in range(3):
            try:
                self._write_file(key, header, payload)
                break
            except OSError as e:
                # FileNotFoundError and FileExistsError also come from the directory
                # being removed while it is created or written to: try again
                race = isinstance(e, (FileNotFoundError, FileExistsError))
                if race and attempt < 2:
                    continue
                _count("write_errors")
                if not race or self.directory.exists() and not self.directory.is_dir():
                    self._warn_once(e)
                return False
        self._fsync_directory()
        _count("writes")
        return True

    def _write_file(self, key: str, header: bytes, payload: bytes) -> None:
        unique = f"{os.getpid()}-{threading.get_ident()}-{uuid.uuid4().hex[:8]}"
        tmp = self.directory / f"{_TMP_PREFIX}{key[:16]}-{unique}"
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        try:
            with open(fd, "wb") as f:
                f.write(header)
                f.write(payload)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path(key))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def _warn_once(self, error: OSError) -> None:
        with _stats_lock:
            if str(self.directory) in _warned_dirs:
                return
            _warned_dirs.add(str(self.directory))
        warnings.warn(f"hlograph cannot write its executable cache in {self.directory} ({error}); "
                      f"compiled code is not cached. Set {ENV_DIR} to a writable directory or to 'off'.",
                      RuntimeWarning, stacklevel=4)

    def _fsync_directory(self) -> None:
        if os.name != "posix":
            return
        with contextlib.suppress(OSError):
            fd = os.open(self.directory, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def _scan(self) -> Iterator[os.DirEntry]:
        """The directory's entries (files named like cache entries or temporary
        files); nothing when the directory does not exist."""
        try:
            it = os.scandir(self.directory)
        except FileNotFoundError:
            return
        with it:
            for e in it:
                if _ENTRY_NAME.fullmatch(e.name) or e.name.startswith(_TMP_PREFIX):
                    yield e

    def entries(self) -> list[CacheEntry]:
        """The stored entries, least recently used first.

        Raises:
            OSError: the directory exists but cannot be listed.
        """
        out = []
        for e in self._scan():
            if not _ENTRY_NAME.fullmatch(e.name):
                continue
            try:
                st = e.stat()
            except FileNotFoundError:  # removed by another process meanwhile
                continue
            out.append(CacheEntry(Path(e.path), st.st_size, st.st_mtime))
        out.sort(key=lambda c: (c.last_used, c.path.name))
        return out

    def total_bytes(self) -> int:
        """The size of all entries together."""
        return sum(c.size for c in self.entries())

    def evict(self) -> int:
        """Removes the least recently used entries until the total size is at
        most ``max_bytes``, and temporary files abandoned by dead writers;
        returns the number of entries removed."""
        try:
            entries = self.entries()
            self._remove_stale_tmp()
        except OSError:
            return 0
        total = sum(c.size for c in entries)
        removed = 0
        for c in entries:
            if total <= self.max_bytes:
                break
            try:
                os.unlink(c.path)
            except FileNotFoundError:  # another process evicted it first
                pass
            except OSError:
                continue
            else:
                removed += 1
            total -= c.size
        if removed:
            _count("evictions", removed)
        return removed

    def _remove_stale_tmp(self) -> None:
        now = time.time()
        for e in self._scan():
            if not e.name.startswith(_TMP_PREFIX):
                continue
            with contextlib.suppress(OSError):
                if now - e.stat().st_mtime > _STALE_TMP_SECONDS:
                    os.unlink(e.path)

    def clear(self) -> tuple[int, int]:
        """Removes every entry (and temporary file); returns (entries, bytes) removed.

        Raises:
            OSError: the directory exists but cannot be listed, or an entry
                cannot be removed.
        """
        n = size = 0
        for e in self._scan():
            try:
                st_size = e.stat().st_size
                os.unlink(e.path)
            except FileNotFoundError:
                continue
            if _ENTRY_NAME.fullmatch(e.name):
                n += 1
                size += st_size
        return n, size


# --- compiling through the cache ---------------------------------------------------------

class _KeyLocks:
    """One lock per key while some thread holds it, so that threads compiling
    the same module wait for the first one and then load its entry."""

    def __init__(self):
        self._lock = threading.Lock()
        self._locks: dict[str, list] = {}

    @contextlib.contextmanager
    def hold(self, key: str):
        with self._lock:
            entry = self._locks.get(key)
            if entry is None:
                entry = self._locks[key] = [threading.Lock(), 0]
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._lock:
                entry[1] -= 1
                if entry[1] == 0:
                    del self._locks[key]


_key_locks = _KeyLocks()


def _compile(client, bytecode: bytes, devices: Sequence, options):
    """PJRT's compile, logged on ``hlograph.compile`` with its time."""
    start = time.perf_counter()
    loaded = pjrt.compile_and_load(client, bytecode, devices, options)
    if log.COMPILE.isEnabledFor(logging.INFO):
        log.COMPILE.info("XLA compiled %d bytes of StableHLO for %s in %.2f ms", len(bytecode),
                         ", ".join(str(d) for d in devices), (time.perf_counter() - start) * 1e3)
    return loaded


def compile_cached(client, bytecode: bytes, devices: Sequence, options, fingerprint: bytes | None = None):
    """The loaded executable of ``bytecode`` for ``devices``: from the disk cache
    when it holds a valid entry, else compiled by PJRT and stored. The entry's
    key covers ``fingerprint`` (``mlir.module_fingerprint``: the program without
    source locations) when given, else the bytecode."""
    cache = get_cache()
    if cache is None:
        _count("uncached")
        log.CACHE.info("on-disk cache off (%s=off): compiling", ENV_DIR)
        return _compile(client, bytecode, devices, options)
    program = bytecode if fingerprint is None else fingerprint
    key = cache_key(program, devices, options, pjrt.runtime_fingerprint(client))
    with _key_locks.hold(key):
        start = time.perf_counter()
        payload = cache.read(key)
        if payload is not None:
            try:
                loaded = pjrt.deserialize_executable(client, payload, devices, options)
            except Exception:  # jaxlib cannot load it (a stray file with a valid header)
                _count("corrupt")
                log.CACHE.info("on-disk entry %s rejected: jaxlib cannot load it", key)
            else:
                cache.touch(key)
                _count("hits")
                log.CACHE.info("on-disk hit %s in %s: loaded in %.2f ms", key, cache.directory,
                               (time.perf_counter() - start) * 1e3)
                return loaded
        _count("misses")
        log.CACHE.info("on-disk miss %s in %s: compiling", key, cache.directory)
        loaded = _compile(client, bytecode, devices, options)
        try:
            payload = pjrt.serialize_executable(loaded)
        except Exception:  # executables this platform cannot serialize stay uncached
            _count("write_errors")
            return loaded
        if cache.write(key, payload):
            cache.evict()
    return loaded
