"""ifelse and switch: compiled results against perform, lazy evaluation of the
untaken branches, branch extraction, promotion, specialization, errors."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.graph import Apply, Op
from hlograph.frontend.ops.control import Composite, IfElse, Scan, Switch, WhileLoop
from hlograph.frontend.types import TensorType
from hlograph.lowering import register
from hlograph.tests.helpers import compare_with_perform, random_array

SHAPES = [(), (0,), (3,), (2, 3)]


class Fragile(Op):
    """Identity whose reference refuses to run: proves an untaken branch is never performed."""

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        raise RuntimeError("Fragile.perform ran")


@register(Fragile)
def lower_fragile(ctx, x):
    return [x]


def _is_input(v, node):
    return any(w is v for w in node.inputs)


def _ifelse_nodes(graph):
    return [n for n in graph.nodes if isinstance(n.op, IfElse)]


# --- ifelse --------------------------------------------------------------------------
@pytest.mark.parametrize("taken", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "int16", "bool", "complex64", "bfloat16"])
def test_ifelse_takes_either_branch(dtype, taken, rng):
    c, x, y = hg.scalar("c", "bool"), hg.tensor("x", (2, 3), dtype), hg.tensor("y", (2, 3), dtype)
    g = hg.Graph([c, x, y], hg.ifelse(c, lambda: hg.square(x), y))
    xv, yv = random_array(rng, (2, 3), dtype), random_array(rng, (2, 3), dtype)
    actual, expected = compare_with_perform(g, [np.bool_(taken), xv, yv])
    np.testing.assert_array_equal(expected, np.square(xv) if taken else yv)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("taken", [True, False])
def test_ifelse_shapes(shape, taken, rng):
    c, x = hg.scalar("c", "bool"), hg.tensor("x", shape, "float64")
    g = hg.Graph([c, x], hg.ifelse(c, lambda: hg.exp(x), lambda: x - 1))
    compare_with_perform(g, [np.bool_(taken), random_array(rng, shape, "float64")])


@pytest.mark.parametrize("taken", [True, False])
def test_ifelse_multiple_outputs(taken, rng):
    c = hg.scalar("c", "bool")
    x, n = hg.tensor("x", (4,), "float32"), hg.tensor("n", (2, 2), "int32")
    outs = hg.ifelse(c, lambda: (hg.sin(x), n * 2, x), lambda: [hg.cos(x), -n, x + 1])
    assert isinstance(outs, list) and len(outs) == 3
    g = hg.Graph([c, x, n], outs)
    compare_with_perform(g, [np.bool_(taken), random_array(rng, (4,), "float32"),
                             random_array(rng, (2, 2), "int32")])


@pytest.mark.parametrize("taken", [True, False])
@pytest.mark.parametrize(
    "then_dtype, else_value",
    [("int32", "float32"), ("int8", "uint8"), ("float16", "bfloat16"), ("float32", 0), ("int16", 2.5),
     ("bool", "int64"), ("float32", "complex64")],
    ids=str,
)
def test_ifelse_promotes_dtypes(then_dtype, else_value, taken, rng):
    # a Python scalar branch is 0-d: the other branch is too
    shape = (3,) if isinstance(else_value, str) else ()
    c, x = hg.scalar("c", "bool"), hg.tensor("x", shape, then_dtype)
    if isinstance(else_value, str):
        y = hg.tensor("y", shape, else_value)
        inputs, values = [c, x, y], [random_array(rng, shape, else_value)]
        # NumPy has no float16/bfloat16 promotion; both fit float32
        expected_dtype = (np.dtype("float32") if else_value == "bfloat16"
                          else np.result_type(x.dtype, y.dtype))
    else:
        y, inputs, values = else_value, [c, x], []
        # a Python scalar is weak (NEP 50): it takes the other branch's dtype kind
        expected_dtype = np.result_type(np.zeros(shape, then_dtype), else_value)
    out = hg.ifelse(c, x, y)
    assert out.dtype == expected_dtype
    compare_with_perform(hg.Graph(inputs, out),
                         [np.bool_(taken), random_array(rng, shape, then_dtype), *values])


@pytest.mark.parametrize("c1, c2", [(True, True), (True, False), (False, True), (False, False)])
def test_ifelse_nested(c1, c2, rng):
    a, b = hg.scalar("a", "bool"), hg.scalar("b", "bool")
    x = hg.tensor("x", (3,), "float32")
    out = hg.ifelse(a,
                    lambda: hg.ifelse(b, lambda: x * 2, lambda: hg.exp(x)),
                    lambda: hg.ifelse(b, lambda: x - 3, lambda: hg.ifelse(a, x, -x)))
    g = hg.Graph([a, b, x], out)
    (outer,) = _ifelse_nodes(g)
    assert len(_ifelse_nodes(outer.op.then_graph)) == 1
    assert len(_ifelse_nodes(outer.op.else_graph)) == 1
    compare_with_perform(g, [np.bool_(c1), np.bool_(c2), random_array(rng, (3,), "float32")])


@pytest.mark.parametrize("taken", [True, False])
def test_ifelse_shared_subexpression_is_computed_once_outside(taken, rng):
    c, x = hg.scalar("c", "bool"), hg.tensor("x", (3,), "float64")
    e = hg.exp(x)
    only_then = hg.sin(x)
    g = hg.Graph([c, x], hg.ifelse(c, lambda: e + only_then, lambda: e * 2))
    (node,) = _ifelse_nodes(g)
    assert _is_input(e, node) and not _is_input(only_then, node)
    for inner in node.op.branches:
        assert not any(isinstance(n.op, type(e.owner.op)) for n in inner.nodes)
    assert any(isinstance(n.op, type(only_then.owner.op)) for n in node.op.then_graph.nodes)
    assert not any(isinstance(n.op, type(only_then.owner.op)) for n in node.op.else_graph.nodes)
    compare_with_perform(g, [np.bool_(taken), random_array(rng, (3,), "float64")])


def test_ifelse_condition_ancestors_stay_outside(rng):
    s, x = hg.scalar("s", "float32"), hg.tensor("x", (3,), "float32")
    doubled = s * 2
    cond = doubled > 1
    g = hg.Graph([s, x], hg.ifelse(cond, lambda: x + doubled, lambda: hg.astype(cond, "float32") + x))
    (node,) = _ifelse_nodes(g)
    assert _is_input(doubled, node) and _is_input(cond, node)
    for sv in (0.0, 3.0):
        compare_with_perform(g, [np.asarray(sv, np.float32), random_array(rng, (3,), "float32")])


@pytest.mark.parametrize("taken", [True, False])
def test_ifelse_untaken_branch_is_not_performed(taken, rng):
    c, x = hg.scalar("c", "bool"), hg.tensor("x", (3,), "float32")
    fragile = Fragile()
    g = hg.Graph([c, x], hg.ifelse(c, lambda: x + 1, lambda: fragile(x) * 2))
    xv = random_array(rng, (3,), "float32")
    if taken:
        compare_with_perform(g, [np.bool_(True), xv])
    else:
        with pytest.raises(RuntimeError, match="Fragile.perform ran"):
            hg.evaluate(g, np.bool_(False), xv)
        # the compiled graph runs the same branch
        np.testing.assert_array_equal(hg.compile(g)(np.bool_(False), xv), xv * 2)


@pytest.mark.parametrize("xv", [-4.0, 0.0, 9.0])
def test_ifelse_guards_nan(xv):
    x = hg.scalar("x", "float64")
    g = hg.Graph([x], hg.ifelse(x >= 0, lambda: hg.sqrt(x), 0.0))
    actual, expected = compare_with_perform(g, [np.asarray(xv)])
    assert not np.isnan(actual) and not np.isnan(expected)


@pytest.mark.parametrize("cond_dtype, value", [("int32", 0), ("int32", -7), ("float32", 0.0),
                                               ("float32", np.nan), ("complex64", 1j)], ids=str)
def test_ifelse_numeric_condition_is_nonzero_test(cond_dtype, value, rng):
    c, x = hg.scalar("c", cond_dtype), hg.tensor("x", (2,), "int64")
    g = hg.Graph([c, x], hg.ifelse(c, x + 1, x - 1))
    xv = random_array(rng, (2,), "int64")
    _, expected = compare_with_perform(g, [np.asarray(value, cond_dtype), xv])
    np.testing.assert_array_equal(expected, xv + 1 if value != 0 else xv - 1)


@pytest.mark.parametrize("taken", [True, False])
def test_ifelse_branches_are_inputs_and_constants(taken, rng):
    c, x, y = hg.scalar("c", "bool"), hg.tensor("x", (3,), "float32"), hg.tensor("y", (3,), "float32")
    outs = hg.ifelse(c, [x, y, np.arange(3, dtype=np.float32)], [y, x, x])
    g = hg.Graph([c, x, y], outs)
    compare_with_perform(g, [np.bool_(taken), random_array(rng, (3,), "float32"),
                             random_array(rng, (3,), "float32")])


@pytest.mark.parametrize("n", [0, 1, 4])
def test_ifelse_unknown_dims_specialize(n, rng):
    c, x = hg.scalar("c", "bool"), hg.tensor("x", (None, 2), "float32")
    out = hg.ifelse(c, lambda: hg.exp(x), lambda: x * x)
    assert out.shape == (None, 2)
    g = hg.Graph([c, x], out)
    xv = random_array(rng, (n, 2), "float32")
    for taken in (True, False):
        compare_with_perform(g, [np.bool_(taken), xv])
    lowered = hg.compile(g).lower(np.bool_(True), xv)
    (node,) = _ifelse_nodes(lowered.graph)
    assert node.outputs[0].type == TensorType("float32", (n, 2))
    for inner in node.op.branches:
        assert inner.input_types == [TensorType("float32", (n, 2))]
        assert inner.output_types == [TensorType("float32", (n, 2))]


def test_ifelse_unknown_dim_joins_with_static(rng):
    c, x = hg.scalar("c", "bool"), hg.tensor("x", (None,), "float32")
    out = hg.ifelse(c, x, np.zeros(3, np.float32))
    assert out.shape == (None,)
    g = hg.Graph([c, x], out)
    compare_with_perform(g, [np.bool_(False), random_array(rng, (3,), "float32")])
    with pytest.raises(ValueError, match=r"output 0 has different shapes in the branches: "
                                         r"float32\[4\], float32\[3\]"):
        hg.compile(g)(np.bool_(True), np.ones(4, np.float32))


def test_ifelse_clone_respecializes_inner_graphs():
    c, x = hg.scalar("c", "bool"), hg.tensor("x", (None,), "float32")
    g = hg.Graph([c, x], hg.ifelse(c, lambda: hg.exp(x), x))
    g2 = g.clone([TensorType("bool", ()), TensorType("float32", (5,))])
    (old,), (new,) = _ifelse_nodes(g), _ifelse_nodes(g2)
    assert new.op is not old.op and new.op != old.op
    assert [gr.input_types for gr in new.op.branches] == [[TensorType("float32", (5,))]] * 2
    assert g2.outputs[0].type == TensorType("float32", (5,))
    assert g.outputs[0].type == TensorType("float32", (None,))


def test_ifelse_str_is_short():
    c, x = hg.scalar("c", "bool"), hg.tensor("x", (3,), "float32")
    g = hg.Graph([c, x], hg.ifelse(c, [x, x + 1], [x * 2, x]))
    assert "IfElse{n_outs=2}(c, " in str(g)


# --- switch --------------------------------------------------------------------------
@pytest.mark.parametrize("index", [-3, 0, 1, 2, 7])
@pytest.mark.parametrize("index_dtype", ["int32", "int8", "int64"])
def test_switch_clamps_index(index, index_dtype, rng):
    i, x = hg.scalar("i", index_dtype), hg.tensor("x", (2, 3), "float32")
    g = hg.Graph([i, x], hg.switch(i, [lambda: x + 1, lambda: hg.exp(x), x]))
    xv = random_array(rng, (2, 3), "float32")
    _, expected = compare_with_perform(g, [np.asarray(index, index_dtype), xv])
    branch = min(max(index, 0), 2)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(expected, [xv + 1, np.exp(xv), xv][branch])


@pytest.mark.parametrize("index", [0, 1, 2**32 + 1, 2**64 - 1])
def test_switch_wide_unsigned_index_does_not_wrap(index, rng):
    i, x = hg.scalar("i", "uint64"), hg.tensor("x", (3,), "int32")
    g = hg.Graph([i, x], hg.switch(i, [x, -x]))
    xv = random_array(rng, (3,), "int32")
    _, expected = compare_with_perform(g, [np.uint64(index), xv])
    np.testing.assert_array_equal(expected, xv if index == 0 else -xv)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_switch_multiple_outputs_and_promotion(index, rng):
    i, x = hg.scalar("i", "int32"), hg.tensor("x", (4,), "float32")
    n = hg.tensor("n", (), "int64")
    outs = hg.switch(i, [lambda: (x, n), lambda: (x * 2, n + 1), (np.zeros(4, np.float64), 3)])
    assert [o.dtype for o in outs] == [np.float64, np.int64]
    g = hg.Graph([i, x, n], outs)
    compare_with_perform(g, [np.int32(index), random_array(rng, (4,), "float32"), np.int64(5)])


def test_switch_single_branch(rng):
    i, x = hg.scalar("i", "int32"), hg.tensor("x", (0, 2), "float32")
    g = hg.Graph([i, x], hg.switch(i, [lambda: hg.exp(x)]))
    compare_with_perform(g, [np.int32(3), random_array(rng, (0, 2), "float32")])


@pytest.mark.parametrize("index", [0, 1, 2])
def test_switch_untaken_branches_are_not_performed(index, rng):
    i, x = hg.scalar("i", "int32"), hg.tensor("x", (3,), "float32")
    fragile = Fragile()
    g = hg.Graph([i, x], hg.switch(i, [lambda: fragile(x), x, lambda: fragile(x) + 1]))
    xv = random_array(rng, (3,), "float32")
    if index == 1:
        compare_with_perform(g, [np.int32(index), xv])
    else:
        with pytest.raises(RuntimeError, match="Fragile.perform ran"):
            hg.evaluate(g, np.int32(index), xv)


def test_switch_inside_ifelse(rng):
    c, i, x = hg.scalar("c", "bool"), hg.scalar("i", "int32"), hg.tensor("x", (3,), "float32")
    g = hg.Graph([c, i, x], hg.ifelse(c, lambda: hg.switch(i, [x, hg.sin(x)]), lambda: -x))
    for cv, iv in [(True, 0), (True, 1), (False, 1)]:
        compare_with_perform(g, [np.bool_(cv), np.int32(iv), random_array(rng, (3,), "float32")])


def test_switch_str():
    i, x = hg.scalar("i", "int32"), hg.tensor("x", (3,), "float32")
    out = hg.switch(i, [x, x * 2, x * 3])
    assert str(out.owner.op) == "Switch{n_branches=3, n_outs=1}"
    assert isinstance(out.owner.op, Switch)


# --- errors ----------------------------------------------------------------------------
def test_ifelse_rejects_branch_count_mismatch():
    c, x = hg.scalar("c", "bool"), hg.tensor("x", (3,))
    with pytest.raises(TypeError, match=r"ifelse: branches must have the same number of outputs, got 2, 3"):
        hg.ifelse(c, [x, x], [x, x, x])
    with pytest.raises(TypeError, match=r"ifelse: every branch must give a single value or every "
                                        r"branch a sequence; got a sequence, a single value"):
        hg.ifelse(c, [x], x)
    with pytest.raises(ValueError, match=r"ifelse: branch 1 has no outputs"):
        hg.ifelse(c, lambda: [x], lambda: [])


def test_ifelse_rejects_rank_and_shape_mismatch():
    c = hg.scalar("c", "bool")
    with pytest.raises(TypeError, match=r"ifelse: output 0 has different ranks in the branches: "
                                        r"float32\[3\], float32\[3,1\]"):
        hg.ifelse(c, hg.tensor("x", (3,)), hg.tensor("y", (3, 1)))
    with pytest.raises(ValueError, match=r"ifelse: output 1 has different shapes in the branches: "
                                         r"float32\[3\], float32\[4\]"):
        hg.ifelse(c, [c, hg.tensor("x", (3,))], [c, hg.tensor("y", (4,))])


def test_ifelse_rejects_bad_condition():
    x = hg.tensor("x", (3,))
    with pytest.raises(ValueError, match=r"ifelse: cond must be a scalar \(0-d\), got bool\[3\]"):
        hg.ifelse(x > 0, x, x)


def test_ifelse_make_node_checks():
    c, x = hg.scalar("c", "bool"), hg.tensor("x", (3,))
    op = hg.ifelse(c, x, x + 1).owner.op
    with pytest.raises(TypeError, match=r"IfElse\{n_outs=1\}: the condition must be bool"):
        op.make_node(hg.scalar("k", "int32"), x)
    with pytest.raises(TypeError, match=r"IfElse\{n_outs=1\}: expected 1 free variables, got 2"):
        op.make_node(c, x, x)
    with pytest.raises(TypeError, match=r"free variable 0 \(x\) must be float32\[rank 1\], got int32\[3\]"):
        op.make_node(c, hg.tensor("n", (3,), "int32"))


def test_switch_rejects_bad_index_and_branches():
    x = hg.tensor("x", (3,))
    with pytest.raises(TypeError, match=r"switch: index must be an integer scalar, got float32\[\]"):
        hg.switch(hg.scalar("f"), [x, x])
    with pytest.raises(ValueError, match=r"switch: index must be a scalar \(0-d\), got int32\[2\]"):
        hg.switch(hg.tensor("i", (2,), "int32"), [x, x])
    with pytest.raises(ValueError, match=r"switch: needs at least one branch"):
        hg.switch(hg.scalar("i", "int32"), [])
    with pytest.raises(TypeError, match=r"switch: branches must be a list of branches"):
        hg.switch(hg.scalar("i", "int32"), x)
    with pytest.raises(TypeError, match=r"switch: branches must have the same number of outputs, got 1, 1, 2"):
        hg.switch(hg.scalar("i", "int32"), [[x], [x], [x, x]])


# --- while_loop ----------------------------------------------------------------------
def test_while_loop_matches_perform():
    i, s, c = hg.scalar("i", "int32"), hg.scalar("s", "float64"), hg.scalar("c", "float32")
    res = hg.while_loop(lambda i, s: i < 10, lambda i, s: [i + 1, s * 2 + c], [i, s])
    actual, expected = compare_with_perform(hg.Graph([i, s, c], res), [np.int32(3), 1.0, np.float32(0.5)])
    assert int(expected[0]) == 10
    # zero iterations: the initial values come back
    actual, expected = compare_with_perform(hg.Graph([i, s, c], res), [np.int32(12), 1.5, np.float32(0.5)])
    assert int(expected[0]) == 12 and float(expected[1]) == 1.5


@pytest.mark.parametrize("dtype", ["int64", "float32", "complex64"])
def test_while_loop_tensor_state_with_free_variable(dtype, rng):
    """Newton-like iteration on a vector, stopping on a value-dependent condition;
    the body reads a tensor from the enclosing graph."""
    x, y = hg.tensor("x", (4,), dtype), hg.tensor("y", (4,), dtype)
    out = hg.while_loop(lambda v: hg.sum(hg.abs(v)) < 1000, lambda v: v * 2 + y, x)
    assert out.type == x.type
    values = [random_array(rng, (4,), dtype) + np.array(1, dtype), random_array(rng, (4,), dtype)]
    compare_with_perform(hg.Graph([x, y], out), values)


def test_while_loop_node_holds_free_variables():
    x, y = hg.tensor("x", (3,)), hg.tensor("y", (3,))
    out = hg.while_loop(lambda v: hg.max(v) < 100, lambda v: v + hg.exp(y), x)
    node = out.owner
    assert isinstance(node.op, WhileLoop) and node.op.n_carry == 1
    # exp(y) does not depend on the carried value: computed once, outside
    assert len(node.inputs) == 2 and node.inputs[1].owner is not None
    assert node.inputs[1].owner.inputs[0] is y


def test_while_loop_specializes_unknown_dims(rng):
    x = hg.tensor("x", (None, 2), "float32")
    out = hg.while_loop(lambda v: hg.sum(v) < 50, lambda v: v + 1, x)
    assert out.type == x.type
    fn = hg.compile(hg.Graph([x], out))
    for n in (1, 3):
        values = random_array(rng, (n, 2), "float32")
        np.testing.assert_allclose(fn(values), hg.evaluate(hg.Graph([x], out), values), rtol=1e-6)


def test_while_loop_errors():
    x = hg.tensor("x", (3,))
    with pytest.raises(TypeError, match=r"while_loop: body_fn gives 2 values for 1 carried values"):
        hg.while_loop(lambda v: hg.sum(v) < 1, lambda v: [v, v], x)
    with pytest.raises(TypeError, match=r"WhileLoop: body output 0 must be float32\[3\], got float64\[3\]"):
        hg.while_loop(lambda v: hg.sum(v) < 1, lambda v: hg.astype(v, "float64"), x)
    with pytest.raises(TypeError, match=r"WhileLoop: body output 0 must be float32\[3\], got float32\[1\]"):
        hg.while_loop(lambda v: hg.sum(v) < 1, lambda v: hg.sum(v, keepdims=True), x)
    with pytest.raises(ValueError, match=r"while_loop: cond_fn must give a scalar, got bool\[3\]"):
        hg.while_loop(lambda v: v < 1, lambda v: v, x)


# --- scan ------------------------------------------------------------------------------
def test_scan_rnn_matches_perform(rng):
    x, h0, w = hg.tensor("x", (6, 3)), hg.tensor("h0", (3,)), hg.tensor("w", (3, 3))
    out = hg.scan(lambda xt, h, w: hg.tanh(hg.matmul(w, h) + xt), sequences=x, outputs_info=h0,
                  non_sequences=w)
    assert out.type == TensorType("float32", (6, 3))
    values = [random_array(rng, s, "float32") for s in [(6, 3), (3,), (3, 3)]]
    compare_with_perform(hg.Graph([x, h0, w], out), values)


@pytest.mark.parametrize("dtype", ["int32", "float64", "complex128"])
def test_scan_mixed_outputs_and_free_variables(dtype, rng):
    """A recurrent and a plain output, two sequences, a captured free variable."""
    x, y = hg.tensor("x", (5, 2), dtype), hg.tensor("y", (7,), dtype)
    a0, c = hg.tensor("a0", (2,), dtype), hg.scalar("c", dtype)
    acc, prod = hg.scan(lambda xt, yt, acc: [acc + xt * c, yt * hg.sum(xt)], sequences=[x, y],
                        outputs_info=[a0, None])
    assert acc.shape == (5, 2) and prod.shape == (5,)
    values = [random_array(rng, s, dtype) for s in [(5, 2), (7,), (2,), ()]]
    compare_with_perform(hg.Graph([x, y, a0, c], [acc, prod]), values)


def test_scan_without_sequences_uses_n_steps():
    """Fibonacci: two recurrent states, a Python scalar result cast to the state dtype."""
    a, b = hg.scalar("a", "int64"), hg.scalar("b", "int64")
    fa, fb = hg.scan(lambda a, b: [b, a + b], outputs_info=[a, b], n_steps=10)
    actual, expected = compare_with_perform(hg.Graph([a, b], [fa, fb]), [np.int64(0), np.int64(1)])
    assert list(expected[0]) == [1, 1, 2, 3, 5, 8, 13, 21, 34, 55]
    count = hg.scan(lambda k: k + 1, outputs_info=[hg.constant(np.int8(0))], n_steps=4)
    assert count.dtype == np.int8


@pytest.mark.parametrize("n_steps", [0, 1, 3])
def test_scan_fewer_steps_than_the_sequence(n_steps, rng):
    x, h = hg.tensor("x", (4, 2)), hg.tensor("h", (2,))
    out = hg.scan(lambda xt, h: h * xt, sequences=x, outputs_info=h, n_steps=n_steps)
    assert out.shape == (n_steps, 2)
    compare_with_perform(hg.Graph([x, h], out), [random_array(rng, s, "float32") for s in [(4, 2), (2,)]])


def test_scan_specializes_unknown_dims(rng):
    x, h = hg.tensor("x", (3, None)), hg.tensor("h", (None,))
    out = hg.scan(lambda xt, h: hg.maximum(h, xt), sequences=x, outputs_info=h)
    assert out.shape == (3, None)
    fn = hg.compile(hg.Graph([x, h], out))
    for n in (2, 5):
        values = [random_array(rng, (3, n), "float32"), random_array(rng, (n,), "float32")]
        np.testing.assert_array_equal(fn(*values), hg.evaluate(hg.Graph([x, h], out), *values))


def test_scan_errors():
    x, h = hg.tensor("x", (4, 2)), hg.tensor("h", (2,))
    with pytest.raises(ValueError, match=r"scan: n_steps must be given unless every sequence has a static length"):
        hg.scan(lambda h: h, outputs_info=h)
    with pytest.raises(ValueError, match=r"scan: sequence 0 must have a leading axis"):
        hg.scan(lambda s: s, sequences=hg.scalar("s"))
    with pytest.raises(ValueError, match=r"sequence 0 has 4 steps, fewer than n_steps=5"):
        hg.scan(lambda xt: xt, sequences=x, n_steps=5)
    with pytest.raises(TypeError, match=r"scan: fn gives 1 outputs for 2 entries of outputs_info"):
        hg.scan(lambda xt, h: h, sequences=x, outputs_info=[h, None])
    with pytest.raises(TypeError, match=r"Scan: recurrent output 0 must be float32\[2\], got float64\[2\]"):
        hg.scan(lambda xt, h: hg.astype(h, "float64"), sequences=x, outputs_info=h)
    with pytest.raises(ValueError, match=r"scan: n_steps must be a static int >= 0, got -1"):
        hg.scan(lambda h: h, outputs_info=h, n_steps=-1)


# --- scan: taps and updates ------------------------------------------------------------------
def test_scan_fibonacci_output_taps():
    """Two past values of one output (taps [-2, -1]); the initial value holds both."""
    f0 = hg.tensor("f0", (2,), "int64")
    fib = hg.scan(lambda a, b: a + b, outputs_info=dict(initial=f0, taps=[-2, -1]), n_steps=10)
    assert fib.type == TensorType("int64", (10,))
    _, ref = compare_with_perform(hg.Graph([f0], fib), [np.array([0, 1])])
    want = [0, 1]
    for _ in range(10):
        want.append(want[-2] + want[-1])
    np.testing.assert_array_equal(ref, want[2:])


@pytest.mark.parametrize("taps", [[-2, -1], [-1, -3], [-3]], ids=str)
def test_scan_output_taps_with_sequence_and_long_initial(taps, rng):
    """Tap k at step t reads the output of step t + k; x0 holds the -min(taps) values before
    step 0 (its later rows are ignored)."""
    x = hg.tensor("x", (6, 2), "float64")
    x0 = hg.tensor("x0", (5, 2), "float64")
    out = hg.scan(lambda xt, *past: xt + 0.5 * sum(p * (i + 1) for i, p in enumerate(past)),
                  sequences=x, outputs_info=dict(initial=x0, taps=taps))
    assert out.type == TensorType("float64", (6, 2))
    xv, x0v = random_array(rng, (6, 2), "float64"), random_array(rng, (5, 2), "float64")
    _, ref = compare_with_perform(hg.Graph([x, x0], out), [xv, x0v])
    need = -min(taps)
    hist = list(x0v[:need])
    for t in range(6):
        hist.append(xv[t] + 0.5 * sum(hist[need + t + k] * (i + 1) for i, k in enumerate(taps)))
    np.testing.assert_allclose(ref, np.array(hist[need:]), rtol=1e-12)


@pytest.mark.parametrize("taps", [[-1, 0, 1], [-2, 1], [2], [0, -3]], ids=str)
def test_scan_sequence_taps_moving_window(taps, rng):
    x = hg.tensor("x", (9,), "float32")
    out = hg.scan(lambda *xs: sum(xs[i] * (i + 1) for i in range(len(xs))), sequences=dict(input=x, taps=taps))
    lo, hi = min(min(taps), 0), max(max(taps), 0)
    assert out.type == TensorType("float32", (9 - (hi - lo),))
    xv = random_array(rng, (9,), "float32")
    _, ref = compare_with_perform(hg.Graph([x], out), [xv])
    want = [sum(xv[t - lo + k] * (i + 1) for i, k in enumerate(taps)) for t in range(9 - (hi - lo))]
    np.testing.assert_allclose(ref, np.array(want, np.float32), rtol=1e-5)


def test_scan_argument_order_mixes_taps_states_and_non_sequences(rng):
    """fn receives seq taps (per sequence, in the given order), output taps (in outputs_info
    order), then non-sequences; the step count comes from the shortest sequence."""
    x, y = hg.tensor("x", (8,), "float64"), hg.tensor("y", (5, 2), "float64")
    h0, m0, w = hg.tensor("h0", (2,), "float64"), hg.tensor("m0", (2, 2), "float64"), hg.scalar("w", "float64")

    def step(x_p1, x_m1, y_t, h, m_m2, m_m1, w):
        h_new = h * w + y_t + x_p1
        return [h_new, m_m2 - m_m1 * x_m1, y_t.sum() * w]

    h, m, z = hg.scan(step, sequences=[dict(input=x, taps=[1, -1]), y],
                      outputs_info=[h0, dict(initial=m0, taps=[-2, -1]), None], non_sequences=w)
    assert h.shape == (5, 2) and m.shape == (5, 2) and z.shape == (5,)
    vals = [random_array(rng, s, "float64") for s in [(8,), (5, 2), (2,), (2, 2), ()]]
    _, (rh, rm, rz) = compare_with_perform(hg.Graph([x, y, h0, m0, w], [h, m, z]), vals)
    xv, yv, hv, mv, wv = vals
    hist = list(mv)
    for t in range(5):
        hv = hv * wv + yv[t] + xv[t + 2]
        hist.append(hist[t] - hist[t + 1] * xv[t])
        np.testing.assert_allclose(rh[t], hv, rtol=1e-12)
        np.testing.assert_allclose(rz[t], yv[t].sum() * wv, rtol=1e-12)
    np.testing.assert_allclose(rm, np.array(hist[2:]), rtol=1e-12)


def test_scan_zero_steps_with_taps_and_updates():
    """A sequence exactly as long as its taps span gives 0 steps; updates keep their value."""
    x, c = hg.tensor("x", (2,), "float32"), hg.scalar("c", "float32")
    f0 = hg.tensor("f0", (3,), "float32")
    (out, fib), upd = hg.scan(lambda a, b, p, q: ([a + b, p + q * c], {c: c * 2}),
                              sequences=dict(input=x, taps=[0, 2]),
                              outputs_info=[None, dict(initial=f0, taps=[-2, -1])])
    assert out.shape == (0,) and fib.shape == (0,) and upd[c].shape == ()
    g = hg.Graph([x, c, f0], [out, fib, upd[c]])
    actual, ref = compare_with_perform(g, [np.ones(2, np.float32), np.float32(3), np.ones(3, np.float32)])
    assert ref[2] == np.float32(3) and ref[0].shape == (0,)
    out0 = hg.scan(lambda a, b: a + b, outputs_info=dict(initial=f0, taps=[-2, -1]), n_steps=0)
    assert out0.shape == (0,)
    compare_with_perform(hg.Graph([f0], out0), [np.ones(3, np.float32)])


@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_scan_updates_of_a_captured_variable(dtype, rng):
    """PyTensor's ``return outputs, updates``: the step reads the updated value, and the final
    value comes back in the updates dict."""
    s, acc = hg.tensor("s", (6,), dtype), hg.scalar("acc", dtype)
    out, upd = hg.scan(lambda st: (st * acc, {acc: acc + st}), sequences=s)
    assert list(upd) == [acc] and upd[acc].type == acc.type
    sv, av = random_array(rng, (6,), dtype, "small_int"), np.asarray(2, dtype)
    _, (ro, ra) = compare_with_perform(hg.Graph([s, acc], [out, upd[acc]]), [sv, av])
    a, want = av, []
    for v in sv:
        want.append(v * a)
        a = a + v
    np.testing.assert_allclose(ro, np.array(want, dtype), rtol=1e-12)
    np.testing.assert_allclose(ra, a, rtol=1e-12)


def test_scan_updates_of_non_sequences_in_either_order(rng):
    """Keyed by the argument fn received or by the variable passed; (updates, outputs) order;
    updates only; a read of the outer variable inside fn also sees the current value."""
    w, b = hg.tensor("w", (2,), "float64"), hg.scalar("b", "float64")
    h0 = hg.tensor("h0", (2,), "float64")

    def step(h, w_in, b_in):
        return {w_in: w_in * 0.5 + b, b: b_in + 1.0}, h * w_in + b

    h, upd = hg.scan(step, outputs_info=h0, non_sequences=[w, b], n_steps=4)
    assert list(upd) == [w, b]
    only = hg.scan(lambda w_in: {w_in: w_in + 1.0}, non_sequences=w, n_steps=3)
    assert only[0] == [] and list(only[1]) == [w]
    vals = [random_array(rng, (2,), "float64"), np.float64(0.25), random_array(rng, (2,), "float64")]
    _, (rh, rw, rb, rw3) = compare_with_perform(hg.Graph([w, b, h0], [h, upd[w], upd[b], only[1][w]]), vals)
    wv, bv, hv = vals
    for t in range(4):
        hv = hv * wv + bv
        np.testing.assert_allclose(rh[t], hv, rtol=1e-12)
        wv, bv = wv * 0.5 + bv, bv + 1.0
    np.testing.assert_allclose(rw, wv, rtol=1e-12)
    np.testing.assert_allclose(rb, bv, rtol=1e-12)
    np.testing.assert_allclose(rw3, vals[0] + 3.0, rtol=1e-12)


def test_scan_update_leaves_values_computed_before_the_loop(rng):
    c = hg.scalar("c", "float64")
    scaled = c * 10.0   # computed outside fn: keeps the initial c
    out, upd = hg.scan(lambda: (scaled + c, {c: c + 1.0}), outputs_info=[None], n_steps=3)
    _, (ro, rc) = compare_with_perform(hg.Graph([c], [out, upd[c]]), [np.float64(2.0)])
    np.testing.assert_allclose(ro, [22.0, 23.0, 24.0])
    assert rc == 5.0


def test_scan_op_unstacked_outputs():
    a = hg.tensor("a", (), "float32")
    step = hg.Graph([a], [a + 1.0, a * 2.0])
    with pytest.raises(ValueError, match=r"Scan: output 1 is neither recurrent nor stacked"):
        Scan(step, 3, 0, (True, False), (True, False))
    op = Scan(step, 3, 0, (True, False), (False, True))
    assert str(op) == "Scan{n_steps=3, n_seqs=0, recurrent=(True, False), stacked=(False, True)}"
    final, doubled = op(hg.constant(np.float32(1.0)))
    assert final.type == TensorType("float32", ()) and doubled.type == TensorType("float32", (3,))
    actual, ref = compare_with_perform(hg.Graph([], [final, doubled]), [])
    np.testing.assert_array_equal(ref[0], np.float32(4.0))
    np.testing.assert_array_equal(ref[1], np.float32([2.0, 4.0, 6.0]))


def test_scan_taps_specialize_unknown_dims(rng):
    x, x0 = hg.tensor("x", (None, 3)), hg.tensor("x0", (None, 3))
    out = hg.scan(lambda a, b, p, q: a * b + p - q, sequences=dict(input=x, taps=[-1, 1]),
                  outputs_info=dict(initial=x0, taps=[-2, -1]), n_steps=4)
    assert out.shape == (4, 3)
    g = hg.Graph([x, x0], out)
    fn = hg.compile(g)
    for n in (6, 9):
        values = [random_array(rng, (n, 3), "float32"), random_array(rng, (2 + n - 6, 3), "float32")]
        np.testing.assert_allclose(fn(*values), hg.evaluate(g, *values), rtol=1e-5)


def test_scan_taps_and_updates_errors():
    x, h, c = hg.tensor("x", (4, 2)), hg.tensor("h", (3, 2)), hg.scalar("c")
    with pytest.raises(ValueError, match=r"the taps of output 0 must be distinct and negative, got \[-1, 0\]"):
        hg.scan(lambda a, b: a, outputs_info=dict(initial=h, taps=[-1, 0]), n_steps=2)
    with pytest.raises(ValueError, match=r"distinct and negative, got \[-2, -2\]"):
        hg.scan(lambda a, b: a, outputs_info=dict(initial=h, taps=[-2, -2]), n_steps=2)
    with pytest.raises(ValueError, match=r"output 0 has taps \[-1\] but no initial value"):
        hg.scan(lambda a: a, outputs_info=dict(taps=[-1]), n_steps=2)
    with pytest.raises(ValueError, match=r"initial value of output 0 must hold 4 steps .* got float32\[3,2\]"):
        hg.scan(lambda a: a, outputs_info=dict(initial=h, taps=[-4]), n_steps=2)
    with pytest.raises(TypeError, match=r"scan: output 0 must be float32\[2\] .* got float32\[\]"):
        hg.scan(lambda a, b: hg.sum(a), outputs_info=dict(initial=h, taps=[-2, -1]), n_steps=2)
    with pytest.raises(TypeError, match=r"scan: sequence 0 taps must be ints"):
        hg.scan(lambda a: a, sequences=dict(input=x, taps=[0.5]))
    with pytest.raises(ValueError, match=r"sequence 0 has 4 steps, fewer than its taps \[-3, 2\] need \(5\)"):
        hg.scan(lambda a, b: a, sequences=dict(input=x, taps=[-3, 2]))
    with pytest.raises(ValueError, match=r"sequence 0 must be a Variable or dict\(input=..., taps=\[...\]\)"):
        hg.scan(lambda a: a, sequences=dict(inputs=x))
    with pytest.raises(ValueError, match=r"outputs_info entry 0 has unknown keys \['tap'\]"):
        hg.scan(lambda a: a, outputs_info=dict(initial=c, tap=[-1]), n_steps=2)
    with pytest.raises(ValueError, match=r"the update target a float32\[2\] value is computed inside the step"):
        hg.scan(lambda xt: (xt, {xt * 2: xt}), sequences=x)
    with pytest.raises(TypeError, match=r"update targets must be non-constant Variables"):
        hg.scan(lambda xt: (xt, {hg.constant(1.0): xt}), sequences=x)
    with pytest.raises(TypeError, match=r"the update of 'c' \(float32\[\]\) must be float32\[\], got float32\[2\]"):
        hg.scan(lambda xt: (xt, {c: c + xt}), sequences=x)
    with pytest.raises(ValueError, match=r"non-sequence 0 is updated twice"):
        hg.scan(lambda xt, k: (xt, {k: k + 1, c: c + 1}), sequences=x, non_sequences=c)


# --- composite ---------------------------------------------------------------------------
def _fma():
    a, b = hg.tensor("a", (3,)), hg.tensor("b", (3,))
    return hg.composite([a, b], a * b + 1, name="fma")


def test_composite_matches_perform_and_is_one_node(rng):
    fma = _fma()
    x, y = hg.tensor("x", (3,)), hg.tensor("y", (3,))
    out = fma(fma(x, y), y)
    g = hg.Graph([x, y], out)
    assert [type(n.op) for n in g.nodes] == [Composite, Composite]
    compare_with_perform(g, [random_array(rng, (3,), "float32") for _ in range(2)])


def test_composite_lowers_to_one_private_function():
    fma = _fma()
    x, y = hg.tensor("x", (3,)), hg.tensor("y", (3,))
    text = hg.compile(hg.Graph([x, y], fma(fma(x, y), y)), pipeline="O0").lower().as_text()
    assert text.count("func.func private @fma(") == 1
    assert text.count("call @fma(") == 2


def test_composite_multiple_outputs_and_specialization(rng):
    a = hg.tensor("a", (None,), "int32")
    stats = hg.composite([a], [hg.sum(a), hg.max(a), a * 2], name="stats")
    x = hg.tensor("x", (None,), "int32")
    s, m, d = stats(x)
    assert (s.type, d.type) == (TensorType("int64", ()), TensorType("int32", (None,)))
    fn = hg.compile(hg.Graph([x], [s, m, d]))
    for n in (1, 4):
        values = random_array(rng, (n,), "int32")
        for got, want in zip(fn(values), hg.evaluate(hg.Graph([x], [s, m, d]), values)):
            np.testing.assert_array_equal(got, want)


def test_composite_inside_scan(rng):
    fma = _fma()
    x, h = hg.tensor("x", (4, 3)), hg.tensor("h", (3,))
    out = hg.scan(lambda xt, h: fma(xt, h), sequences=x, outputs_info=h)
    compare_with_perform(hg.Graph([x, h], out), [random_array(rng, (4, 3), "float32"),
                                                 random_array(rng, (3,), "float32")])


def test_composite_errors():
    fma = _fma()
    with pytest.raises(TypeError, match=r"Composite\{name='fma'\}: expected 2 inputs, got 1"):
        fma(hg.tensor("x", (3,)))
    with pytest.raises(TypeError, match=r"Composite\{name='fma'\}: input 1 must be float32\[3\], got int8\[3\]"):
        fma(hg.tensor("x", (3,)), hg.tensor("y", (3,), "int8"))
    a = hg.tensor("a")
    with pytest.raises(ValueError, match=r"Composite: name must be an identifier, got 'a b'"):
        hg.composite([a], a + 1, name="a b")
    with pytest.raises(Exception, match=r"is used by .* but is not a graph input"):
        hg.composite([a], a + hg.tensor("other"))
