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
used entries are evicted first (the directory is listed for that only when
this process's estimate of its size passes the bound, or once a minute: a cache
of tens of thousands of entries costs nothing per compile). Both variables are
read on every use.

One entry is one file ``<key>.hlgexe``: a header (magic, format version, key,
payload length, SHA-256 of the payload) and the payload, the serialized
executable. Beside them, ``<key>.hlgmod`` entries (same header) hold the
optimized StableHLO module of a graph under a key computed from the graph itself
(``compiler/graph_key.py``), with what compiling it needs (``ModuleEntry``): a
process that finds one skips lowering and the pass pipeline, and then finds the
executable under the module's key. ``<key>.hlgplan`` entries hold what
``runtime.compile_plan`` decided for a module it had to parse (the compile
options, whether loops were rolled or chains cut), under a key from the module's
fingerprint: a warm process then loads the executable without parsing the module
or planning again (``load_plan``, ``load_cached``). All kinds share the size
bound and the LRU order. Entries are written to a temporary file in the same directory
and renamed into place, so readers see a whole entry or none. An entry that is
missing, truncated, corrupt, stored under another key or that jaxlib cannot
load is a miss (a damaged one is logged as a warning on ``hlograph.cache``):
the module is lowered or compiled again and the entry replaced. Several
threads and processes may share one directory; files that vanish while they
are read, touched or evicted are skipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
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
    "compile_cached", "stats", "reset_stats", "MODULE_SUFFIX", "ModuleEntry", "load_module",
    "store_module", "count_module_skip", "PLAN_SUFFIX", "StoredPlan", "load_plan", "store_plan",
    "load_cached",
]

ENV_DIR = "HLOGRAPH_CACHE_DIR"
ENV_MAX_BYTES = "HLOGRAPH_CACHE_MAX_BYTES"
DEFAULT_MAX_BYTES = 1 << 30

MAGIC = b"HLGEXEC\0"
FORMAT_VERSION = 1
#: magic, format version, key (sha256), payload length, sha256 of the payload
HEADER = struct.Struct("<8sI32sQ32s")
SUFFIX = ".hlgexe"
#: the suffix of optimized-module entries (found by a graph's key)
MODULE_SUFFIX = ".hlgmod"
#: the suffix of compile-plan entries (found by a module's fingerprint)
PLAN_SUFFIX = ".hlgplan"
_ENTRY_NAME = re.compile(r"[0-9a-f]{64}(?:" + "|".join(map(re.escape, (SUFFIX, MODULE_SUFFIX, PLAN_SUFFIX))) + ")")
#: the counter names of each kind of entry: executables count ``corrupt``, ``writes``,
#: ``write_errors``; modules the same names with a ``module_`` prefix
_KIND_PREFIX = {SUFFIX: "", MODULE_SUFFIX: "module_", PLAN_SUFFIX: "plan_"}
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
_STAT_NAMES = ("hits", "misses", "corrupt", "writes", "write_errors", "evictions", "uncached",
               "module_hits", "module_misses", "module_skipped", "module_corrupt", "module_writes",
               "module_write_errors", "plan_hits", "plan_misses", "plan_corrupt", "plan_writes",
               "plan_write_errors")
_stats = dict.fromkeys(_STAT_NAMES, 0)
_warned_dirs: set[str] = set()

#: per directory: (when it was last listed, its size then plus what this process wrote
#: since). ``evict`` lists a directory again only when that estimate passes the bound
#: or the listing is older than ``_RESCAN_SECONDS`` (other processes write too): a
#: cache of tens of thousands of entries is not listed on every compile
_sizes: dict[str, tuple[float, int]] = {}
_RESCAN_SECONDS = 60.0


def _count(name: str, n: int = 1) -> None:
    with _stats_lock:
        _stats[name] += n


