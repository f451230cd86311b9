"""Lowering: the rule registry, its errors, debug locations, specialization."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.graph import Apply, Op
from hlograph.lowering import LoweringError, register
from hlograph.xla.mlir import hlo, ir, make_context


class Mystery(Op):
    __props__ = ("level",)

    def __init__(self, level):
        self.level = level

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0] + self.level]


class Opaque(Mystery):
    perform = hg.Op.perform  # no reference implementation either


def test_op_without_rule_or_perform_names_op_props_and_how_to_register():
    x = hg.tensor("x", (3,))
    g = hg.Graph([x], Opaque(7)(x))
    with pytest.raises(NotImplementedError) as e:
        hg.compile(g).lower()
    msg = str(e.value)
    assert "no lowering rule for Op Opaque (level=7)" in msg
    assert "@hlograph.lowering.register(Opaque)" in msg


def test_op_with_only_perform_runs_on_the_host():
    x = hg.tensor("x", (3,), "float32")
    fn = hg.compile(hg.Graph([x], Mystery(7)(x) * 2))
    with pytest.warns(RuntimeWarning, match="Mystery has neither a lowering rule"):
        np.testing.assert_array_equal(fn(np.ones(3, np.float32)), np.full(3, 16, np.float32))


def test_register_rejects_duplicates_and_non_ops():
    class Fresh(Op):
        pass

    @register(Fresh)
    def lower_fresh(ctx, x):
        return [x]

    with pytest.raises(ValueError, match="already registered"):
        register(Fresh)(lower_fresh)
    with pytest.raises(TypeError, match="takes an Op subclass"):
        register(int)


def test_rule_lookup_follows_the_mro():
    class Base(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type])

        def perform(self, node, inputs):
            return [-inputs[0]]

    class Derived(Base):
        pass

    @register(Base)
    def lower_base(ctx, x):
        return [hlo.negate(x)]

    x = hg.tensor("x", (2,), "float32")
    v = np.array([1.0, -2.0], np.float32)
    np.testing.assert_array_equal(hg.compile(hg.Graph([x], Derived()(x)))(v), -v)


def test_rule_with_wrong_result_count_or_type_is_reported():
    class Two(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type])

    class WrongType(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type])

    @register(Two)
    def lower_two(ctx, x):
        return [x, x]

    @register(WrongType)
    def lower_wrong_type(ctx, x):
        return [hlo.convert(ir.RankedTensorType.get([2], ir.F64Type.get()), x)]

    x = hg.tensor("x", (2,), "float32")
    with pytest.raises(LoweringError, match="returned 2 values for 1 outputs"):
        hg.compile(hg.Graph([x], Two()(x))).lower()
    with pytest.raises(LoweringError, match="produced tensor<2xf64> for an output of type float32\\[2\\]"):
        hg.compile(hg.Graph([x], WrongType()(x))).lower()


def test_a_rule_sees_its_node_and_module_and_cannot_change_them():
    class Seen(Op):
        def make_node(self, x, y):
            return Apply(self, [x, y], [x.type])

    found = []

    @register(Seen)
    def lower_seen(ctx, x, y):
        found.append((ctx.op, ctx.in_types, ctx.out_types, ctx.out_type, ctx.ir_out_types(), ctx.module.platform))
        with pytest.raises(AttributeError):
            ctx.node = None
        assert ctx.broadcast_operands([x, y])[0] == x and "LoweringContext(module=" in repr(ctx)
        return [hlo.add(*ctx.broadcast_operands([x, y]))]

    x, y = hg.tensor("x", (2,), "float32"), hg.tensor("y", (), "float32")
    op = Seen()
    text = hg.compile(hg.Graph([x, y], op(x, y)), pipeline="O0").lower().as_text()
    assert "stablehlo.broadcast_in_dim %arg1" in text
    (seen_op, in_types, out_types, out_type, ir_types, platform), = found
    assert seen_op is op and in_types == [x.type, y.type] and out_types == [x.type] and out_type == x.type
    assert [str(t) for t in ir_types] == ["tensor<2xf32>"] and platform == "cpu"


def test_invalid_ir_from_a_rule_is_a_lowering_error():
    class Broken(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type])

    @register(Broken)
    def lower_broken(ctx, x):
        # stablehlo.abs of an unsigned tensor does not verify
        u32 = ir.RankedTensorType.get([2], ir.IntegerType.get_unsigned(32))
        return [hlo.convert(x.type, hlo.abs(hlo.convert(u32, x)))]

    x = hg.tensor("x", (2,), "float32")
    with pytest.raises(LoweringError, match="does not verify"):
        hg.compile(hg.Graph([x], Broken()(x))).lower()


def test_as_text_parses_back_and_debug_info_names_node_and_line():
    x = hg.tensor("x", (2, 3), "float32")
    y = hg.exp(x) + 1.0  # the source line
    text = hg.compile(hg.Graph([x], y), pipeline="O0").lower().as_text()
    assert "loc(" not in text
    with make_context():
        assert ir.Module.parse(text).operation.verify()
    dbg = hg.compile(hg.Graph([x], y), pipeline="O0").lower().as_text(debug_info=True)
    line = y.owner.trace[1]
    assert f'loc("Exp:0"(' in dbg and f'"Add:1"(' in dbg
    assert f'{__file__}":{line}:0' in dbg


def test_unknown_dims_need_specs_and_specialize_per_shape():
    x = hg.tensor("x", (None, 3), "float32")
    fn = hg.compile(hg.Graph([x], hg.exp(x)))
    with pytest.raises(ValueError, match="needs argument specs"):
        fn.lower()
    assert "tensor<5x3xf32>" in fn.lower(((5, 3), "float32")).as_text()
    assert "tensor<2x3xf32>" in fn.lower(np.ones((2, 3), np.float32)).as_text()
    with pytest.raises(TypeError, match="expected dtype float32"):
        fn.lower(((5, 3), "float64"))
    with pytest.raises(ValueError, match="expected shape float32\\[\\?,3\\]"):
        fn.lower(((5, 4), "float32"))
    with pytest.raises(TypeError, match="expected 1 argument specs"):
        fn.lower(((5, 3), "float32"), ((5, 3), "float32"))
    for n in (0, 1, 4):
        v = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
        np.testing.assert_allclose(fn(v), np.exp(v), rtol=1e-6)


def test_compile_argument_errors():
    x = hg.tensor("x", (3,), "float32")
    with pytest.raises(TypeError, match="takes a hlograph.Graph"):
        hg.compile(x)
    with pytest.raises(ValueError, match="unknown platform"):
        hg.compile(hg.Graph([x], x + 1), platform="abacus")
    with pytest.raises(ValueError, match="pipeline"):
        hg.compile(hg.Graph([x], x + 1), pipeline="no-such-pass")


def test_graph_outputs_may_be_inputs_or_constants():
    x = hg.tensor("x", (3,), "int32")
    g = hg.Graph([x], [x, hg.constant(np.arange(4)), x * 2])
    v = np.array([1, 2, 3], np.int32)
    out = hg.compile(g)(v)
    exp = hg.evaluate(g, v)
    assert isinstance(out, tuple) and len(out) == 3
    for a, b in zip(out, exp):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
