"""Blockwise: core ops batched over leading dims, compiled against perform (unrolled
and looped batches, batch broadcasting, size-0 batches, several outputs, errors)."""

import numpy as np
import pytest

import hlograph as hg
import hlograph.lowering.rules.blockwise  # noqa: F401  (registers the rule)
import hlograph.lowering.rules.linalg  # noqa: F401
import hlograph.lowering.rules.reduction  # noqa: F401
from hlograph.frontend.graph import Apply, Op
from hlograph.frontend.ops import blockwise as bw
from hlograph.frontend.ops import linalg as la
from hlograph.frontend.ops import reduction as red
from hlograph.frontend.types import TensorType
from hlograph.lowering import register
from hlograph.lowering.emit import constant
from hlograph.xla.mlir import hlo
from hlograph.lowering.rules.blockwise import UNROLL_LIMIT
from hlograph.tests.helpers import compare_with_perform, random_array


class Axpy(Op):
    """alpha * x + y on vectors of one length: a user-defined core op with a rule."""

    __props__ = ("alpha",)

    def __init__(self, alpha: float):
        self.alpha = float(alpha)

    def make_node(self, x, y):
        if x.ndim != 1 or x.type != y.type:
            raise TypeError(f"Axpy: wants two vectors of one type, got {x.type} and {y.type}")
        return Apply(self, [x, y], [x.type])

    def perform(self, node, inputs):
        x, y = inputs
        return [np.asarray(self.alpha * x + y, dtype=node.outputs[0].dtype)]


@register(Axpy)
def lower_axpy(ctx, x, y):
    t = ctx.out_type
    return [hlo.add(hlo.multiply(constant(ctx.op.alpha, t.dtype, t.shape), x), y)]


class SumDiff(Op):
    """(x + y, x - y): a core op with two outputs."""

    def make_node(self, x, y):
        return Apply(self, [x, y], [x.type, x.type])

    def perform(self, node, inputs):
        x, y = inputs
        return [x + y, x - y]


@register(SumDiff)
def lower_sum_diff(ctx, x, y):
    return [hlo.add(x, y), hlo.subtract(x, y)]


# batch shapes on both sides of UNROLL_LIMIT, a 0-d batch and size-0 batches
BATCHES = [(), (1,), (3,), (2, 5), (0,), (4, 0)]
assert 3 <= UNROLL_LIMIT < 10


@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_reduction_core(batch, dtype, rng):
    x = hg.tensor("x", batch + (3, 4), dtype)
    y = bw.Blockwise(red.Sum(axis=-1), "(m,n)->(m)")(x)
    assert y.type == TensorType(y.dtype, batch + (3,))
    compare_with_perform(hg.Graph([x], y), [random_array(rng, x.type.shape, dtype)])


@pytest.mark.parametrize("ashape,bshape", [
    ((2, 3), (3, 4)),              # no batch
    ((5, 2, 3), (3, 4)),           # one side batched (unrolled)
    ((5, 1, 2, 3), (2, 3, 4)),     # batches (5, 1) and (2,) broadcast to (5, 2): looped
    ((0, 2, 3), (1, 3, 4)),        # size-0 batch
], ids=str)
def test_dot_general_core(ashape, bshape, rng):
    a, b = hg.tensor("a", ashape, "float64"), hg.tensor("b", bshape, "float64")
    op = bw.Blockwise(la.DotGeneral(((1,), (0,))), "(m,k),(k,n)->(m,n)")
    c = op(a, b)
    batch = np.broadcast_shapes(ashape[:-2], bshape[:-2])
    assert c.type.shape == batch + (2, 4)
    av, bv = rng.normal(size=ashape), rng.normal(size=bshape)
    actual, _ = compare_with_perform(hg.Graph([a, b], c), [av, bv])
    np.testing.assert_allclose(actual, np.matmul(av, bv), rtol=1e-12)


@pytest.mark.parametrize("batch", [(2,), (3, 4)], ids=str)
def test_user_op_core(batch, rng):
    x, y = hg.tensor("x", batch + (5,), "float32"), hg.tensor("y", (5,), "float32")
    z = bw.Blockwise(Axpy(2.5), "(n),(n)->(n)")(x, y)
    xv, yv = rng.normal(size=x.type.shape).astype("float32"), rng.normal(size=5).astype("float32")
    actual, _ = compare_with_perform(hg.Graph([x, y], z), [xv, yv])
    np.testing.assert_allclose(actual, 2.5 * xv + yv, rtol=1e-6)


@pytest.mark.parametrize("batch", [(3,), (12,), (0,)], ids=str)
def test_several_outputs(batch, rng):
    x, y = hg.tensor("x", batch + (4,), "float64"), hg.tensor("y", (1, 4), "float64")
    s, d = bw.Blockwise(SumDiff(), "(n),(n)->(n),(n)")(x, y)
    assert s.type == d.type == TensorType("float64", batch + (4,))
    compare_with_perform(hg.Graph([x, y], [s, d]), [rng.normal(size=batch + (4,)), rng.normal(size=(1, 4))])


