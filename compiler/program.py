"""Graphs that mix device ops and host ops: a sequence of segments.

The partitioner (compiler/partition.py) splits the graph into maximal device
segments (one StableHLO module each, compiled by PJRT) and host segments (one
Numba function each). Device segments whose inputs come from value-dependent
host ops are lowered at run time and cached per input shape, like any
``Function`` with unknown dimensions.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence

import numpy as np

from ..frontend.graph import Constant, Graph, subgraph
from ..runtime.args import ArgumentChecker
from ..runtime.host.registry import has_impl
from ..runtime.host.segment import compile_segment
from .partition import DEVICE, Segment, partition
from .placement import placement

__all__ = ["Program", "CompiledProgram", "explain", "is_partitioned"]


def is_partitioned(segments: Sequence[Segment]) -> bool:
    """True unless the graph is (at most) one device segment."""
    return len(segments) > 1 or any(s.kind != DEVICE for s in segments)


class Program:
    """The segments of one graph, with each device segment's ``Function``."""

    def __init__(self, graph: Graph, segments: Sequence[Segment], pipeline: str, device: Any):
        from .api import Function

        self.graph = graph
        self.segments = list(segments)
        self.pipeline = pipeline
        #: the jax Device the device segments run on
        self.device = device
        self.parts: list[Any] = []
        for seg in self.segments:
            if seg.kind == DEVICE:
                self.parts.append(Function(subgraph(seg.inputs, seg.outputs), pipeline,
                                           device.platform, device=device))
            else:
                self.parts.append(compile_segment(seg.nodes, seg.inputs, seg.outputs))

    def lowered_modules(self) -> list[Any]:
        """The Lowered of each device segment whose input shapes are static now (else None)."""
        out = []
        for seg, part in zip(self.segments, self.parts):
            if seg.kind == DEVICE and all(v.type.is_static for v in part.graph.inputs):
                out.append(part.lower())
            else:
                out.append(None)
        return out

    def explain(self) -> str:
        return explain(self.graph, self.segments, self.device.platform)

    def analyses(self, analyse: Callable[[Any], Any], items: Sequence[Any]) -> list[dict[str, Any]]:
        """One entry per segment: ``{"segment": i, "kind": "device" | "host",
        "runs": how it runs (as ``explain`` says), "analysis": analyse(item)}``,
        where ``items`` holds a Lowered or Compiled per device segment that has
        one now; ``"analysis"`` is None for host segments and for device
        segments lowered at run time."""
        out = []
        for i, (seg, item) in enumerate(zip(self.segments, items)):
            out.append({"segment": i, "kind": "device" if seg.kind == DEVICE else "host",
                        "runs": _where(seg), "analysis": None if item is None else analyse(item)})
        return out

    def as_text(self, debug_info: bool = False) -> str:
        lines = ["// " + line for line in self.explain().splitlines()]
        for i, lowered in enumerate(self.lowered_modules()):
            if lowered is not None:
                lines.append(f"// ----- segment {i} (device)")
                lines.append(lowered.as_text(debug_info=debug_info).rstrip())
        return "\n".join(lines) + "\n"


def explain(graph: Graph, segments: Sequence[Segment], platform: str | None = None) -> str:
    """What runs where on ``platform`` (None: jax's default), and why: one block per segment."""
    n = len(segments)
    lines = [f"{n} segment{'s' if n != 1 else ''}"]
    for i, seg in enumerate(segments):
        where = _where(seg)
        ins = ", ".join(_name(v, graph) for v in seg.inputs) or "-"
        outs = ", ".join(_name(v, graph) for v in seg.outputs) or "-"
        lines.append(f"segment {i}: {where}; reads {ins}; produces {outs}")
        reasons: dict[str, int] = {}
        for node in seg.nodes:
            why = placement(node, platform).why
            reasons[why] = reasons.get(why, 0) + 1
        for why, count in reasons.items():
            lines.append(f"  {why}" + (f" (x{count})" if count > 1 else ""))
    return "\n".join(lines)


def _where(seg: Segment) -> str:
    """How a segment runs, in words."""
    if seg.kind == DEVICE:
        static = all(v.type.is_static for v in seg.inputs)
        calls = len(seg.host_calls)
        part = (f"; part {seg.part[0]} of {seg.part[1]} of a large device graph, compiled on its own"
                if seg.part else "")
        return "device (StableHLO, PJRT" + (
            f"; {calls} in-module host call{'s' if calls != 1 else ''} (XLA FFI, Numba)"
            if calls else "") + part + ")" + (
            "" if static else "; lowered at run time: its input shapes depend on values")
    numba = all(has_impl(n.op) for n in seg.nodes)
    return "host (" + ("Numba, one compiled function" if numba else "Python") + ")"


def _name(v, graph: Graph) -> str:
    for i, x in enumerate(graph.inputs):
        if x is v:
            return v.name or f"input {i}"
    if v.owner is not None:
        return f"{type(v.owner.op).__name__}:{v.index}[{v.type}]"
    return str(v.type)


