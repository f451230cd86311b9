"""Multi-device compilation: ``hg.compile(graph, mesh=..., in_shardings=..., out_shardings=...)``.

The graph lowers as for one device (``Function.lower``), for the mesh
(``lower_graph(mesh=...)``), so that sharding constraints (``hg.with_sharding``)
lower to ``sdy.sharding_constraint``. Then @main's arguments and results get
``sdy.sharding`` attributes, the module gets ``mhlo.num_partitions`` and one
``sdy.mesh @mesh``, and PJRT compiles it for the mesh's devices with XLA's SPMD
partitioner, which splits the computation and inserts the collectives. Calls
lay the arguments out over the mesh (``jax.device_put``; jax arrays already
laid out so pass as they are) and return NumPy arrays, or jax arrays laid out by
the output shardings with ``output="device"``.

Shardings: ``in_shardings`` / ``out_shardings`` give one partition spec per
input / output (or one spec object, ``hg.P(...)``, ``PartitionSpec`` or
``NamedSharding``, for all of them). An input without a spec is replicated; an
output without a spec is laid out as XLA's sharding propagation chooses.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..frontend.graph import Graph, Variable
from .pytrees import with_pytrees
from ..frontend.specs import Spec, is_spec_object, normalize_spec
from ..runtime import executables
from ..runtime.args import ArgumentChecker
from ..runtime.cache import compile_cached
from ..runtime.mesh import Mesh, as_mesh, named_sharding
from .api import Compiled, Function, Lowered
from ..xla.mlir import ir, module_fingerprint, module_to_bytecode
from ..xla.pjrt import DeviceArray, make_dispatcher
from ..xla.sdy import execute_sharded, lift_inlined_meshes, output_partition_specs, put_sharded, sdy_sharding, sharded_fastpath_data, spmd_compile_options
from ..lowering.lower import LoweringError, attribute_dicts, set_attribute_dicts

__all__ = ["ShardedFunction", "ShardedLowered", "ShardedCompiled", "sharded_function"]


def sharded_function(graph: Graph, pipeline: str, platform: str | None, mesh: Any,
                     in_shardings: Any, out_shardings: Any) -> "ShardedFunction":
    """The ``ShardedFunction`` of ``hg.compile(graph, mesh=..., ...)``: checks the
    mesh and the specs (rank, axis names) now; a mesh may come from the
    ``NamedSharding`` objects among the shardings when ``mesh`` is None."""
    if mesh is None:
        mesh = _mesh_of(in_shardings) or _mesh_of(out_shardings)
        if mesh is None:
            raise ValueError("in_shardings/out_shardings need a mesh: pass mesh=hg.make_mesh(...) "
                             "(or NamedSharding objects, which carry theirs)")
    mesh = as_mesh(mesh)
    mesh_platform = mesh.device_list[0].platform
    if platform is not None and executables.get_client(platform).platform != mesh_platform:
        raise ValueError(f"the mesh's devices are {mesh_platform} devices, but platform={platform!r}")
    in_specs = _specs(in_shardings, graph.inputs, mesh, "in_shardings")
    out_specs = _specs(out_shardings, graph.outputs, mesh, "out_shardings")
    return ShardedFunction(graph, pipeline, mesh_platform, mesh, in_specs, out_specs)


def _mesh_of(shardings: Any) -> Any:
    items = shardings if isinstance(shardings, (list, tuple)) else [shardings]
    for s in items:
        if getattr(s, "mesh", None) is not None and type(s).__name__ == "NamedSharding":
            return s.mesh
    return None


def _specs(shardings: Any, values: Sequence[Variable], mesh: Mesh, what: str) -> list[Spec | None]:
    """One normalized spec (or None) per value, checked against the values' ranks
    and static dimensions and the mesh's axes."""
    n = len(values)
    if shardings is None:
        items: list[Any] = [None] * n
    elif is_spec_object(shardings):
        items = [shardings] * n
    elif isinstance(shardings, (list, tuple)):
        items = list(shardings)
        if len(items) != n:
            raise ValueError(
                f"{what}: expected one partition spec per {'input' if what[:2] == 'in' else 'output'} "
                f"({n}), got {len(items)}; wrap a single spec for all of them in hg.P(...)"
            )
    else:
        raise TypeError(f"{what}: expected a list of partition specs or one hg.P(...), got {shardings!r}")
    out: list[Spec | None] = []
    for i, (s, v) in enumerate(zip(items, values)):
        if s is None:
            out.append(None)
            continue
        where = f"{what}[{i}] ({v.name or v.type})"
        if type(s).__name__ == "NamedSharding" and as_mesh(s.mesh) != mesh:
            raise ValueError(f"{where}: the NamedSharding's mesh {as_mesh(s.mesh)} is not the mesh {mesh}")
        spec = normalize_spec(s, v.ndim, where)
        out.append(mesh.check_spec(spec, where, v.type.shape))
    return out


