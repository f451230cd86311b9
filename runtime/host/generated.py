"""Generated Numba modules and their on-disk cache, shared by host segments
(segment.py) and in-module host calls (calls.py).

Generated code is written as a module file under ``<cache dir>/numba`` and
imported: Numba compiles its functions, or, with ``cache=True`` in their
decorators, loads the machine code an earlier process left next to the file.
File names carry ``code_version``, a hash of the sources the machine code
comes from, so edited code never loads stale machine code.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from typing import Any

__all__ = ["HostCompileError", "numba_module", "numba_reason", "code_version", "load_generated"]


class HostCompileError(RuntimeError):
    """A host implementation that Numba cannot compile; names the op and the reason."""


def numba_module():
    """The ``numba`` module, imported on first use (it takes about a second)."""
    import numba
    return numba


_FILE_HASHES: dict[str, str | None] = {}


def code_version(factories) -> str | None:
    """A hash of the sources the machine code of generated Numba modules depends
    on: the files of hlograph's host runtime and the files defining the host
    implementations ``factories``; None when one of those cannot be read (code
    typed into a notebook or a REPL): such code is not cached on disk, since an
    edited implementation could not be told apart. (As with Numba's own cache,
    helpers an implementation imports from other files are not covered.)"""
    import inspect
    runtime = _file_hash(os.path.dirname(os.path.abspath(__file__)))  # runtime/host/
    if runtime is None:
        return None
    h = hashlib.sha1(runtime.encode())
    for factory in factories:
        try:
            where = inspect.getsourcefile(factory)
        except TypeError:
            where = None
        digest = None if where is None else _file_hash(where)
        if digest is None:
            return None
        h.update(digest.encode())
    return h.hexdigest()[:10]


def _file_hash(path: str) -> str | None:
    """sha1 of a file (of the .py files of a directory), remembered per process."""
    if path not in _FILE_HASHES:
        try:
            if os.path.isdir(path):
                files = sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".py"))
            else:
                files = [path]
            h = hashlib.sha1()
            for f in files:
                with open(f, "rb") as fh:
                    h.update(fh.read())
            _FILE_HASHES[path] = h.hexdigest()
        except OSError:
            _FILE_HASHES[path] = None
    return _FILE_HASHES[path]


def numba_reason(error: Exception) -> str:
    """The informative line of a Numba compile error (not its "Failed in ... pipeline" header)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in lines:
        if not line.startswith(("Failed in ", "During: ")):
            return line
    return lines[0] if lines else type(error).__name__


_KERNEL_DIR: list[str] = []


def generated_dir(shared: bool = True) -> str:
    """Where generated kernel modules go: ``<cache dir>/numba``, or a directory of
    this process when the cache is off or the module is not to be shared with
    other processes (``shared=False``)."""
    from .. import cache
    base = cache.cache_dir() if shared else None
    if base is not None:
        path = os.path.join(str(base), cache.KERNEL_SUBDIR)
        try:
            os.makedirs(path, exist_ok=True)
            return path
        except OSError:
            pass
    if not _KERNEL_DIR:
        import atexit
        import shutil
        import tempfile
        _KERNEL_DIR.append(tempfile.mkdtemp(prefix="hlograph-kernels-"))
        atexit.register(shutil.rmtree, _KERNEL_DIR[0], ignore_errors=True)
    return _KERNEL_DIR[0]


def _drop_numba_cache(path: str, name: str) -> None:
    """Removes Numba's cache files of the generated module at ``path``."""
    cache = os.path.join(os.path.dirname(path), "__pycache__")
    try:
        entries = os.listdir(cache)
    except OSError:
        return
    for entry in entries:
        if entry.startswith(f"{name}."):
            try:
                os.remove(os.path.join(cache, entry))
            except OSError:
                pass


def load_generated(name: str, source: str, glb: dict[str, Any], cache: bool = True):
    """Writes ``source`` (Numba-compiled functions whose decorators say
    ``cache=True``, or ``cache=False`` without ``cache``) as the module
    ``<kernel dir>/<name>.py`` and imports it, with ``glb`` among its globals: Numba
    compiles its functions, or with ``cache`` loads them from its disk cache next to
    the file. A damaged cache entry is dropped and compiled again; an unwritable one
    means no cache. Without ``cache`` the file goes to a directory of this process.
    Returns the module (its ``__source__`` is ``source``)."""
    import importlib.util
    import warnings
    path = os.path.join(generated_dir(shared=cache), f"{name}.py")
    try:
        with open(path) as f:
            same = f.read() == source
    except OSError:
        same = False
    if not same:  # (rewriting an identical file would invalidate Numba's cache)
        tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        with open(tmp, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    modname = f"hlograph_kernel_{name}"
    spec = importlib.util.spec_from_file_location(modname, path)

    def load(text: str | None = None):
        module = importlib.util.module_from_spec(spec)
        module.__dict__.update(glb)
        module.__source__ = source
        # importable by name: Numba's cached code refers to its module's globals by it
        sys.modules[modname] = module
        with warnings.catch_warnings():
            # code Numba cannot cache (e.g. an implementation holding dynamic
            # globals) is compiled in this process only; that needs no warning
            warnings.simplefilter("ignore", numba_module().NumbaWarning)
            if text is None:
                spec.loader.exec_module(module)
            else:
                exec(compile(text, path, "exec"), module.__dict__)
        return module

    try:
        try:
            return load()
        except Exception:  # noqa: BLE001 - e.g. an unreadable cache entry: compile afresh
            _drop_numba_cache(path, name)
            try:
                return load()
            except Exception:  # noqa: BLE001 - an unwritable cache: no cache at all
                return load(source.replace("cache=True", "cache=False"))
    except Exception:
        del sys.modules[modname]
        raise
