"""PJRT clients, compiled executables and their in-memory cache."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

from ..frontend.types import TensorType
from ..lowering import mlir

__all__ = ["get_client", "compile_bytecode", "Executable", "clear_cache", "cache_size"]

_PLATFORM_ALIASES = {"cpu": "cpu", "gpu": "gpu", "cuda": "cuda", "rocm": "rocm", "tpu": "tpu", None: None}
_lock = threading.RLock()
_CACHE_CAPACITY = 512
_cache: "OrderedDict[tuple, Any]" = OrderedDict()


def get_client(platform: str | None = "cpu"):
    """The PJRT client of ``platform`` (None: the best available)."""
    if platform not in _PLATFORM_ALIASES:
        raise ValueError(f"unknown platform {platform!r}; expected one of cpu, gpu, tpu or None")
    try:
        return mlir.get_backend(platform)
    except RuntimeError as e:
        raise RuntimeError(f"platform {platform!r} is not available here: {e}") from None


def compile_bytecode(bytecode: bytes, platform: str | None = "cpu", device=None):
    """Compiles a StableHLO module (bytecode) with PJRT; cached by fingerprint,
    platform and device (LRU, bounded)."""
    client = get_client(platform)
    device = device if device is not None else client.local_devices()[0]
    key = (hashlib.sha256(bytecode).digest(), client.platform, device.id)
    with _lock:
        exe = _cache.get(key)
        if exe is not None:
            _cache.move_to_end(key)
            return exe, device
    exe = mlir.compile_and_load(client, bytecode, [device], mlir.compile_options())
    with _lock:
        _cache[key] = exe
        while len(_cache) > _CACHE_CAPACITY:
            _cache.popitem(last=False)
    return exe, device


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def cache_size() -> int:
    return len(_cache)


class Executable:
    """A loaded PJRT executable with its argument and result types.

    ``run(args)`` takes already-checked arguments (NumPy arrays or jax arrays)
    and returns the results as device arrays.
    """

    def __init__(self, loaded, device, in_types: Sequence[TensorType], out_types: Sequence[TensorType]):
        self.loaded = loaded
        self.device = device
        self.in_types = list(in_types)
        self.out_types = list(out_types)
        self._puts = [mlir.device_putter(t.dtype, t.shape, device) for t in in_types]

    def run(self, args: Sequence[Any]) -> list[Any]:
        device = self.device
        bufs = [a if _on_device(a, device) else put(np.asarray(a)) for a, put in zip(args, self._puts)]
        return self.loaded.execute(bufs)


def _on_device(a: Any, device) -> bool:
    if isinstance(a, np.ndarray):
        return False
    devices = getattr(a, "devices", None)
    return devices is not None and devices() == {device}


def to_numpy(results: Sequence[Any]) -> list[np.ndarray]:
    return [np.asarray(r) for r in results]