class ShardedFunction(Function):
    """A graph compiled for a device mesh; calls cache per argument signature as
    ``Function``'s do."""

    def __init__(self, graph: Graph, pipeline: str, platform: str | None, mesh: Mesh,
                 in_specs: Sequence[Spec | None], out_specs: Sequence[Spec | None]):
        super().__init__(graph, pipeline, platform, device=mesh.device_list[0])
        self.mesh = mesh
        self.in_specs = list(in_specs)
        self.out_specs = list(out_specs)

    def lower(self, *arg_specs: Any) -> "ShardedLowered":
        """Lowers for concrete argument types, with the sharding annotations."""
        base = super().lower(*arg_specs)
        if base.program is not None:
            raise NotImplementedError(
                "a graph with host ops cannot be compiled for a mesh yet; its segments: \n"
                + base.program.explain()
            )
        graph = base.graph
        in_specs = [_full_spec(s, v.ndim) for s, v in zip(self.in_specs, graph.inputs)]
        for i, (s, v) in enumerate(zip(in_specs, graph.inputs)):
            self.mesh.check_spec(s, f"in_shardings[{i}] ({v.type})", v.type.shape)
        for i, (s, v) in enumerate(zip(self.out_specs, graph.outputs)):
            if s is not None:
                self.mesh.check_spec(s, f"out_shardings[{i}] ({v.type})", v.type.shape)
        module = base.module
        annotate(module, self.mesh, in_specs, self.out_specs)
        return ShardedLowered(graph, module, base.device, self.mesh, in_specs, self.out_specs)

    def _flat_lower(self, *arg_specs: Any) -> "ShardedLowered":
        # a call runs what lower() gives (a mesh program is never split into parts)
        return ShardedFunction.lower(self, *arg_specs)

    def __repr__(self) -> str:
        return (f"<ShardedFunction {self.graph!r} mesh={self.mesh!r} pipeline={self.pipeline!r}>")


def _full_spec(spec: Spec | None, ndim: int) -> Spec:
    return ((),) * ndim if spec is None else spec