class CompiledProgram:
    """Runs the segments in order: ``compiled(*args)`` as ``Compiled``.

    The device segments whose input shapes are static are compiled before the
    first call runs, several at once (XLA compiles in parallel threads); the
    others when they first run."""

    def __init__(self, program: Program):
        self.program = program
        self.graph = program.graph
        self._check = ArgumentChecker(self.graph.inputs)
        self._single = self.graph.single_output
        self._compiled: list[Any] | None = None
        self._lock = threading.Lock()
        self._runners: list[Any] | None = None

    def _run(self, args: Sequence[Any]) -> list[Any]:
        values = self._check(args)
        runners = self._runners
        if runners is None:
            compiled = self._compiled_segments()
            runners = self._runners = [p if c is None else c for p, c in zip(self.program.parts, compiled)]
        env: dict[int, Any] = {id(v): a for v, a in zip(self.graph.inputs, values)}
        for seg, part in zip(self.program.segments, runners):
            ins = [env[id(v)] for v in seg.inputs]
            if seg.kind == DEVICE:
                outs = part(*ins, output="device")
                outs = [outs] if part.graph.single_output else list(outs)
            else:
                outs = part(*(np.asarray(a) for a in ins))
            for v, o in zip(seg.outputs, outs):
                env[id(v)] = o
        return [v.data if isinstance(v, Constant) else env[id(v)] for v in self.graph.outputs]

    def __call__(self, *args: Any, output: str = "numpy", **kwargs: Any):
        if kwargs:
            args = self.graph.bind(args, kwargs)
        if output not in ("numpy", "device"):
            raise ValueError(f"output must be 'numpy' or 'device', got {output!r}")
        outs = self._run(args)
        if output == "numpy":
            outs = [np.asarray(o) for o in outs]
        else:
            outs = [self._to_device(o) if isinstance(o, np.ndarray) else o for o in outs]
        return outs[0] if self._single else tuple(outs)

    def _to_device(self, value: np.ndarray):
        from ..xla.pjrt import device_putter
        return device_putter(value.dtype, value.shape, self.program.device)(value)

    # the Function's dispatcher keeps partitioned graphs on the Python path
    def _python_call(self, *args):
        outs = self._run(args)
        return outs[0] if self._single else tuple(outs)

    def _cache_miss(self, *args):
        return self._python_call(*args), None, False

    @property
    def input_types(self):
        return self.graph.input_types

    def _compiled_segments(self) -> list[Any]:
        """The Compiled of each device segment compiled ahead of time (else None)."""
        with self._lock:
            if self._compiled is None:
                self._compiled = compile_all(self.program.lowered_modules())
        return self._compiled

    def as_text(self) -> str:
        """The segment listing (``Function.explain()``) as comments, then the
        optimized HLO of each device segment compiled ahead of time."""
        lines = ["// " + line for line in self.program.explain().splitlines()]
        for i, (seg, compiled) in enumerate(zip(self.program.segments, self._compiled_segments())):
            lines.append(f"// ----- segment {i}: {_where(seg)}")
            if compiled is not None:
                lines.append(compiled.as_text().rstrip())
        return "\n".join(lines) + "\n"

    def cost_analysis(self) -> list[dict[str, Any]]:
        """XLA's cost estimates per segment (``Program.analyses``: host segments
        and device segments lowered at run time have ``"analysis": None``)."""
        return self.program.analyses(lambda c: c.cost_analysis(), self._compiled_segments())

    def memory_analysis(self) -> list[dict[str, Any]]:
        """XLA's memory sizes per segment, as ``cost_analysis``."""
        return self.program.analyses(lambda c: c.memory_analysis(), self._compiled_segments())


def compile_all(lowered: Sequence[Any]) -> list[Any]:
    """``lw.compile()`` of each Lowered (None stays None), in parallel threads when
    there are several: XLA's compile releases the interpreter lock."""
    todo = [i for i, lw in enumerate(lowered) if lw is not None]
    out: list[Any] = [None] * len(lowered)
    workers = min(len(todo), os.cpu_count() or 1)
    if workers <= 1:
        for i in todo:
            out[i] = lowered[i].compile()
        return out
    with ThreadPoolExecutor(workers, thread_name_prefix="hlograph-compile") as pool:
        for i, compiled in zip(todo, pool.map(lambda i: lowered[i].compile(), todo)):
            out[i] = compiled
    return out


def plan(graph: Graph, pipeline: str, device: Any, split: bool = False) -> Program | None:
    """A Program running on ``device`` when ``graph`` needs host segments (or, with
    ``split``, is large enough to be cut into parts), else None (one device module)."""
    segments = partition(graph, device.platform, split)
    if not is_partitioned(segments):
        return None
    return Program(graph, segments, pipeline, device)