def stats() -> dict[str, int]:
    """This process's counters: ``hits`` (executables loaded from disk),
    ``misses`` (compiled, then stored), ``corrupt`` (entries rejected on read),
    ``writes``, ``write_errors``, ``evictions`` and ``uncached`` (compiled with
    the cache disabled); for optimized modules found by a graph's key:
    ``module_hits`` (lowering and passes skipped), ``module_misses`` (lowered),
    ``module_skipped`` (graphs that are not keyed, or whose module is not
    stored: see the ``hlograph.cache`` log for the reason), ``module_corrupt``,
    ``module_writes`` and ``module_write_errors``; for compile plans (``load_plan``):
    ``plan_hits``, ``plan_misses``, ``plan_corrupt``, ``plan_writes`` and
    ``plan_write_errors``."""
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

    def path(self, key: str, suffix: str = SUFFIX) -> Path:
        """The file of the entry of ``key`` (``suffix``: ``SUFFIX`` for an executable,
        ``MODULE_SUFFIX`` for an optimized module)."""
        return self.directory / (key + suffix)

    def read(self, key: str, suffix: str = SUFFIX) -> bytes | None:
        """The verified payload stored under ``key``, or None (missing or rejected)."""
        path = self.path(key, suffix)
        try:
            with open(path, "rb") as f:
                header = f.read(HEADER.size)
                if len(header) != HEADER.size:
                    return self.reject(path, "truncated header")
                magic, version, stored_key, length, digest = HEADER.unpack(header)
                if magic != MAGIC or version != FORMAT_VERSION:
                    return self.reject(path, "not an entry of this format")
                if stored_key != bytes.fromhex(key):
                    return self.reject(path, "stored under another key")
                if os.fstat(f.fileno()).st_size != HEADER.size + length:
                    return self.reject(path, "truncated or extended")
                payload = f.read(length)
        except FileNotFoundError:
            return None
        except OSError:  # unreadable, or the directory is not a directory
            return None
        if len(payload) != length or hashlib.sha256(payload).digest() != digest:
            return self.reject(path, "checksum mismatch")
        return payload

    @staticmethod
    def reject(path: Path, why: str) -> None:
        """Counts and logs (a warning) a damaged entry, which is then a miss; returns None."""
        _count(_KIND_PREFIX.get(path.suffix, "") + "corrupt")
        log.CACHE.warning("on-disk entry %s is damaged (%s): ignored", path, why)
        return None

    def touch(self, key: str, suffix: str = SUFFIX) -> None:
        """Marks the entry of ``key`` as just used."""
        with contextlib.suppress(OSError):
            os.utime(self.path(key, suffix))

    def write(self, key: str, payload: bytes, suffix: str = SUFFIX) -> bool:
        """Stores ``payload`` under ``key`` atomically, replacing any entry; False
        when it could not be written (it is then simply not cached) or is larger
        than the whole cache."""
        if HEADER.size + len(payload) > self.max_bytes:
            return False
        header = HEADER.pack(MAGIC, FORMAT_VERSION, bytes.fromhex(key), len(payload),
                             hashlib.sha256(payload).digest())
        for attempt in range(3):
            try:
                self._write_file(key, header, payload, suffix)
                break
            except OSError as e:
                # FileNotFoundError and FileExistsError also come from the directory
                # being removed while it is created or written to: try again
                race = isinstance(e, (FileNotFoundError, FileExistsError))
                if race and attempt < 2:
                    continue
                _count(_KIND_PREFIX[suffix] + "write_errors")
                if not race or self.directory.exists() and not self.directory.is_dir():
                    self._warn_once(e)
                return False
        self._fsync_directory()
        _count(_KIND_PREFIX[suffix] + "writes")
        with _stats_lock:
            listed = _sizes.get(str(self.directory))
            if listed is not None:
                _sizes[str(self.directory)] = (listed[0], listed[1] + HEADER.size + len(payload))
        return True

    def _write_file(self, key: str, header: bytes, payload: bytes, suffix: str) -> None:
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
            os.replace(tmp, self.path(key, suffix))
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

    def evict(self, force: bool = False) -> int:
        """Removes the least recently used entries until the total size is at
        most ``max_bytes``, and temporary files abandoned by dead writers;
        returns the number of entries removed. The directory is listed only when
        this process's estimate of its size (its last listing plus the entries
        written since) passes ``max_bytes``, when that listing is older than
        ``_RESCAN_SECONDS``, or with ``force``."""
        directory = str(self.directory)
        with _stats_lock:
            listed = _sizes.get(directory)
        if (not force and listed is not None and listed[1] <= self.max_bytes
                and time.monotonic() - listed[0] < _RESCAN_SECONDS):
            return 0
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
        with _stats_lock:
            _sizes[directory] = (time.monotonic(), total)
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
        with _stats_lock:
            _sizes.pop(str(self.directory), None)
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