def annotate(module: ir.Module, mesh: Mesh, in_specs: Sequence[Spec], out_specs: Sequence[Spec | None]) -> None:
    """Adds the Shardy annotations to @main of ``module`` (in place): ``sdy.sharding``
    on every argument and on every result with a spec, ``mhlo.num_partitions``
    and ``mhlo.num_replicas`` on the module, and one ``sdy.mesh @mesh``."""
    with module.context, ir.Location.unknown():
        main = ir.SymbolTable(module.operation)["main"]
        arg_attrs = attribute_dicts(main, "arg_attrs")
        res_attrs = attribute_dicts(main, "res_attrs")
        for d, spec in zip(arg_attrs, in_specs):
            d["sdy.sharding"] = sdy_sharding(mesh.axes, spec)
        for d, spec in zip(res_attrs, out_specs):
            if spec is not None:
                d["sdy.sharding"] = sdy_sharding(mesh.axes, spec)
        set_attribute_dicts(main, "arg_attrs", arg_attrs)
        set_attribute_dicts(main, "res_attrs", res_attrs)
        i32 = ir.IntegerType.get_signless(32)
        module.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, mesh.size)
        module.operation.attributes["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
    lift_inlined_meshes(module)


class ShardedLowered(Lowered):
    """The annotated StableHLO module of a ``ShardedFunction`` for one argument signature."""

    def __init__(self, graph: Graph, module: ir.Module, device: Any, mesh: Mesh,
                 in_specs: Sequence[Spec], out_specs: Sequence[Spec | None]):
        super().__init__(graph, module, device)
        self.mesh = mesh
        self.in_specs = list(in_specs)
        self.out_specs = list(out_specs)

    def compile(self) -> "ShardedCompiled":
        """Compiles for the mesh's devices (``num_partitions`` = mesh size) with
        XLA's SPMD partitioner."""
        mesh = self.mesh
        client = executables.get_client(self.platform)
        options = spmd_compile_options([d.id for d in mesh.device_list], len(self.in_specs),
                                       [s is None for s in self.out_specs])
        loaded = compile_cached(client, module_to_bytecode(self._module), mesh.device_list, options,
                                module_fingerprint(self._module))
        out_specs = list(self.out_specs)
        if any(s is None for s in out_specs):
            chosen = output_partition_specs(loaded, mesh.jax_mesh, len(out_specs))
            if chosen is None:
                raise LoweringError("XLA did not report the shardings it chose for the outputs; "
                                    "give every output a spec in out_shardings")
            for i, (s, v) in enumerate(zip(out_specs, self.graph.outputs)):
                if s is None:
                    out_specs[i] = normalize_spec(chosen[i], v.ndim, f"output {i}")
        return with_pytrees(ShardedCompiled(self.graph, loaded, mesh, self.in_specs, out_specs))


class ShardedCompiled(Compiled):
    """Compiled code for a mesh, for one argument signature: ``compiled(*args)``
    checks the arguments, lays them out over the mesh and runs on all its devices."""

    def __init__(self, graph: Graph, loaded: Any, mesh: Mesh, in_specs: Sequence[Spec],
                 out_specs: Sequence[Spec]):
        self.graph = graph
        self.executable = loaded
        self.mesh = mesh
        self.in_specs = list(in_specs)
        self.out_specs = list(out_specs)
        #: the ``jax.sharding.NamedSharding`` of each input and output
        self.in_shardings = [named_sharding(mesh, s) for s in self.in_specs]
        self.out_shardings = [named_sharding(mesh, s) for s in self.out_specs]
        self._single = single = graph.single_output
        check = ArgumentChecker(graph.inputs)
        in_shardings, out_shardings = self.in_shardings, self.out_shardings
        shapes = [v.type.shape for v in graph.outputs]

        def python_call(*args):
            values = check(args)
            arrays = [put_sharded(a, s) for a, s in zip(values, in_shardings)]
            outs = execute_sharded(loaded, arrays, shapes, out_shardings)
            return outs[0] if single else tuple(outs)

        fastpath = sharded_fastpath_data(loaded, in_shardings, out_shardings,
                                         [v.type for v in graph.outputs], single)

        def cache_miss(*args):
            # the C++ dispatcher takes over calls whose arguments are NumPy
            # arrays or jax arrays already laid out as the inputs want
            fast = fastpath if all(_dispatchable(a, s) for a, s in zip(args, in_shardings)) else None
            return python_call(*args), fast, False

        self._python_call = python_call
        self._cache_miss = cache_miss
        self._dispatch = make_dispatcher("hlograph.ShardedCompiled", python_call, cache_miss)
        self._bind_graph(self._dispatch, graph)


def _dispatchable(arg: Any, sharding: Any) -> bool:
    if type(arg) is np.ndarray:
        return True
    return type(arg) is DeviceArray and arg.sharding.is_equivalent_to(sharding, arg.ndim)
