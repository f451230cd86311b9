"""Device meshes for multi-device compilation (``hg.compile(graph, mesh=...)``).

A mesh is a grid of devices with a name per axis: ``hg.Mesh({"x": 2, "y": 4})``
or ``hg.make_mesh((2, 4), ("x", "y"))`` arranges 8 devices of the platform in 2
rows and 4 columns. A ``jax.sharding.Mesh`` is accepted wherever a mesh is.
Partition specs (``hg.P``, frontend/specs.py) name the mesh axes an array's
dimensions are split over.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from ..frontend.specs import P, Spec, format_spec, normalize_spec
from ..xla import pjrt, sdy

__all__ = ["Mesh", "make_mesh", "as_mesh", "P"]


class Mesh:
    """A named grid of devices.

    Args:
        shape: axis name -> size, in order (major to minor), e.g. ``{"x": 2, "y": 4}``.
        devices: the devices, in row-major mesh order (a flat sequence or an array
            of the mesh's shape); default: the first ``size`` devices of ``platform``.
        platform: where the default devices come from ("cpu", "gpu", "tpu"; None:
            the best platform available, as ``hg.compile``'s default).

    Raises:
        ValueError: an empty or non-positive shape, duplicate axis names, or more
            devices asked for than the platform has.
        TypeError: axis names that are not strings.
    """

    def __init__(self, shape: Mapping[str, int], *, devices: Sequence[Any] | None = None,
                 platform: str | None = None):
        if not isinstance(shape, Mapping) or not shape:
            raise ValueError(f"Mesh: shape must be a non-empty mapping axis name -> size, got {shape!r}")
        names, sizes = tuple(shape.keys()), tuple(shape.values())
        for n in names:
            if not isinstance(n, str):
                raise TypeError(f"Mesh: axis names must be str, got {n!r}")
        for n, s in zip(names, sizes):
            if not isinstance(s, (int, np.integer)) or isinstance(s, bool) or s < 1:
                raise ValueError(f"Mesh: the size of axis {n!r} must be a positive int, got {s!r}")
        sizes = tuple(int(s) for s in sizes)
        size = math.prod(sizes)
        if devices is None:
            available = pjrt.platform_devices(platform)
            if size > len(available):
                raise ValueError(
                    f"Mesh{dict(zip(names, sizes))} needs {size} devices but platform "
                    f"{available[0].platform!r} has {len(available)}; for virtual CPU devices set "
                    f"XLA_FLAGS=--xla_force_host_platform_device_count={size} (or "
                    f"jax.config.update('jax_num_cpu_devices', {size})) before jax starts"
                )
            flat = list(available[:size])
        else:
            flat = list(np.asarray(devices, dtype=object).reshape(-1))
            if len(flat) != size:
                raise ValueError(f"Mesh{dict(zip(names, sizes))} needs {size} devices, got {len(flat)}")
            if len({d.id for d in flat}) != size:
                raise ValueError("Mesh: a device appears twice in devices")
        grid = np.empty(sizes, dtype=object)
        grid.reshape(-1)[:] = flat
        self._init(sdy.make_jax_mesh(grid, names))

    @classmethod
    def from_jax(cls, mesh: Any) -> "Mesh":
        """The hlograph mesh of a ``jax.sharding.Mesh`` (same devices, same axes)."""
        if not isinstance(mesh, sdy.JaxMesh):
            raise TypeError(f"expected a jax.sharding.Mesh, got {type(mesh).__name__}")
        self = cls.__new__(cls)
        self._init(mesh)
        return self

    def _init(self, jax_mesh: Any) -> None:
        if len(set(jax_mesh.axis_names)) != len(jax_mesh.axis_names):
            raise ValueError(f"Mesh: duplicate axis names {jax_mesh.axis_names}")
        #: the equivalent ``jax.sharding.Mesh``
        self.jax_mesh = jax_mesh
        #: axis names, major to minor
        self.axis_names: tuple[str, ...] = tuple(jax_mesh.axis_names)
        #: axis name -> size
        self.shape: dict[str, int] = dict(zip(self.axis_names, jax_mesh.devices.shape))
        #: the devices in row-major mesh order: the device assignment of the partitions
        self.device_list: list[Any] = list(jax_mesh.devices.reshape(-1))
        self.size = len(self.device_list)

    @property
    def devices(self) -> np.ndarray:
        """The devices, as an array of the mesh's shape."""
        return self.jax_mesh.devices

    @property
    def axes(self) -> tuple[tuple[str, int], ...]:
        """(name, size) of every axis, major to minor."""
        return tuple(self.shape.items())

    def sharding(self, spec: Any, ndim: int | None = None) -> Any:
        """The ``jax.sharding.NamedSharding`` of ``spec`` on this mesh."""
        dims = self.check_spec(normalize_spec(spec, ndim, "sharding"), "sharding")
        return named_sharding(self, dims)

    def check_spec(self, spec: Spec, where: str, shape: Sequence[int] | None = None) -> Spec:
        """``spec`` unchanged after checking its axis names against the mesh and, for
        an array of ``shape``, that each split dimension divides evenly."""
        for axes in spec:
            for a in axes:
                if a not in self.shape:
                    raise ValueError(
                        f"{where}: unknown mesh axis {a!r} in {format_spec(spec)}; "
                        f"the mesh has axes {', '.join(map(repr, self.axis_names))}"
                    )
        if shape is not None:
            for d, (n, axes) in enumerate(zip(shape, spec)):
                parts = math.prod(self.shape[a] for a in axes)
                if n is not None and n % parts:
                    raise ValueError(
                        f"{where}: dimension {d} of size {n} does not split evenly over mesh "
                        f"axes {axes} ({parts} devices) in {format_spec(spec)}"
                    )
        return spec

    def _key(self) -> tuple:
        return self.axes, tuple(d.id for d in self.device_list), self.device_list[0].platform

    def __eq__(self, other: object) -> bool:
        """Same axes (names and sizes) over the same devices in the same order."""
        return isinstance(other, Mesh) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
        platform = self.device_list[0].platform
        return f"Mesh({{{axes}}}, platform={platform!r})"


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], *,
              devices: Sequence[Any] | None = None, platform: str | None = None) -> Mesh:
    """A mesh of ``axis_shapes`` with ``axis_names`` (as ``jax.make_mesh``), over
    ``devices`` or the first devices of ``platform``."""
    axis_shapes, axis_names = tuple(axis_shapes), tuple(axis_names)
    if len(axis_shapes) != len(axis_names):
        raise ValueError(f"make_mesh: {len(axis_shapes)} axis sizes for {len(axis_names)} axis names")
    if len(set(axis_names)) != len(axis_names):
        raise ValueError(f"make_mesh: duplicate axis names {axis_names}")
    return Mesh(dict(zip(axis_names, axis_shapes)), devices=devices, platform=platform)


def as_mesh(mesh: Any) -> Mesh:
    """``mesh`` (an hlograph ``Mesh`` or a ``jax.sharding.Mesh``) as a ``Mesh``."""
    if isinstance(mesh, Mesh):
        return mesh
    if isinstance(mesh, sdy.JaxMesh):
        return Mesh.from_jax(mesh)
    raise TypeError(f"mesh must be a hlograph.Mesh or a jax.sharding.Mesh, got {type(mesh).__name__}")


def named_sharding(mesh: Mesh, spec: Spec) -> Any:
    """The ``jax.sharding.NamedSharding`` of a normalized spec on ``mesh``."""
    entries = [None if not axes else axes[0] if len(axes) == 1 else axes for axes in spec]
    while entries and entries[-1] is None:
        entries.pop()
    return sdy.NamedSharding(mesh.jax_mesh, sdy.PartitionSpec(*entries))