def _load(cache: "ExecutableCache", key: str, client, devices: Sequence, options):
    """The executable stored under ``key``, loaded, or None (a miss or an entry
    jaxlib cannot load, which is then rejected)."""
    start = time.perf_counter()
    payload = cache.read(key)
    if payload is None:
        return None
    try:
        loaded = pjrt.deserialize_executable(client, payload, devices, options)
    except Exception:  # jaxlib cannot load it (a stray file with a valid header)
        cache.reject(cache.path(key), "jaxlib cannot load it")
        return None
    cache.touch(key)
    _count("hits")
    log.CACHE.info("on-disk hit %s in %s: loaded in %.2f ms", key, cache.directory,
                   (time.perf_counter() - start) * 1e3)
    return loaded


def load_cached(client, devices: Sequence, options, fingerprint: bytes):
    """The executable of the module whose ``mlir.module_fingerprint`` is
    ``fingerprint``, compiled with ``options`` for ``devices``, from the disk
    cache; None when it is not there (nothing is compiled: ``compile_cached``
    then needs the module)."""
    cache = get_cache()
    if cache is None:
        return None
    key = cache_key(fingerprint, devices, options, pjrt.runtime_fingerprint(client))
    with _key_locks.hold(key):
        return _load(cache, key, client, devices, options)


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
        loaded = _load(cache, key, client, devices, options)
        if loaded is not None:
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


# --- optimized modules by graph key ----------------------------------------------------------

#: the payload of a module entry: the length of its JSON description, then the
#: description (fingerprint, matrix products, custom-call targets), then the bytecode
_MODULE_META = struct.Struct("<I")


@dataclass(frozen=True)
class ModuleEntry:
    """An optimized StableHLO module as a graph key finds it: everything compiling
    it needs without parsing it again."""

    #: the module's bytecode (with the source locations of the graph that was lowered)
    bytecode: bytes
    #: ``mlir.module_fingerprint`` of the module: the executable's cache key covers it
    fingerprint: bytes
    #: the module's matrix products (``mlir.dot_shapes``), for the compile options
    dots: tuple
    #: the ``call_target_name`` of its custom calls, made runnable before compiling
    targets: tuple[str, ...]

    def encode(self) -> bytes:
        meta = json.dumps({"fingerprint": self.fingerprint.hex(), "dots": [list(d) for d in self.dots],
                           "targets": list(self.targets)}, separators=(",", ":")).encode()
        return _MODULE_META.pack(len(meta)) + meta + self.bytecode

    @classmethod
    def decode(cls, payload: bytes) -> "ModuleEntry":
        """Raises ValueError (or a subclass) on bytes ``encode`` did not make."""
        if len(payload) < _MODULE_META.size:
            raise ValueError("too short")
        (n,) = _MODULE_META.unpack_from(payload)
        start = _MODULE_META.size
        if start + n > len(payload):
            raise ValueError("description longer than the payload")
        meta = json.loads(payload[start:start + n])
        fingerprint = bytes.fromhex(meta["fingerprint"])
        dots = tuple(mlir.DotShape(*d) for d in meta["dots"])
        targets = tuple(str(t) for t in meta["targets"])
        if len(fingerprint) != 32:
            raise ValueError("bad fingerprint")
        return cls(bytes(payload[start + n:]), fingerprint, dots, targets)


