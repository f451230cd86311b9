"""Shardy and SPMD at the jax boundary: mesh and sharding types, ``#sdy``
annotations, compile options for a partitioned program, and running it."""

from __future__ import annotations

import numpy as np

import jax
from jax._src import core as _jax_core
from jax._src import sharding_impls as _sharding_impls
from jax._src import tree_util as _jax_tree_util
from jax._src.interpreters import pxla as _pxla
from jax.extend.mlir.dialects import sdy

from .mlir import ir, passmanager
from .pjrt import DeviceArray, set_x64_local, swap_x64_local, xc

__all__ = ["sdy", "JaxMesh", "NamedSharding", "PartitionSpec", "make_jax_mesh",
           "sdy_sharding", "sharding_constraint", "lift_inlined_meshes", "spmd_compile_options",
           "put_sharded", "execute_sharded", "sharded_fastpath_data", "output_partition_specs"]

# Modules compiled for a mesh carry Shardy annotations (jaxlib 0.10.2 defaults to
# Shardy: ``jax_use_shardy_partitioner``): ``sdy.sharding`` on @main's arguments
# and results, ``sdy.sharding_constraint`` inside, one ``sdy.mesh @mesh``; XLA's
# SPMD partitioner splits the program over ``num_partitions`` devices, with the
# build options jax.jit uses (jax/_src/interpreters/pxla.py create_compile_options).

#: jax's mesh and sharding types (accepted from users as they are)
JaxMesh = jax.sharding.Mesh
NamedSharding = jax.sharding.NamedSharding
PartitionSpec = jax.sharding.PartitionSpec


def make_jax_mesh(devices: np.ndarray, axis_names) -> "JaxMesh":
    """A jax mesh over ``devices`` (an array of devices, one dimension per axis)."""
    return JaxMesh(devices, tuple(axis_names))


def sdy_sharding(mesh_axes, dims) -> ir.Attribute:
    """A ``#sdy.sharding`` with an inlined mesh (``mesh_axes``: (name, size)
    pairs) and closed dimensions (``dims``: per dimension, the axis names it is
    split over; empty = replicated). ``lift_inlined_meshes`` replaces the
    inlined mesh by ``@mesh``."""
    mesh = sdy.MeshAttr.get([sdy.MeshAxisAttr.get(n, int(s)) for n, s in mesh_axes])
    return sdy.TensorShardingAttr.get(
        mesh, [sdy.DimensionShardingAttr.get([sdy.AxisRefAttr.get(a) for a in axes], is_closed=True)
               for axes in dims])


def sharding_constraint(x: ir.Value, sharding: ir.Attribute) -> ir.Value:
    """``sdy.sharding_constraint``: ``x`` with the given sharding."""
    return sdy.sharding_constraint(x, sharding)


def lift_inlined_meshes(module: ir.Module) -> None:
    """Moves the inlined meshes of ``module`` into ``sdy.mesh`` symbols, as jax does."""
    with module.context:
        passmanager.PassManager.parse("builtin.module(sdy-lift-inlined-meshes)").run(module.operation)


def spmd_compile_options(device_ids, num_args: int, propagate_to_outputs) -> "xc.CompileOptions":
    """Compile options for one program partitioned over ``device_ids`` (the mesh's
    devices in order) by XLA's SPMD partitioner; the ``num_args`` arguments keep
    their annotated shardings; ``propagate_to_outputs``: per result, whether XLA
    picks its sharding (results without an annotation)."""
    n = len(device_ids)
    opts = xc.CompileOptions()
    opts.num_replicas = 1
    opts.num_partitions = n
    build = opts.executable_build_options
    build.use_spmd_partitioning = True
    build.use_shardy_partitioner = True
    opts.device_assignment = xc.DeviceAssignment.create(np.asarray(device_ids, dtype=int).reshape(1, n))
    build.allow_spmd_sharding_propagation_to_parameters = [False] * num_args
    build.allow_spmd_sharding_propagation_to_output = [bool(p) for p in propagate_to_outputs]
    return opts


def put_sharded(value, sharding: "NamedSharding"):
    """``value`` (a NumPy or jax array) as a jax array laid out by ``sharding``; a
    jax array that already is stays as it is. 64-bit types stay 64-bit."""
    if type(value) is DeviceArray and value.sharding.is_equivalent_to(sharding, value.ndim):
        return value
    prev = swap_x64_local(True)
    try:
        return jax.device_put(value, sharding)
    finally:
        set_x64_local(prev)


def execute_sharded(loaded, arrays, shapes, shardings) -> list:
    """Runs a partitioned executable on jax arrays (one per argument, laid out as
    compiled); returns one jax array per result, of global shape ``shapes[i]``
    laid out by ``shardings[i]``."""
    results = loaded.execute_sharded(arrays).disassemble_into_single_device_arrays()
    prev = swap_x64_local(True)
    try:
        return [jax.make_array_from_single_device_arrays(tuple(shape), s, shards)
                for shape, s, shards in zip(shapes, shardings, results)]
    finally:
        set_x64_local(prev)


def sharded_fastpath_data(loaded, in_shardings, out_shardings, out_types, single_output: bool):
    """What the C++ dispatcher (``make_dispatcher``) caches to run a partitioned
    executable by itself: arguments laid out by ``in_shardings`` (NumPy arrays
    are split and transferred by it), results as jax arrays laid out by
    ``out_shardings``."""
    structure = 0 if single_output else tuple(range(len(out_types)))
    out_tree = _jax_tree_util.dispatch_registry.flatten(structure, None)[1]
    out_avals = [_jax_core.ShapedArray(tuple(t.shape), t.dtype) for t in out_types]
    n_in, n_out = len(in_shardings), len(out_shardings)
    return _pxla.MeshExecutableFastpathData(
        loaded, out_tree, list(in_shardings), list(out_shardings), out_avals,
        [True] * n_out, [True] * n_in, [None] * n_in, [])


def output_partition_specs(loaded, mesh: "JaxMesh", count: int) -> list | None:
    """The partition specs XLA chose for the ``count`` results of ``loaded`` (on
    ``mesh``), or None when the executable does not say."""
    shardings = loaded.get_output_shardings()
    if shardings is None:
        return None
    specs: list = []
    for s in shardings:
        specs.extend(_sharding_impls.parse_flatten_op_sharding(s, mesh))
    if len(specs) == 1 and count > 1:  # one sharding shared by every result
        specs = specs * count
    return specs if len(specs) == count else None
