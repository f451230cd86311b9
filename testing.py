"""Helpers for backend developers' tests: printing IR for lit/FileCheck."""

from __future__ import annotations

from .frontend.graph import Graph
from .lowering.api import compile as _compile

__all__ = ["print_ir"]


def print_ir(case: str, graph: Graph, *specs, pipeline: str = "O0") -> None:
    """Prints ``TEST: <case> <first input type>`` and the lowered module (raw by
    default), for ``# CHECK-LABEL: TEST: <case> ...`` in filecheck/ops tests."""
    header = str(graph.inputs[0].type) if graph.inputs else ""
    print(f"TEST: {case} {header}".rstrip())
    print(_compile(graph, pipeline=pipeline).lower(*specs).as_text())
