"""The placement policy: where one node of a graph runs on a platform, and why.

Every question of the kind "device, in-module host call or host segment?" is
answered here, once: the partitioner (partition.py), ``explain()``, lowering
(through the ``host_calls`` the compiler passes to it) and ``hlograph
coverage`` all ask ``placement``.

- ``device``: the op has a lowering rule (native StableHLO, or jax's lowering
  through the bridge) and every graph it runs inside itself (branches, loop
  bodies: ``Op.inner_graphs``) can run inside a device module too.
- ``in-module host call``: a host op (no device lowering, or ``host_only``) with a
  Numba implementation and static output types, on the CPU: it runs inside the
  device module as an XLA FFI custom call (runtime/host/calls.py).
- ``host``: everything else runs in a host segment, through its Numba
  implementation, or its Python ``perform`` when it has none. A control-flow op
  whose body needs the host runs there whole (its ``perform`` evaluates the
  body op by op), so a host op inside an ``ifelse`` or a ``scan`` still runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..frontend.graph import Apply, Op, Variable
from ..frontend.types import TensorType
from ..lowering import registry as _rules
from ..lowering.registry import get_rule, lookup as rule_lookup
from ..runtime.host import calls
from ..runtime.host.registry import has_impl, lookup as impl_lookup
from ..xla.pjrt import resolve_platform

__all__ = ["DEVICE", "HOST_CALL", "HOST", "Placement", "placement", "in_device_module",
           "static_outputs", "class_placement"]

DEVICE, HOST_CALL, HOST = "device", "in-module host call", "host"

#: the size given to unknown dims when probing whether an op's outputs are static
_PROBE_DIM = 7


@dataclass(frozen=True)
class Placement:
    """Where a node runs (``where``: DEVICE, HOST_CALL or HOST), through what
    (``via``: "StableHLO", "jax bridge", "XLA FFI (Numba)", "Numba", "Python
    perform") and why (``why``: one line naming the op)."""

    where: str
    via: str
    why: str

    @property
    def in_device_module(self) -> bool:
        """True when the node runs inside a device module (natively or as a host call)."""
        return self.where != HOST


def _device_rule(cls: type[Op]):
    """The device lowering rule of Op class ``cls``, or None for a host op."""
    return None if cls.host_only else rule_lookup(cls)


def static_outputs(node: Apply) -> bool:
    """True when ``node``'s outputs have static types, or will have once its inputs do.

    For inputs with unknown dims (a graph not yet specialized, or values after
    a value-dependent op), ``make_node`` runs again on inputs whose unknown
    dims are given a size: outputs that come out static then depend on the
    input shapes only. A wrong guess costs nothing: the device segment is
    partitioned again once its shapes are known.
    """
    if all(v.type.is_static for v in node.inputs):
        return all(o.type.is_static for o in node.outputs)
    probe = [v if v.type.is_static else
             Variable(TensorType(v.dtype, [_PROBE_DIM if d is None else d for d in v.shape]))
             for v in node.inputs]
    try:
        outputs = node.op.make_node(*probe).outputs
    except Exception:  # noqa: BLE001 - any refusal means: keep the op in a host segment
        return False
    return all(o.type.is_static for o in outputs)


def _host_call_allowed(node: Apply, platform: str | None) -> bool:
    """Whether the host op of ``node`` runs as an in-module host call on ``platform``."""
    if not calls.can_call(node.op):
        return False
    if any(v.dtype not in calls.SUPPORTED_DTYPES for v in (*node.inputs, *node.outputs)):
        return False
    if resolve_platform(platform) != "cpu":
        return False
    return static_outputs(node)


def _first_host_node(op: Op, platform: str | None) -> tuple[Apply, Placement] | None:
    """The first node of ``op``'s inner graphs that cannot run in a device module."""
    for graph in op.inner_graphs:
        for inner in graph.nodes:
            p = placement(inner, platform)
            if not p.in_device_module:
                return inner, p
    return None


#: (Op class, platform) -> the device placement of its nodes, for the classes with a
#: device rule and no inner graphs (their nodes' placement depends on nothing else);
#: valid while the lowering rules are those of ``_rules.generation`` ``_cached_generation``
_DEVICE_PLACEMENTS: dict[tuple[type, str | None], Placement] = {}
_cached_generation = -1


def placement(node: Apply, platform: str | None = None) -> Placement:
    """Where ``node`` runs on ``platform`` (None: jax's default), and why.

    Raises:
        NotImplementedError: the op can run nowhere (no lowering rule, no host
            implementation, no ``perform``); the message says how to register a rule.
    """
    global _cached_generation
    op = node.op
    cls = type(op)
    if _cached_generation != _rules.generation:
        _DEVICE_PLACEMENTS.clear()
        _cached_generation = _rules.generation
    cached = _DEVICE_PLACEMENTS.get((cls, platform))
    if cached is not None:
        return cached
    name = cls.__name__
    rule = _device_rule(cls)
    if rule is not None:
        inner = _first_host_node(op, platform) if op.inner_graphs else None
        if inner is None:
            via = "jax bridge" if getattr(rule, "jax_bridge", False) else "StableHLO"
            what = "jax's lowering (bridge)" if via == "jax bridge" else "StableHLO lowering"
            place = Placement(DEVICE, via, f"{name}: {what}")
            if cls.inner_graphs is Op.inner_graphs:  # no inner graphs: the class decides
                _DEVICE_PLACEMENTS[(cls, platform)] = place
            return place
        inner_place = inner[1]
        via = "Numba" if has_impl(op) else "Python perform"
        why = (f"{name}: an inner graph needs the host ({inner_place.why}); the whole {name} "
               f"runs on the host, through {'Numba' if via == 'Numba' else 'its Python perform'}")
        return Placement(HOST, via, why)
    reason = getattr(op, "host_reason", None) or (
        "output shape depends on values" if op.host_only else "no lowering rule")
    if _host_call_allowed(node, platform):
        if reason == "output shape depends on values":  # the generic reason; not so here
            reason = "no StableHLO lowering"
        return Placement(HOST_CALL, "XLA FFI (Numba)",
                         f"{name}: {reason}; host (in-module FFI call, Numba)")
    if has_impl(op):
        return Placement(HOST, "Numba", f"{name}: {reason} (Numba)")
    if type(op).perform is Op.perform:
        get_rule(op)  # raises NotImplementedError naming the op and how to register a rule
    return Placement(HOST, "Python perform",
                     f"{name}: {reason}; no Numba implementation, runs its Python perform")


def in_device_module(node: Apply, platform: str | None = None) -> bool:
    """True when ``node`` runs inside a device module on ``platform``."""
    return placement(node, platform).in_device_module


def class_placement(cls: type[Op]) -> str:
    """How instances of ``cls`` run, for the coverage table: "native StableHLO",
    "jax bridge", "host (Numba)" or "host (Python perform)" (whatever the graph:
    in-module host calls and host control flow depend on the node)."""
    rule = _device_rule(cls)
    if rule is None:
        return "host (Numba)" if impl_lookup(cls) is not None else "host (Python perform)"
    return "jax bridge" if getattr(rule, "jax_bridge", False) else "native StableHLO"