@pytest.mark.parametrize("batch", [(2,), (10,)], ids=str)
def test_jax_bridge_core(batch, rng):
    """A core op lowered by jax (a func.call) inside the unrolled batch and the loop body."""
    a = hg.tensor("a", batch + (3, 3), "float64")
    sign, logdet = bw.Blockwise(la.Slogdet(), "(n,n)->(),()")(a)
    compare_with_perform(hg.Graph([a], [sign, logdet]), [rng.normal(size=batch + (3, 3))], rtol=1e-10)


@pytest.mark.parametrize("batch", [(3,), (3, 4)], ids=str)
def test_blockwise_of_a_function(batch, rng):
    """A function of Variables is traced into a Composite on the core types."""
    norm = bw.blockwise(lambda v, w: hg.sqrt(hg.sum(v * v)) + hg.max(w), "(n),(k)->()")
    x, w = hg.tensor("x", batch + (6,), "float32"), hg.tensor("w", (2,), "float32")
    y = norm(x, w)
    assert y.type == TensorType("float32", batch)
    xv, wv = rng.normal(size=batch + (6,)).astype("float32"), rng.normal(size=2).astype("float32")
    actual, _ = compare_with_perform(hg.Graph([x, w], y), [xv, wv], rtol=1e-5)
    np.testing.assert_allclose(actual, np.linalg.norm(xv, axis=-1) + wv.max(), rtol=1e-5)


def test_matmul_function_broadcasts_batches(rng):
    bmm = bw.blockwise(hg.matmul, "(m,n),(n,p)->(m,p)")
    a, b = hg.tensor("a", (5, 1, 3, 4), "float32"), hg.tensor("b", (2, 4, 6), "float32")
    c = bmm(a, b)
    assert c.type == TensorType("float32", (5, 2, 3, 6))
    av, bv = rng.normal(size=(5, 1, 3, 4)).astype("float32"), rng.normal(size=(2, 4, 6)).astype("float32")
    actual, _ = compare_with_perform(hg.Graph([a, b], c), [av, bv], rtol=1e-5)
    np.testing.assert_allclose(actual, np.matmul(av, bv), rtol=1e-5, atol=1e-5)


def test_perform_matches_numpy_vectorize(rng):
    op = bw.Blockwise(red.Sum(axis=0), "(n)->()")
    x = hg.tensor("x", (2, 3, 4), "float64")
    node = op.make_node(x)
    xv = rng.normal(size=(2, 3, 4))
    (out,) = op.perform(node, [xv])
    np.testing.assert_allclose(out, np.vectorize(np.sum, signature="(n)->()")(xv))


def test_unknown_dims():
    x = hg.tensor("x", (None, 3, None), "float32")
    y = bw.Blockwise(red.Sum(axis=-1), "(m,n)->(m)")(x)
    assert y.type.shape == (None, 3)
    a = hg.tensor("a", (None, 1, 2, 3), "float32")
    b = hg.tensor("b", (4, 3, 5), "float32")
    assert bw.blockwise(hg.matmul, "(m,n),(n,p)->(m,p)")(a, b).type.shape == (None, 4, 2, 5)


def test_signatures():
    assert bw.parse_signature("(m, n),(n)->(m)") == ((("m", "n"), ("n",)), (("m",),))
    assert bw.parse_signature("(),()->(),()") == (((), ()), ((), ()))
    for bad in ["(m,n)", "(m,)->(m)", "m->m", "(m)->(k)"]:
        with pytest.raises(ValueError, match="Blockwise"):
            bw.parse_signature(bad)
    op = bw.Blockwise(red.Sum(axis=-1), "(m,n)->(m)")
    assert op == bw.Blockwise(red.Sum(axis=-1), "(m,n)->(m)")
    assert op != bw.Blockwise(red.Sum(axis=0), "(m,n)->(m)")
    assert "Sum" in str(op)


def test_errors():
    x = hg.tensor("x", (2, 3), "float32")
    with pytest.raises(ValueError, match="needs at least 2 dimensions"):
        bw.Blockwise(red.Sum(axis=-1), "(m,n)->(m)")(hg.tensor("v", (3,), "float32"))
    with pytest.raises(TypeError, match="expected 2 inputs, got 1"):
        bw.Blockwise(SumDiff(), "(n),(n)->(n),(n)")(x)
    with pytest.raises(ValueError, match="core dimension 'n' is 3 elsewhere but 4"):
        bw.Blockwise(Axpy(1.0), "(n),(n)->(n)")(x, hg.tensor("y", (4,), "float32"))
    with pytest.raises(ValueError, match="do not broadcast"):
        bw.Blockwise(Axpy(1.0), "(n),(n)->(n)")(x, hg.tensor("y", (4, 3), "float32"))
    with pytest.raises(ValueError, match="the signature says 1 dimensions"):
        bw.Blockwise(red.Sum(axis=None), "(n)->(n)")(x)
    with pytest.raises(TypeError, match="the core op gives 2 outputs"):
        bw.Blockwise(SumDiff(), "(n),(n)->(n)")(x, x)
    with pytest.raises(TypeError, match="core_op must be an Op"):
        bw.Blockwise(hg.sum, "(n)->()")