def _read_entry(cache: "ExecutableCache", key: str, suffix: str, decode, what: str):
    """The entry stored under ``key`` with ``suffix``, decoded by ``decode``, or None
    (missing, or damaged: rejected as not a ``what`` entry); counts the kind's
    ``hits`` or ``misses``."""
    payload = cache.read(key, suffix)
    entry = None
    if payload is not None:
        try:
            entry = decode(payload)
        except (ValueError, KeyError, TypeError):
            cache.reject(cache.path(key, suffix), f"not a {what} entry")
    if entry is None:
        _count(_KIND_PREFIX[suffix] + "misses")
        return None
    cache.touch(key, suffix)
    _count(_KIND_PREFIX[suffix] + "hits")
    return entry


def _store_entry(key: str, payload: bytes, suffix: str) -> bool:
    """Writes ``payload`` under ``key`` with ``suffix`` (atomically) and keeps the cache
    in its bound; False when the cache is off or the write failed."""
    cache = get_cache()
    if cache is None or not cache.write(key, payload, suffix):
        return False
    cache.evict()
    return True


def load_module(key: str) -> ModuleEntry | None:
    """The optimized module stored under the graph key ``key``, or None (a miss:
    the cache is off, there is no entry, or it is damaged)."""
    cache = get_cache()
    if cache is None:
        return None
    start = time.perf_counter()
    entry = _read_entry(cache, key, MODULE_SUFFIX, ModuleEntry.decode, "module")
    if entry is None:
        log.CACHE.info("graph key %s: no stored module in %s: lowering", key, cache.directory)
        return None
    log.CACHE.info("graph key %s: optimized module loaded from %s in %.2f ms (lowering and passes "
                   "skipped)", key, cache.directory, (time.perf_counter() - start) * 1e3)
    return entry


def store_module(key: str, entry: ModuleEntry) -> bool:
    """Stores ``entry`` under the graph key ``key`` (atomically; concurrent writers
    of one key leave one whole entry); False when the cache is off or the write failed."""
    if not _store_entry(key, entry.encode(), MODULE_SUFFIX):
        return False
    log.CACHE.debug("graph key %s: optimized module stored (%d bytes)", key, len(entry.bytecode))
    return True


def count_module_skip(reason: str, *args) -> None:
    """Counts a graph whose module is not looked up or stored by key, and logs why
    (``reason % args``) on ``hlograph.cache``."""
    _count("module_skipped")
    log.CACHE.info("graph not keyed: " + reason, *args)


# --- compile plans by module fingerprint ---------------------------------------------------


@dataclass(frozen=True)
class StoredPlan:
    """What ``runtime.compile_plan`` decided for one module: the compile options'
    two choices and whether it changed the module (rolled loops, cut chains), so
    the executable's key is known without parsing the module."""

    ynn_fusion: bool
    fusion_emitters: bool
    changed: bool

    def encode(self) -> bytes:
        return json.dumps({"ynn_fusion": self.ynn_fusion, "fusion_emitters": self.fusion_emitters,
                           "changed": self.changed}, separators=(",", ":")).encode()

    @classmethod
    def decode(cls, payload: bytes) -> "StoredPlan":
        """Raises ValueError (or a subclass) on bytes ``encode`` did not make."""
        meta = json.loads(payload)
        values = [meta[k] for k in ("ynn_fusion", "fusion_emitters", "changed")]
        if not all(type(v) is bool for v in values):
            raise ValueError("not a plan")
        return cls(*values)


def load_plan(key: str) -> StoredPlan | None:
    """The compile plan stored under ``key`` (``runtime.executables.plan_key``), or
    None (the cache is off, there is none, or it is damaged)."""
    cache = get_cache()
    if cache is None:
        return None
    plan = _read_entry(cache, key, PLAN_SUFFIX, StoredPlan.decode, "plan")
    if plan is not None:
        log.CACHE.info("plan %s loaded from %s: the module is not parsed", key, cache.directory)
    return plan


def store_plan(key: str, plan: StoredPlan) -> bool:
    """Stores ``plan`` under ``key``; False when the cache is off or the write failed."""
    return _store_entry(key, plan.encode(), PLAN_SUFFIX)
