"""``vectorize_graph`` and ``hg.vmap``: for every rule family, evaluating the vectorized
graph equals stacking the original graph's results per batch element (the reference
semantics), and the compiled vectorized graph gives the same; batched and unbatched
inputs mixed, batch sizes 1, 3 and 0, negative axes; the Blockwise fallback for Ops
without a rule; vmap's in_axes, out_axes and errors."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlograph as hg
from hlograph.frontend.graph import Apply, Op
from hlograph.frontend.ops.blockwise import Blockwise
from hlograph.frontend.ops.control import IfElse
from hlograph.frontend.types import TensorType
from hlograph.frontend.vectorize import BATCHING_RULES, vectorize_graph, vmap
from hlograph.tests.test_random_graphs import graphs


def _values(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(-5, 6, size=shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


def _toposort(outputs):
    from hlograph.frontend.graph import _ancestors_toposort
    return _ancestors_toposort(list(outputs))


def check(rng, fn, specs, batched, size=3, compiled=True, values=None, rtol=1e-6):
    """``fn`` on core inputs of ``specs`` [(shape, dtype)], vectorized over the inputs
    ``batched`` says; compares with the per-element results stacked."""
    core = [hg.tensor(f"x{i}", s, d) for i, (s, d) in enumerate(specs)]
    out = fn(*core)
    outs = out if isinstance(out, (list, tuple)) else [out]
    outer = [hg.tensor(f"b{i}", (size,) + tuple(s), d) if b else v
             for i, ((s, d), b, v) in enumerate(zip(specs, batched, core))]
    replace = {v: o for v, o, b in zip(core, outer, batched) if b}
    vec = vectorize_graph(list(outs), replace)
    vals = values or [_values(rng, ((size,) if b else ()) + tuple(s), d)
                      for (s, d), b in zip(specs, batched)]
    graph = hg.Graph(core, list(outs))
    per = [graph.unflatten(hg.evaluate(graph, *[v[k] if b else v for v, b in zip(vals, batched)]))
           for k in range(size)]
    expected = []
    for j, o in enumerate(outs):
        rows = [np.asarray(p[j] if isinstance(p, (list, tuple)) else p) for p in per]
        expected.append(np.stack(rows) if rows else np.zeros((0,) + tuple(o.shape), o.dtype))
    vgraph = hg.Graph(outer, list(vec))
    got = hg.evaluate(vgraph, *vals)
    got = list(got) if isinstance(got, tuple) else [got]
    results = [got]
    if compiled:
        comp = hg.compile(vgraph)(*vals)
        results.append(list(comp) if isinstance(comp, tuple) else [comp])
    for res in results:
        for r, e, v, o in zip(res, expected, vec, outs):
            r = np.asarray(r)
            if v.ndim == o.ndim:  # an output that reads no batched input
                r = np.broadcast_to(r, (size,) + r.shape)
            assert r.shape == e.shape, (r.shape, e.shape)
            assert r.dtype == e.dtype
            np.testing.assert_allclose(r, e, rtol=rtol, atol=rtol, equal_nan=True)
    return vec


def _no_loops(outputs):
    """No Blockwise node: every node had a batching rule."""
    kinds = {type(n.op).__name__ for n in _toposort(outputs)}
    assert "Blockwise" not in kinds, kinds


MIXES = [(True, True), (True, False), (False, True)]


# --- elementwise -------------------------------------------------------------------------
@pytest.mark.parametrize("batched", MIXES)
@pytest.mark.parametrize("size", [1, 3, 0])
def test_elementwise_ranks_align(rng, batched, size):
    vec = check(rng, lambda x, y: hg.exp(x) * y + hg.sin(y), [((2, 4), "float64"), ((4,), "float64")],
                batched, size)
    _no_loops(vec)


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "complex64"])
def test_elementwise_dtypes(rng, dtype):
    def fn(x, y):
        if dtype == "bool":
            return [hg.logical_xor(x, y), hg.logical_not(x)]
        return [x + y, x * y, hg.where(x == y, x, y), (x < y)]
    vec = check(rng, fn, [((3,), dtype), ((2, 3), dtype)], (True, False))
    _no_loops(vec)


def test_where_clip_cast(rng):
    def fn(c, x, y):
        return [hg.where(c, x, y), hg.clip(x, -0.5, 0.5), x.astype("int32"), hg.maximum(x, y)]
    for batched in [(True, False, False), (False, True, False), (False, False, True), (True, True, True)]:
        vec = check(rng, fn, [((4,), "bool"), ((3, 4), "float32"), ((), "float32")], batched)
        _no_loops(vec)


# --- reductions ---------------------------------------------------------------------------
REDUCTIONS = [
    ("sum_neg", lambda x: hg.sum(x, axis=-1)),
    ("sum_all", lambda x: hg.sum(x)),
    ("prod_keep", lambda x: hg.prod(x, axis=(0, 2), keepdims=True)),
    ("max", lambda x: hg.max(x, axis=1)),
    ("min_all_keep", lambda x: hg.min(x, keepdims=True)),
    ("mean", lambda x: hg.mean(x, axis=-2)),
    ("var", lambda x: hg.var(x, axis=0, ddof=1)),
    ("std", lambda x: hg.std(x)),
    ("argmax", lambda x: hg.argmax(x, axis=-1)),
    ("argmin_none", lambda x: hg.argmin(x)),
    ("argmax_none_keep", lambda x: hg.argmax(x, keepdims=True)),
    ("logsumexp", lambda x: hg.logsumexp(x, axis=(1, 2))),
    ("logsumexp_all", lambda x: hg.logsumexp(x)),
    ("softmax", lambda x: hg.softmax(x, axis=-1)),
    ("log_softmax", lambda x: hg.log_softmax(x, axis=0)),
    ("cumsum", lambda x: hg.cumsum(x, axis=-1)),
    ("cumsum_none", lambda x: hg.cumsum(x)),
    ("cumprod", lambda x: hg.cumprod(x, axis=0)),
    ("cummax", lambda x: np.maximum.accumulate(x, axis=1)),
    ("all_any", lambda x: [hg.all(x > 0, axis=0), hg.any(x > 1)]),
]


@pytest.mark.parametrize("name,fn", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reductions(rng, name, fn):
    vec = check(rng, fn, [((2, 3, 4), "float64")], (True,))
    _no_loops(vec)


def test_reductions_batch_zero(rng):
    check(rng, lambda x: [hg.sum(x, axis=0), hg.cumsum(x), hg.argmax(x)], [((2, 3), "float32")], (True,), size=0)


# --- contractions -------------------------------------------------------------------------
DOTS = [
    ("matmul", lambda a, b: a @ b, (3, 4), (4, 5)),
    ("matvec", lambda a, b: a @ b, (3, 4), (4,)),
    ("vecvec", lambda a, b: hg.dot(a, b), (4,), (4,)),
    ("batched_matmul", lambda a, b: a @ b, (2, 3, 4), (2, 4, 5)),
    ("broadcast_matmul", lambda a, b: a @ b, (2, 3, 4), (4, 5)),
    ("broadcast_matmul_b", lambda a, b: a @ b, (3, 4), (2, 4, 5)),
    ("einsum", lambda a, b: hg.einsum("ij,kj->ki", a, b), (3, 4), (5, 4)),
    ("tensordot", lambda a, b: hg.tensordot(a, b, axes=([0], [1])), (3, 4), (5, 3)),
]


@pytest.mark.parametrize("batched", MIXES)
@pytest.mark.parametrize("name,fn,sa,sb", DOTS, ids=[d[0] for d in DOTS])
def test_contractions(rng, name, fn, sa, sb, batched):
    vec = check(rng, fn, [(sa, "float64"), (sb, "float64")], batched)
    _no_loops(vec)


def test_dot_batch_size_zero_and_one(rng):
    for size in (0, 1):
        check(rng, lambda a, b: a @ b, [((3, 4), "float32"), ((4, 2), "float32")], (True, True), size, rtol=1e-5)


# --- shapes --------------------------------------------------------------------------------
SHAPES = [
    ("reshape", lambda x: hg.reshape(x, (4, 3))),
    ("reshape_infer", lambda x: hg.reshape(x, (-1,))),
    ("transpose", lambda x: hg.transpose(x)),
    ("swapaxes", lambda x: hg.swapaxes(x, 0, -1)),
    ("broadcast_to", lambda x: hg.broadcast_to(x, (2, 3, 4))),
    ("expand_dims", lambda x: hg.expand_dims(x, -1)),
    ("squeeze", lambda x: hg.squeeze(hg.expand_dims(x, 0), 0)),
    ("flip", lambda x: hg.flip(x, axis=-1)),
    ("slice", lambda x: x[1:, ::-2]),
    ("index", lambda x: x[0, None, 1:]),
    ("split", lambda x: hg.split(x, 2, axis=-1)),
    ("pad", lambda x: hg.pad(x, ((1, 0), (0, 2)), constant_values=7.0)),
    ("sort", lambda x: hg.sort(x, axis=0)),
    ("sort_none", lambda x: hg.sort(x, axis=None)),
    ("argsort", lambda x: hg.argsort(x, axis=-1)),
    ("ravel", lambda x: hg.ravel(x)),
]


@pytest.mark.parametrize("name,fn", SHAPES, ids=[s[0] for s in SHAPES])
def test_shape_ops(rng, name, fn):
    vec = check(rng, fn, [((3, 4), "float64")], (True,))
    _no_loops(vec)


@pytest.mark.parametrize("batched", MIXES)
def test_concatenate_and_stack(rng, batched):
    vec = check(rng, lambda x, y: [hg.concatenate([x, y], axis=-1), hg.stack([x, y], axis=1)],
                [((2, 3), "float32"), ((2, 3), "float32")], batched)
    _no_loops(vec)


# --- gathers ---------------------------------------------------------------------------------
GATHERS = [
    ("take", lambda x, i: hg.take(x, i, axis=0)),
    ("take_axis1", lambda x, i: hg.take(x, i, axis=-1)),
    ("adjacent", lambda x, i: x[:, i, i]),
    ("separated", lambda x, i: x[i, :, i]),
    ("with_newaxis", lambda x, i: x[None, :, i]),
]


@pytest.mark.parametrize("batched", MIXES)
@pytest.mark.parametrize("name,fn", GATHERS, ids=[g[0] for g in GATHERS])
def test_gathers(rng, name, fn, batched):
    specs = [((3, 3, 3), "float64"), ((2,), "int64")] if name in ("adjacent", "separated") else \
        [((3, 4), "float64"), ((2, 2), "int64")]
    shape_x = specs[0][0]
    size = 3
    xv = _values(rng, ((size,) if batched[0] else ()) + shape_x, "float64")
    n = min(shape_x)
    iv = rng.integers(-n, n, size=((size,) if batched[1] else ()) + specs[1][0]).astype(np.int64)
    vec = check(rng, fn, specs, batched, size, values=[xv, iv])
    _no_loops(vec)


UPDATES = [
    ("add_adjacent", lambda x, v, i: x.at[:, i].add(v), (3, 4), (3, 2)),
    ("set_first", lambda x, v, i: x.at[i].set(v), (3, 4), (4,)),
    ("add_separated", lambda x, v, i: x.at[i, :, i].add(v), (3, 3, 3), (2, 3)),
    ("max_scalar", lambda x, v, i: x.at[i].max(v), (3, 4), ()),
]


@pytest.mark.parametrize("batched", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("name,fn,sx,sv", UPDATES, ids=[u[0] for u in UPDATES])
def test_updates_at_indices(rng, name, fn, sx, sv, batched):
    iv = np.array([0, 2], np.int64)
    i = hg.constant(iv)
    vec = check(rng, lambda x, v: fn(x, v, i), [(sx, "float64"), (sv, "float64")], batched)
    _no_loops(vec)


# --- other Ops, the fallback ----------------------------------------------------------------------
def test_composite_is_inlined(rng):
    a, b = hg.tensor("a", (3,), "float64"), hg.tensor("b", (3,), "float64")
    comp = hg.composite([a, b], [a * b + 1.0, hg.sum(b)], name="fma")
    vec = check(rng, lambda x, y: comp(x, y), [((3,), "float64"), ((3,), "float64")], (True, False))
    _no_loops(vec)


def test_nested_blockwise_extends_its_batch(rng):
    mm = hg.blockwise(hg.matmul, "(m,n),(n,p)->(m,p)")
    for batched in MIXES:
        vec = check(rng, mm, [((2, 3, 4), "float64"), ((4, 5), "float64")], batched)
        ops = [n.op for n in _toposort(vec)]
        assert sum(isinstance(o, Blockwise) for o in ops) == 1


def test_op_without_a_rule_falls_back_to_blockwise(rng):
    # searchsorted has no batching rule: a Blockwise loop, correct
    for batched in MIXES:
        vec = check(rng, lambda a, v: hg.searchsorted(hg.sort(a), v) * 2,
                    [((5,), "float64"), ((3,), "float64")], batched)
        assert any(isinstance(n.op, Blockwise) for n in _toposort(vec))


class _Rot(Op):
    """A test Op no rule knows: the elements rolled by one (perform only)."""

    def make_node(self, x):
        return Apply(self, [x], [TensorType(x.dtype, (x.shape[0] + 1,))])

    def perform(self, node, inputs):
        x = inputs[0]
        return [np.concatenate([np.roll(x, 1), x[:1] * 2])]


def test_unknown_op_with_a_new_output_size(rng):
    assert BATCHING_RULES.lookup(_Rot) is None
    vec = check(rng, lambda x: _Rot()(x) * 2.0, [((4,), "float64")], (True,), compiled=False)
    assert isinstance(vec[0].owner.inputs[0].owner.op, Blockwise)


def test_ifelse_with_a_batched_predicate(rng):
    def fn(p, x):
        return hg.ifelse(p > 0, lambda: x * 2.0, lambda: x - 1.0)
    check(rng, fn, [((), "float64"), ((3,), "float64")], (True, False))
    check(rng, fn, [((), "float64"), ((3,), "float64")], (True, True))


def test_unbatched_nodes_are_shared():
    x, w = hg.tensor("x", (3,), "float32"), hg.tensor("w", (3, 3), "float32")
    wt = hg.exp(w)
    y = x @ wt
    xb = hg.tensor("xb", (5, 3), "float32")
    yb = vectorize_graph(y, {x: xb})
    assert any(v is wt for n in _toposort([yb]) for v in n.inputs)
    assert not any(isinstance(n.op, type(wt.owner.op)) and n is not wt.owner for n in _toposort([yb]))
    assert vectorize_graph(wt, {x: xb}) is wt


def test_unknown_batch_size(rng):
    x = hg.tensor("x", (3,), "float64")
    w = hg.tensor("w", (3, 2), "float64")
    outs = [hg.tanh(x @ w), hg.broadcast_to(hg.sum(x), (2,)), hg.concatenate([x, hg.sum(w, axis=1)])]
    xb = hg.tensor("xb", (None, 3), "float64")
    vec = vectorize_graph(outs, {x: xb})
    xv, wv = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))
    g = hg.Graph([x, w], outs)
    ref = [np.stack([hg.evaluate(g, xv[k], wv)[j] for k in range(4)]) for j in range(3)]
    vg = hg.Graph([xb, w], vec)
    for res in (hg.evaluate(vg, xv, wv), hg.compile(vg)(xv, wv)):
        for r, e in zip(res, ref):
            np.testing.assert_allclose(r, e, rtol=1e-12)


def test_vectorize_graph_errors():
    x = hg.tensor("x", (3,), "float32")
    with pytest.raises(ValueError, match="one leading batch axis"):
        vectorize_graph(x * 2.0, {x: hg.tensor("b", (3,), "float32")})
    with pytest.raises(ValueError, match="batch sizes differ"):
        y = hg.tensor("y", (3,), "float32")
        vectorize_graph(x * y, {x: hg.tensor("b", (2, 3), "float32"), y: hg.tensor("c", (4, 3), "float32")})
    with pytest.raises(TypeError, match="replace"):
        vectorize_graph(x, [x])


# --- vmap ---------------------------------------------------------------------------------------
def _ev(outs, inputs, *vals):
    return hg.evaluate(hg.Graph(inputs, outs), *vals)


def test_vmap_in_axes_and_out_axes(rng):
    xs = hg.tensor("xs", (3, 5), "float64")  # batch on axis 1
    w = hg.tensor("w", (3, 2), "float64")
    f = vmap(lambda x, w: hg.tanh(x @ w), in_axes=(1, None), out_axes=1)
    out = f(xs, w)
    assert out.shape == (2, 5)
    xv, wv = rng.normal(size=(3, 5)), rng.normal(size=(3, 2))
    np.testing.assert_allclose(_ev(out, [xs, w], xv, wv), np.tanh(xv.T @ wv).T, rtol=1e-12)
    # a pytree argument with a prefix of axes; several outputs, one unmapped
    d = {"a": hg.tensor("a", (4, 3), "float64"), "b": hg.tensor("b", (3,), "float64")}
    g = vmap(lambda p: (p["a"] * p["b"], hg.sum(p["b"])), in_axes=({"a": 0, "b": None},), out_axes=(0, None))
    o1, o2 = g(d)
    assert o1.shape == (4, 3) and o2.shape == ()
    av, bv = rng.normal(size=(4, 3)), rng.normal(size=3)
    r1, r2 = _ev([o1, o2], [d["a"], d["b"]], av, bv)
    np.testing.assert_allclose(r1, av * bv)
    np.testing.assert_allclose(r2, bv.sum())
    # an unmapped output with out_axes 0 is broadcast along the batch
    (o3,) = vmap(lambda x, w: [hg.sum(w)], in_axes=(0, None))(hg.tensor("q", (6, 3), "float64"), w)
    assert o3.shape == (6,)
    # arrays become constants; a negative axis
    r = vmap(lambda x: hg.sum(x), in_axes=-1)(np.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(hg.evaluate(hg.Graph([], r)), np.arange(6.0).reshape(2, 3).sum(0))


def test_vmap_nested_and_compiled(rng):
    x = hg.tensor("x", (2, 3, 4), "float32")
    f = vmap(vmap(lambda r: hg.softmax(r) * hg.max(r)))
    out = f(x)
    xv = rng.normal(size=(2, 3, 4)).astype(np.float32)
    m = xv.max(-1, keepdims=True)
    e = np.exp(xv - m)
    ref = e / e.sum(-1, keepdims=True) * m
    np.testing.assert_allclose(hg.compile(hg.Graph([x], out))(xv), ref, rtol=1e-5)
    _no_loops([out])


def test_vmap_errors():
    a, b = hg.tensor("a", (3, 2), "float32"), hg.tensor("b", (4, 2), "float32")
    with pytest.raises(ValueError, match="inconsistent sizes"):
        vmap(lambda x, y: x + y)(a, b)
    with pytest.raises(ValueError, match="at least one non-None"):
        vmap(lambda x: x, in_axes=None)(a)
    with pytest.raises(ValueError, match="len\\(in_axes\\)=1, len\\(args\\)=2"):
        vmap(lambda x, y: x, in_axes=(0,))(a, b)
    with pytest.raises(ValueError, match="out_axes is None"):
        vmap(lambda x: x * 2.0, out_axes=None)(a)
    with pytest.raises(ValueError, match="out of bounds"):
        vmap(lambda x: x, in_axes=2)(a)
    with pytest.raises(ValueError, match="rank should be at least 1"):
        vmap(lambda x: x)(hg.tensor("s", (), "float32"))
    with pytest.raises(TypeError, match="must return graph values"):
        vmap(lambda x: 3)(a)
    with pytest.raises(ValueError, match="tree prefix"):
        vmap(lambda p: p[0], in_axes=((0, 0, 0),))((a, a))


# --- control flow, decompositions, transforms, dynamic slices ----------------------------------
@pytest.mark.parametrize("batched", [(True, False), (True, True), (False, True)])
def test_ifelse(rng, batched):
    def fn(p, x):
        return hg.ifelse(p > 0, lambda: (x * 2.0, hg.sum(x)), lambda: (x - 1.0, hg.max(x)))
    vec = check(rng, fn, [((), "float64"), ((3,), "float64")], batched)
    _no_loops(vec)
    kinds = {type(n.op) for n in _toposort(vec)}
    # a batched predicate: both branches, selected per element; else one conditional
    assert (IfElse in kinds) != batched[0]


def test_switch_with_a_batched_index(rng):
    def fn(i, x):
        return hg.switch(i, [lambda: x + 1.0, lambda: x * x, lambda: -x])
    vals = [np.array([-1, 0, 1, 2, 5], np.int64), rng.normal(size=(5, 2))]
    vec = check(rng, fn, [((), "int64"), ((2,), "float64")], (True, True), size=5, values=vals)
    _no_loops(vec)


@pytest.mark.parametrize("batched", MIXES)
def test_decompositions_broadcast_their_leading_dims(rng, batched):
    def fn(a, b):
        m = a @ hg.swapaxes(a, -1, -2) + 3.0 * hg.eye(3)
        return [hg.linalg.solve(m, b), hg.linalg.det(m), hg.linalg.cholesky(m)]
    vec = check(rng, fn, [((3, 3), "float64"), ((2, 3, 3), "float64")], batched, rtol=1e-8)
    _no_loops(vec)


def test_fft(rng):
    vec = check(rng, lambda x: [hg.fft.fft(x, axis=-1), hg.fft.rfft2(hg.real(x))],
                [((4, 6), "complex128")], (True,), rtol=1e-10)
    _no_loops(vec)


@pytest.mark.parametrize("batched", MIXES)
def test_dynamic_slices(rng, batched):
    def fn(x, u):
        i = hg.constant(np.int64(1))
        return [hg.dynamic_slice(x, (i, i), (2, 2)), hg.dynamic_update_slice(x, u, (i, hg.constant(np.int64(0))))]
    vec = check(rng, fn, [((3, 4), "float64"), ((2, 3), "float64")], batched)
    _no_loops(vec)


def test_vmap_of_a_numpy_function_under_hg_function(rng):
    # hg.function traces with Variables, which vmap vectorizes: one compiled batched graph
    f = hg.function(vmap(lambda x, w: np.tanh(x @ w).sum(), in_axes=(0, None)))
    xv, wv = rng.normal(size=(5, 3)), rng.normal(size=(3, 2))
    np.testing.assert_allclose(f(xv, wv), np.tanh(xv @ wv).sum(1), rtol=1e-12)
    # an unknown batch size, and an empty batch
    x = hg.tensor("x", (None, 3), "float64")
    w = hg.tensor("w", (3, 2), "float64")
    g = hg.compile(hg.Graph([x, w], vmap(lambda r, w: hg.softmax(r @ w) + hg.sum(w), in_axes=(0, None))(x, w)))
    for n in (4, 0):
        xv = rng.normal(size=(n, 3))
        e = np.exp(xv @ wv)
        np.testing.assert_allclose(g(xv, wv), e / e.sum(-1, keepdims=True) + wv.sum(), rtol=1e-12)


def test_value_dependent_shapes_cannot_be_vectorized():
    x = hg.tensor("x", (4,), "float64")
    with pytest.raises(ValueError, match="cannot vectorize .*static output shapes"):
        vectorize_graph(hg.nonzero(x)[0], {x: hg.tensor("xb", (3, 4), "float64")})


def test_loops_take_the_fallback(rng):
    def fn(x, n):
        i, acc = hg.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * 0.5 + hg.sin(a)),
                               (hg.constant(np.int64(0)), x))
        cum = hg.scan(lambda r, prev: prev + r, sequences=x, outputs_info=hg.zeros((), "float64"))
        return [acc, cum]
    vals = [rng.normal(size=(3, 4)), np.array([0, 2, 5], np.int64)]
    for batched in [(True, True), (True, False)]:
        v = vals if batched[1] else [vals[0], np.int64(3)]
        vec = check(rng, fn, [((4,), "float64"), ((), "int64")], batched, values=v, rtol=1e-12)
        assert any(isinstance(n.op, Blockwise) for n in _toposort(vec))


# --- random graphs ------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.data())
def test_random_graphs_vectorize_as_stacking(case, data):
    graph, values = case
    batched = data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)).filter(any))
    size = data.draw(st.sampled_from([1, 2, 3]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    vals = [np.stack([v] + [_values(rng, v.shape, v.dtype) for _ in range(size - 1)]) if b else v
            for v, b in zip(values, batched)]
    outer = [hg.tensor(f"b{i}", (size,) + v.shape, v.dtype) if b else v
             for i, (v, b) in enumerate(zip(graph.inputs, batched))]
    vec = vectorize_graph(list(graph.outputs), {v: o for v, o, b in zip(graph.inputs, outer, batched) if b})
    vg = hg.Graph(outer, vec)
    per = [hg.evaluate(graph, *[v[k] if b else v for v, b in zip(vals, batched)]) for k in range(size)]
    per = [p if isinstance(p, tuple) else (p,) for p in per]
    got = hg.evaluate(vg, *vals)
    got = got if isinstance(got, tuple) else (got,)
    for j, (g, v, o) in enumerate(zip(got, vec, graph.outputs)):
        expected = np.stack([p[j] for p in per])
        g = np.broadcast_to(g, expected.shape) if v.ndim == o.ndim else g
        assert g.shape == expected.shape and g.dtype == expected.dtype
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-5, equal_nan=True)
    _no_loops(vec)


CONVS = [
    ("conv1d", lambda x, k: hg.conv_general_dilated(x, k, (1,), "SAME"), (2, 3, 7), (4, 3, 3)),
    ("conv2d_nhwc_strided", lambda x, k: hg.conv_general_dilated(
        x, k, (2, 1), ((1, 0), (0, 1)), rhs_dilation=(1, 2), dimension_numbers=("NHWC", "HWIO", "NHWC")),
     (2, 6, 5, 3), (3, 2, 3, 4)),
    ("grouped", lambda x, k: hg.conv_general_dilated(x, k, (1,), "VALID", feature_group_count=2),
     (2, 4, 6), (4, 2, 3)),
]


@pytest.mark.parametrize("batched", MIXES)
@pytest.mark.parametrize("name,fn,sx,sk", CONVS, ids=[c[0] for c in CONVS])
def test_convolutions(rng, name, fn, sx, sk, batched):
    vec = check(rng, fn, [(sx, "float64"), (sk, "float64")], batched, rtol=1e-10)
    grouped_both = name == "grouped" and batched != (True, False)
    assert any(isinstance(n.op, Blockwise) for n in _toposort(vec)) == grouped_both


def test_reshape_of_unknown_core_dims(rng):
    x = hg.tensor("x", (None, 4), "float32")
    out = hg.reshape(x, (-1, 2)) * 2.0
    xb = hg.tensor("xb", (3, None, 4), "float32")
    vec = vectorize_graph(out, {x: xb})
    _no_loops([vec])
    xv = rng.normal(size=(3, 5, 4)).astype(np.float32)
    for res in (hg.evaluate(hg.Graph([xb], vec), xv), hg.compile(hg.Graph([xb], vec))(xv)):
        np.testing.assert_allclose(res, xv.reshape(3, -1, 2) * 2.0, rtol=1e-6)


def test_vectorize_node_on_its_own(rng):
    from hlograph.frontend.vectorize import vectorize_node
    x, y = hg.tensor("x", (3,), "float64"), hg.tensor("y", (3,), "float64")
    node = (x * y).owner
    xb = hg.tensor("xb", (2, 3), "float64")
    (out,) = vectorize_node(node, [xb, y], [True, False])
    xv, yv = rng.normal(size=(2, 3)), rng.normal(size=3)
    np.testing.assert_allclose(hg.evaluate(hg.Graph([xb, y], out), xv, yv), xv * yv)
    with pytest.raises(ValueError, match="no input is batched"):
        vectorize_node(node, [x, y], [False, False])
