"""The HLOGRAPH mode of ``pytensor.function``: registration and rewrites, the linker's
settings, shared variables and updates, graphs with value-dependent shapes (which
PyTensor's JAX mode rejects), the per-node fallback to PyTensor's perform, assertions,
control flow, ``explain``, and the conversion functions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pytensor")

import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from pytensor.compile.builders import OpFromGraph  # noqa: E402
from pytensor.compile.mode import Mode, get_mode  # noqa: E402
from pytensor.graph.basic import Apply  # noqa: E402
from pytensor.graph.op import Op  # noqa: E402
from pytensor.graph.rewriting.db import RewriteDatabaseQuery  # noqa: E402
from pytensor.ifelse import ifelse  # noqa: E402
from pytensor.raise_op import Assert  # noqa: E402

import hlograph as hg  # noqa: E402
import hlograph.interop.pytensor as hgpt  # noqa: E402
from hlograph.tests.interop.pytensor_helpers import compare_hlograph_and_py, fallbacks_of, py_mode  # noqa: E402


def _op_names(fn) -> set[str]:
    return {type(n.op).__name__ for n in fn.maker.fgraph.apply_nodes} | {
        type(getattr(n.op, "scalar_op", None)).__name__ for n in fn.maker.fgraph.apply_nodes}


def test_mode_is_registered_with_the_linker_and_rewrites():
    m = get_mode("HLOGRAPH")
    assert isinstance(m.linker, hgpt.HlographLinker)
    x, a = pt.vector("x"), pt.matrix("a")
    fn = pytensor.function([x, a], [(a @ a.T) * 2 + 1, pt.exp(x) * 2 + x], mode="HLOGRAPH")
    names = _op_names(fn)
    # no BLAS, fusion or in-place rewrites
    assert not names & {"Dot22", "Gemm", "Gemv", "Dot22Scalar", "Composite"}, names
    assert not any(n.op.destroy_map for n in fn.maker.fgraph.apply_nodes)
    # a mode rebuilt around the linker keeps BLAS and fusion out (as PyMC rebuilds modes);
    # the in-place rewrites stay off when it keeps the mode's query (PyMC's
    # ``mode.provided_optimizer.including(...).excluding(...)``)
    rebuilt = Mode(linker=m.linker, optimizer=RewriteDatabaseQuery(include=["fast_run"]))
    fn2 = pytensor.function([a], (a @ a.T) * 2 + 1, mode=rebuilt)
    assert not _op_names(fn2) & {"Dot22", "Gemm", "Composite"}
    av = np.arange(6.0).reshape(2, 3)
    keep = av.copy()
    np.testing.assert_allclose(fn2(av), (av @ av.T) * 2 + 1)
    np.testing.assert_array_equal(av, keep)
    pymc_like = Mode(linker=m.linker,
                     optimizer=m.provided_optimizer.including("random_make_inplace").excluding("fusion"))
    fn3 = pytensor.function([a], pt.exp(a @ a.T) * 2 + 1, mode=pymc_like)
    assert not any(n.op.destroy_map for n in fn3.maker.fgraph.apply_nodes)
    assert isinstance(get_mode("HLOGRAPH").excluding("local_add_canonizer").linker, hgpt.HlographLinker)


def test_mode_with_settings():
    m = hgpt.mode(platform="cpu", pipeline="O1")
    x = pt.vector("x")
    fn = pytensor.function([x], pt.exp(x), mode=m)
    np.testing.assert_allclose(fn([0.0, 1.0]), np.exp([0.0, 1.0]))
    hfn = hgpt.hlograph_function(fn)
    assert isinstance(hfn, hg.compiler.Function)
    assert (hfn.pipeline, hfn.platform) == ("O1", "cpu")
    # a second function from the same mode keeps the settings
    fn2 = pytensor.function([x], x + 1, mode=m)
    fn2([1.0])
    assert hgpt.hlograph_function(fn2).pipeline == "O1"
    with pytest.raises(ValueError):
        hgpt.mode(pipeline="O9")


def test_shared_variables_and_updates():
    w = pytensor.shared(np.zeros(3), name="w")
    count = pytensor.shared(np.int64(0), name="count")
    x = pt.vector("x")
    fn = pytensor.function([x], [(w * x).sum(), w * 1], updates={w: w + x, count: count + 1}, mode="HLOGRAPH")
    first, w_seen = fn(np.ones(3))
    second, _ = fn(np.arange(3.0))
    assert float(first) == 0.0 and float(second) == 3.0
    np.testing.assert_array_equal(w.get_value(), [1.0, 2.0, 3.0])
    assert count.get_value() == 2
    w.set_value(np.full(3, 10.0))
    assert float(fn(np.ones(3))[0]) == 30.0
    # results are arrays the caller owns
    assert w_seen.flags.writeable
    w_seen += 1


def test_outputs_are_owned_arrays():
    x = pt.vector("x")
    fn = pytensor.function([x], [x, x * 2], mode="HLOGRAPH")
    xv = np.arange(3.0)
    same, double = fn(xv)
    assert same.flags.writeable and double.flags.writeable
    assert not np.may_share_memory(same, xv)
    same[0] = 7.0
    assert xv[0] == 0.0


def test_givens_and_single_output():
    x, y = pt.vector("x"), pt.vector("y")
    fn = pytensor.function([y], x * 2, givens={x: y + 1}, mode="HLOGRAPH")
    out = fn(np.ones(2))
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, [4.0, 4.0])


def test_graphs_with_value_dependent_shapes(rng):
    """What PyTensor's JAX mode rejects (boolean indexing, arange of a value, nonzero,
    unique, slices up to a value) runs here: host ops inside the compiled function."""
    x = pt.vector("x")
    n = pt.scalar("n", dtype="int64")
    outs = [x[x > 0], pt.arange(n) * 2, pt.nonzero(x > 0)[0], pt.unique(pt.round(x)), x[:n].sum()]
    xv = rng.normal(size=8)
    fn, _ = compare_hlograph_and_py([x, n], outs, [xv, 3])
    got = fn(np.linspace(-1, 1, 11), 5)  # another count of positive values, another n
    np.testing.assert_array_equal(got[0], np.linspace(-1, 1, 11)[6:])
    np.testing.assert_array_equal(got[1], np.arange(5) * 2)
    assert "host" in hgpt.explain(fn)


def test_jax_mode_rejects_them():
    jax = pytest.importorskip("jax")
    x64 = jax.config.jax_enable_x64
    try:
        x = pt.vector("x")
        n = pt.scalar("n", dtype="int64")
        for out in (x[x > 0], pt.arange(n)):
            with pytest.raises(Exception):
                pytensor.function([x, n], out, mode="JAX", on_unused_input="ignore")(np.ones(3), 2)
    finally:  # importing PyTensor's JAX backend sets jax's x64 flag from floatX
        jax.config.update("jax_enable_x64", x64)


def test_shapes_specialize_per_call(rng):
    m = pt.matrix("m")
    fn = pytensor.function([m], [pt.zeros((m.shape[0], 2)) + m[:, :2], m.reshape((m.shape[1], -1))], mode="HLOGRAPH")
    cg = hgpt.compiled_graph(fn)
    assert cg.specialized
    for shape in [(3, 2), (4, 5), (3, 2)]:
        mv = rng.normal(size=shape)
        got = fn(mv)
        np.testing.assert_array_equal(got[0], mv[:, :2])
        np.testing.assert_array_equal(got[1], mv.reshape(shape[1], -1))
    assert len(cg.conversions()) == 2 and not fallbacks_of(fn)


def test_shape_key_of_static_and_unknown_shapes(rng):
    """Conversions are told apart by the shapes of the inputs whose PyTensor types leave
    a dimension unknown; a repeated shape takes the last call's conversion, a new one
    converts again, and a static shape PyTensor rejects never reaches the graph."""
    m = pt.matrix("m")
    s = pt.tensor("s", shape=(2,), dtype="float64")
    c = pt.scalar("c")
    fn = pytensor.function([m, s, c], [pt.zeros((m.shape[0], 2)) + s * c, m.reshape((m.shape[1], -1)).sum(0)],
                           mode="HLOGRAPH")
    cg = hgpt.compiled_graph(fn)
    assert cg.specialized
    for shape in [(3, 2), (3, 2), (4, 5), (4, 5), (3, 2), (0, 1), (5, 1)]:
        mv, sv, cv = rng.normal(size=shape), rng.normal(size=2), rng.normal()
        first, second = fn(mv, sv, cv)
        np.testing.assert_allclose(first, np.zeros((shape[0], 2)) + sv * cv)
        np.testing.assert_allclose(second, mv.reshape(shape[1], -1).sum(0))
        assert hgpt.hlograph_function(fn, mv, sv, cv).graph.input_types[0].shape == shape
    assert len(cg.conversions()) == 4
    with pytest.raises(TypeError, match="shape"):
        fn(np.ones((3, 2)), np.ones(3), 1.0)
    # the compiled graph called directly with a Python list (no .shape) converts for its shape
    got = cg([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.ones(2), np.float64(2.0))
    np.testing.assert_allclose(got[1], [5.0, 7.0, 9.0])
    assert len(cg.conversions()) == 4


def test_outputs_are_fresh_arrays_on_every_call(rng):
    """Each call returns new writeable arrays: nothing aliases an argument or an earlier
    call's results (device results are copied out of their read-only buffers), scalar
    outputs are NumPy scalars, as PyTensor's own modes give them."""
    x = pt.vector("x")
    total = pt.scalar_from_tensor(x.sum())
    outs = [x, x * 2, x.sum(), total, pt.zeros((x.shape[0],)) + 1]  # the last one per shapes
    fn = pytensor.function([x], outs, mode="HLOGRAPH")
    ref = pytensor.function([x], outs, mode=py_mode)
    xv = rng.normal(size=4)
    a, b = fn(xv), fn(xv)
    for got, want in zip(a, ref(xv)):
        np.testing.assert_allclose(got, want)
        assert type(got) is type(want)
    for u, v in zip(a, b):
        if isinstance(u, np.ndarray):
            assert u.flags.writeable and not np.may_share_memory(u, v) and not np.may_share_memory(u, xv)
    a[0][0] = a[1][0] = a[4][0] = 100.0
    a[2][...] = 100.0
    np.testing.assert_allclose(b[0], xv)
    np.testing.assert_allclose(b[1], xv * 2)
    np.testing.assert_allclose(b[4], np.ones(4))
    np.testing.assert_allclose(fn(xv)[2], xv.sum())
    assert xv[0] != 100.0


