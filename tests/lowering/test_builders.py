"""The StableHLO builders of ``hlograph.xla.mlir.hlo``: the simple elementwise ones
(``FAST_BUILDERS``) create their op with ``ir.Operation.create`` and build exactly
what jax's generated builders build, for every element type and shape."""

from __future__ import annotations

import numpy as np
import pytest
from jax.extend.mlir.dialects import stablehlo as generated

import hlograph as hg
from hlograph.compiler import graph_key
from hlograph.xla import mlir
from hlograph.xla.mlir import func, hlo, ir, make_context

ELEMENT_TYPES = {
    "f32": lambda: ir.F32Type.get(),
    "bf16": lambda: ir.BF16Type.get(),
    "f64": lambda: ir.F64Type.get(),
    "i32": lambda: ir.IntegerType.get_signless(32),
    "ui8": lambda: ir.IntegerType.get_unsigned(8),
    "i1": lambda: ir.IntegerType.get_signless(1),
    "c64": lambda: ir.ComplexType.get(ir.F32Type.get()),
}
SHAPES = {"scalar": [], "static": [3, 2], "dynamic": [ir.ShapedType.get_dynamic_size(), 4]}


def _build(builder, arity: int, element: str, shape: str):
    """The op ``builder`` makes on block arguments of one type (a predicate first for
    select), as generic text, or the type of the error it raised."""
    with make_context(), ir.Location.unknown():
        t = ir.RankedTensorType.get(SHAPES[shape], ELEMENT_TYPES[element]())
        pred = ir.RankedTensorType.get(SHAPES[shape], ir.IntegerType.get_signless(1))
        types = [pred, t, t] if builder.__name__ == "select" else [t] * arity
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("f", ir.FunctionType.get(types, []))
        block = f.add_entry_block()
        with ir.InsertionPoint(block):
            try:
                result = builder(*block.arguments)
            except Exception as e:  # noqa: BLE001 - the same refusal on both sides
                return type(e).__name__
            return str(result.owner.operation.get_asm(print_generic_op_form=True)), str(result.type)


@pytest.mark.parametrize("name", sorted(mlir.FAST_BUILDERS))
def test_fast_builders_build_what_the_generated_builders_build(name):
    arity = mlir.FAST_BUILDERS[name]
    fast, slow = getattr(hlo, name), getattr(generated, name)
    assert fast is not slow and fast.__wrapped__ is slow
    for element in ELEMENT_TYPES:
        for shape in SHAPES:
            assert _build(fast, arity, element, shape) == _build(slow, arity, element, shape), (element, shape)


def test_other_calls_go_to_the_generated_builder():
    with make_context(), ir.Location.unknown():
        t = ir.RankedTensorType.get([3], ir.F32Type.get())
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("f", ir.FunctionType.get([t, t], []))
        x, y = f.add_entry_block().arguments
        with ir.InsertionPoint(f.entry_block):
            assert hlo.add(lhs=x, rhs=y).type == t  # keywords
            assert hlo.sine(x, results=[t]).type == t  # result types given
            loc = ir.Location.name("here")
            assert str(hlo.negate(x, loc=loc).owner.location) == str(loc)
            with pytest.raises(TypeError):
                hlo.add(x)  # another arity: the generated builder's own error
    # every other name is jax's own
    assert hlo.AddOp is generated.AddOp and hlo.constant is generated.constant


def test_rules_binding_fast_builders_have_graph_keys(tmp_path, monkeypatch):
    # (graph keys name a rule by its code and the values it closes over)
    monkeypatch.setenv("HLOGRAPH_CACHE_DIR", str(tmp_path))

    def graph():
        x = hg.tensor("x", (8,), "float32")
        return hg.Graph([x], hg.sin(x) * x + x)

    g = graph()
    fn = hg.compile(g)
    assert graph_key.graph_key(g, fn.pipeline, fn.device) == graph_key.graph_key(graph(), fn.pipeline, fn.device)
    assert np.allclose(fn(np.ones(8, np.float32)), np.sin(1.0) + 1.0)
