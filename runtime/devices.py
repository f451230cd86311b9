"""Platforms and devices: which PJRT client and device a compiled function runs on.

``platform`` is ``"cpu"``, ``"gpu"`` (also ``"cuda"``, ``"rocm"``), ``"tpu"`` or
None (the best one available: jax's default backend, a GPU or TPU before the
CPU). ``device`` is None (the platform's first device), an index into the
platform's local devices, or a jax ``Device``.
"""

from __future__ import annotations

from typing import Any

from ..xla import pjrt

__all__ = ["PLATFORMS", "check_platform", "check_device", "default_platform", "devices", "resolve_device",
           "available_platforms"]

PLATFORMS = ("cpu", "gpu", "cuda", "rocm", "tpu")


def check_platform(platform: str | None) -> None:
    """Raises ValueError for a platform name hlograph does not know."""
    if platform is not None and platform not in PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}; expected 'cpu', 'gpu', 'tpu' or None "
                         "(the best available)")


def check_device(device: Any) -> None:
    """Raises TypeError unless ``device`` is None, an int index or a jax Device."""
    if device is None or pjrt.is_device(device):
        return
    if not isinstance(device, int) or isinstance(device, bool):
        raise TypeError(f"device must be None, an int or a jax Device, got {type(device).__name__}")


def default_platform() -> str:
    """The best platform available here (jax's default backend)."""
    return pjrt.default_platform()


def get_client(platform: str | None = None):
    """The PJRT client of ``platform`` (None: the best available); RuntimeError
    naming the platform when it is not available here."""
    check_platform(platform)
    try:
        return pjrt.get_backend(platform)
    except RuntimeError as e:
        raise RuntimeError(f"platform {platform!r} is not available here: {e}") from None


def devices(platform: str | None = None) -> list:
    """The local devices of ``platform`` (None: the best available)."""
    return list(get_client(platform).local_devices())


def _platform_matches(requested: str, device_platform: str) -> bool:
    if requested == device_platform:
        return True
    return requested == "gpu" and device_platform in ("cuda", "rocm")


def resolve_device(platform: str | None, device: Any = None):
    """The device a function compiled for ``platform`` and ``device`` runs on.

    Raises:
        ValueError: unknown platform, device index out of range, or a device
            of another platform than the one asked for.
        TypeError: ``device`` is neither None, an int nor a jax Device.
        RuntimeError: the platform is not available here.
    """
    check_platform(platform)
    check_device(device)
    if not pjrt.is_device(device):
        local = devices(platform)
        index = 0 if device is None else device
        if not -len(local) <= index < len(local):
            raise ValueError(f"device index {index} out of range: {platform or default_platform()} "
                             f"has {len(local)} device(s)")
        return local[index]
    if platform is not None and not _platform_matches(platform, device.platform):
        raise ValueError(f"device {device} is a {device.platform} device, not {platform}")
    return device


def available_platforms() -> dict[str, list | str]:
    """Per platform name: its local devices, or why it is not available."""
    out: dict[str, list | str] = {}
    for platform in ("cpu", "gpu", "tpu"):
        try:
            out[platform] = devices(platform)
        except RuntimeError as e:
            out[platform] = str(e)
    return out