def test_function_without_outputs_and_errors_through_the_thunk():
    s = pytensor.shared(np.arange(3.0), name="s")
    f = pytensor.function([], [], updates={s: s + 1}, mode="HLOGRAPH")
    assert f() == []
    np.testing.assert_array_equal(s.get_value(), np.arange(3.0) + 1)
    x = pt.vector("x")
    g = pytensor.function([x], pt.exp(x), mode="HLOGRAPH")
    g.trust_input = True  # the hlograph function sees the wrong type itself
    with pytest.raises(ValueError, match="expected shape") as info:
        g(np.ones((2, 2)))
    # raised through PyTensor's raise_with_op, which adds its hint (a note since PyTensor 3)
    assert "exception_verbosity" in str(info.value) + "".join(getattr(info.value, "__notes__", []))


class _HostOnlyCumsum(Op):
    """A PyTensor Op with only a Python perform (positive values' running sum)."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [pt.vector(dtype=x.dtype)])

    def perform(self, node, inputs, outputs):
        (x,) = inputs
        outputs[0][0] = np.cumsum(x[x > 0])


def test_fallback_runs_pytensor_perform_with_one_warning():
    x = pt.vector("x")
    op = _HostOnlyCumsum()
    outs = [op(x) * 2, op(x * 3).sum() + x.sum()]
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        fn, _ = compare_hlograph_and_py([x], outs, [np.array([1.0, -2.0, 3.0, 0.5])], allow_fallback=True)
    ours = [r for r in rec if issubclass(r.category, hgpt.FallbackWarning)]
    assert len(ours) == 1 and "_HostOnlyCumsum" in str(ours[0].message)
    assert not [r for r in rec if "PyTensorPerform" in str(r.message)]  # not hlograph's generic one
    assert [name for name, _ in fallbacks_of(fn)] == ["_HostOnlyCumsum", "_HostOnlyCumsum"]
    assert "_HostOnlyCumsum.perform" in hgpt.explain(fn)
    # once per Op class
    with warnings.catch_warnings():
        warnings.simplefilter("error", hgpt.FallbackWarning)
        pytensor.function([x], op(x + 1), mode="HLOGRAPH")(np.ones(2))


def test_scan_converts_to_an_hlograph_loop():
    # (Scan and random variables in depth: test_pytensor_scan.py, test_pytensor_random.py)
    x = pt.vector("x")
    out = pytensor.scan(lambda xi, acc: acc + xi ** 2, sequences=[x], outputs_info=[pt.zeros(())],
                        return_updates=False)
    fn, _ = compare_hlograph_and_py([x], [out, out[-1] * 2], [np.arange(4.0)])
    assert "Scan" in hgpt.explain(fn, np.arange(4.0, dtype=x.dtype))


def test_random_variables_draw_from_the_generators_key():
    rng = pytensor.shared(np.random.default_rng(0))
    x = pt.random.normal(size=3, rng=rng)
    nxt = x.owner.outputs[0]
    fn = pytensor.function([], x, updates={rng: nxt}, mode="HLOGRAPH")
    assert fn().shape == (3,) and not fallbacks_of(fn)


def test_assertions_raise_pytensor_exceptions():
    x = pt.vector("x")
    fn = pytensor.function([x], Assert("x must be positive")(x, pt.all(x > 0)) * 2, mode="HLOGRAPH")
    np.testing.assert_array_equal(fn(np.ones(2)), [2.0, 2.0])
    with pytest.raises(AssertionError, match="x must be positive"):
        fn(-np.ones(2))


def test_ifelse_and_op_from_graph(rng):
    x, y = pt.vector("x"), pt.vector("y")
    c = pt.scalar("c", dtype="int64")
    ofg = OpFromGraph([x, y], [x * y, x - pt.exp(y)], inline=False)
    p, q = ofg(x, y)
    outs = [ifelse(c > 2, x * 2, y + 1), *ifelse(pt.lt(c, 0), [x.sum(), y], [x.prod(), y * 2]), p + q]
    fn, _ = compare_hlograph_and_py([x, y, c], outs, [rng.normal(size=3), rng.normal(size=3), 3])
    np.testing.assert_allclose(fn(np.ones(3), np.ones(3), -1)[0], [2.0, 2.0, 2.0])


def test_explain_and_hlograph_function():
    x = pt.vector("x")
    fn = pytensor.function([x], [pt.exp(x).sum(), x[x > 0]], mode="HLOGRAPH")
    text = hgpt.explain(fn)
    assert "segment" in text and "BooleanMask" in text
    with pytest.raises(TypeError, match="HLOGRAPH"):
        hgpt.explain(pytensor.function([x], x * 2, mode=py_mode))


def test_from_pytensor_and_from_fgraph(rng):
    x, m = pt.vector("x"), pt.matrix("m")
    g = hgpt.from_pytensor([x], pt.exp(x).sum())
    assert isinstance(g, hg.Graph) and g.single_output
    assert g.inputs[0].type == hg.TensorType("float64", (None,))
    np.testing.assert_allclose(hg.compile(g)(np.arange(3.0)), np.exp(np.arange(3.0)).sum())
    fn = pytensor.function([m], m.reshape((m.shape[0] * m.shape[1],)) * 2, mode="HLOGRAPH")
    typed = hgpt.from_fgraph(fn.maker.fgraph, [hg.TensorType("float64", (2, 3))])
    assert typed.inputs[0].type.shape == (2, 3) and typed.outputs[0].type.shape == (6,)
    mv = rng.normal(size=(2, 3))
    np.testing.assert_allclose(hg.compile(typed)(mv)[0], mv.reshape(-1) * 2)


# --- the host executor: small graphs on the CPU run without XLA --------------------------------
def _hierarchical_logp():
    """A radon-like log-density and its gradient (scalars, vectors, an index gather)."""
    mu, log_s = pt.dscalar("mu"), pt.dscalar("log_s")
    a, y = pt.dvector("a"), pt.dvector("y")
    g = pt.lvector("g")
    s = pt.exp(log_s)
    logp = -0.5 * (((y - a[g]) / s) ** 2).sum() - g.shape[0] * log_s - 0.5 * ((a - mu) ** 2).sum()
    inputs = [mu, log_s, a, y, g]
    return inputs, [logp, *pytensor.grad(logp, [mu, log_s, a])]


def _hierarchical_values(rng):
    g = rng.integers(0, 7, 40)
    return [np.float64(0.3), np.float64(-0.2), rng.normal(size=7), rng.normal(size=40), g]


def test_small_graphs_run_on_the_host_executor(rng):
    inputs, outputs = _hierarchical_logp()
    vals = _hierarchical_values(rng)
    fn = pytensor.function(inputs, outputs, mode="HLOGRAPH")
    on_xla = pytensor.function(inputs, outputs, mode=hgpt.mode(executor="xla"))
    ref = pytensor.function(inputs, outputs, mode=py_mode)
    got, xla, want = fn(*vals), on_xla(*vals), ref(*vals)
    for a, b, c in zip(got, xla, want):
        np.testing.assert_allclose(a, c, rtol=1e-12)
        np.testing.assert_allclose(b, c, rtol=1e-12)
        assert np.asarray(a).dtype == np.asarray(c).dtype and np.shape(a) == np.shape(c)
    assert hgpt.compiled_graph(fn).last_entry().program is not None
    assert hgpt.compiled_graph(on_xla).last_entry().program is None
    text = hgpt.explain(fn)
    assert text.startswith("the whole graph runs on the host executor") and "segment 0: device" in text
    assert "host executor" not in hgpt.explain(on_xla)
    # the outputs are the caller's: writing one changes nothing on the next call
    first = fn(*vals)
    first[3][...] = 0.0
    np.testing.assert_allclose(fn(*vals)[3], want[3], rtol=1e-12)
    # the XLA function stays reachable (compiled on request)
    assert "stablehlo" in hgpt.hlograph_function(fn).lower().as_text()


def test_host_executor_errors_and_settings(rng):
    x, i = pt.dvector("x"), pt.lvector("i")
    fn = pytensor.function([x, i], x[i] * 2, mode="HLOGRAPH")
    np.testing.assert_allclose(fn([1.0, 2.0, 3.0], [2, -1, 0]), [6.0, 6.0, 2.0])
    assert hgpt.compiled_graph(fn).last_entry().program is not None
    with pytest.raises(IndexError, match="out of bounds"):
        fn([1.0, 2.0, 3.0], [3])
    # what the executor does not take goes to XLA: a sort
    fs = pytensor.function([x], pt.sort(x) + 1, mode="HLOGRAPH")
    np.testing.assert_allclose(fs([3.0, 1.0, 2.0]), [2.0, 3.0, 4.0])
    assert hgpt.compiled_graph(fs).last_entry().program is None
    # large values too
    big = pytensor.function([x], pt.exp(x).sum(), mode="HLOGRAPH")
    v = rng.normal(size=200_000)
    np.testing.assert_allclose(big(v), np.exp(v).sum(), rtol=1e-9)
    assert hgpt.compiled_graph(big).last_entry().program is None
    # and graphs that do much work per call (XLA's kernels win there)
    m = pt.dmatrix("m")
    heavy = pytensor.function([m], (m @ m).sum(), mode="HLOGRAPH")
    mv = rng.normal(size=(100, 100))
    np.testing.assert_allclose(heavy(mv), (mv @ mv).sum(), rtol=1e-9)
    assert hgpt.compiled_graph(heavy).last_entry().program is None
    with pytest.raises(ValueError, match="executor"):
        hgpt.mode(executor="numba")
    with pytest.raises(ValueError, match="executor"):
        hgpt.HlographLinker(executor="gpu")
