"""Loops in the HLOGRAPH mode: PyTensor's ``Scan`` (sequences, recurrent outputs with
one or several taps, outputs without recurrence, ``n_steps``, non-sequences, shared
variables updated by the loop, the MIT-MOT outputs of gradient scans) and
``ScalarLoop``, against PyTensor's Python implementation."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pytensor")

import pytensor  # noqa: E402
import pytensor.scalar as ps  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from pytensor.scalar.loop import ScalarLoop  # noqa: E402
from pytensor.scan.utils import until  # noqa: E402
from pytensor.tensor.elemwise import Elemwise  # noqa: E402

import hlograph.interop.pytensor as hgpt  # noqa: E402
from hlograph.tests.interop.pytensor_helpers import compare_hlograph_and_py, fallbacks_of  # noqa: E402


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def _scan(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # scan's return_updates default
        return pytensor.scan(*args, **kwargs)


def _ops(fn) -> set[str]:
    return {type(n.op).__name__ for n in fn.maker.fgraph.apply_nodes}


@pytest.mark.parametrize("n", [5, 1])
def test_cumulative_sum(n, rng):
    x = pt.dvector("x")
    ys, _ = _scan(lambda xt, acc: acc + xt, sequences=[x], outputs_info=[pt.zeros(())])
    fn, _ = compare_hlograph_and_py([x], ys, [rng.normal(size=n)])
    assert "Scan" in _ops(fn)
    np.testing.assert_allclose(fn(np.arange(4.0)), [0.0, 1.0, 3.0, 6.0])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_rnn_step(dtype, rng):
    xs = pt.tensor("xs", dtype=dtype, shape=(None, 3))
    w = pt.tensor("w", dtype=dtype, shape=(3, 4))
    u = pt.tensor("u", dtype=dtype, shape=(4, 4))
    b = pt.tensor("b", dtype=dtype, shape=(4,))
    h0 = pt.tensor("h0", dtype=dtype, shape=(4,))

    def step(x_t, h, w, u, b):
        return pt.tanh(x_t @ w + h @ u + b)

    hs, _ = _scan(step, sequences=[xs], outputs_info=[h0], non_sequences=[w, u, b])
    vals = [rng.normal(size=s).astype(dtype) for s in [(6, 3), (3, 4), (4, 4), (4,), (4,)]]
    compare_hlograph_and_py([xs, w, u, b, h0], [hs, hs[-1]], vals, rtol=1e-5 if dtype == "float32" else None)


def test_fibonacci_taps():
    init = pt.dvector("init")
    fib, _ = _scan(lambda a, b: a + b, outputs_info=[dict(initial=init, taps=[-2, -1])], n_steps=10)
    fn, (got,) = compare_hlograph_and_py([init], [fib], [np.array([0.0, 1.0])])
    np.testing.assert_array_equal(got, [1, 2, 3, 5, 8, 13, 21, 34, 55, 89])
    # three taps, and only the last value kept (PyTensor trims the buffer)
    init3 = pt.dvector("init3")
    trib, _ = _scan(lambda a, b, c: a + b + c, outputs_info=[dict(initial=init3, taps=[-3, -2, -1])], n_steps=7)
    compare_hlograph_and_py([init3], [trib, trib[-1]], [np.array([0.0, 0.0, 1.0])])
    compare_hlograph_and_py([init3], trib[-1], [np.array([1.0, 0.0, 1.0])])


def test_n_steps_only(rng):
    a = pt.dscalar("a")
    powers, _ = _scan(lambda p, a: p * a, outputs_info=[pt.ones(())], non_sequences=[a], n_steps=5)
    compare_hlograph_and_py([a], powers, [1.5])
    # outputs without recurrence, and a symbolic number of steps known from a shape
    x = pt.dvector("x")
    squares, _ = _scan(lambda i: pt.cast(i, "float64") ** 2, sequences=[pt.arange(x.shape[0])])
    compare_hlograph_and_py([x], squares, [rng.normal(size=4)])
    compare_hlograph_and_py([x], squares, [rng.normal(size=0)])


def test_several_outputs_and_sequence_taps(rng):
    x = pt.dvector("x")

    def step(x_prev, x_now, acc):
        d = x_now - x_prev
        return d, acc + d * d

    (ds, accs), _ = _scan(step, sequences=[dict(input=x, taps=[-1, 0])], outputs_info=[None, pt.zeros(())])
    compare_hlograph_and_py([x], [ds, accs, accs[-1]], [rng.normal(size=7)])


def test_shared_variable_updated_by_the_loop():
    s = pytensor.shared(np.float64(1.0), name="s")
    x = pt.dvector("x")

    def step(x_t):
        return x_t * s, {s: s * 2.0}

    ys, updates = _scan(step, sequences=[x])
    fn = pytensor.function([x], ys, updates=updates, mode="HLOGRAPH")
    np.testing.assert_allclose(fn(np.ones(3)), [1.0, 2.0, 4.0])
    assert s.get_value() == 8.0
    np.testing.assert_allclose(fn(np.ones(2)), [8.0, 16.0])
    assert s.get_value() == 32.0
    assert not fallbacks_of(fn)


def test_gradient_of_a_scan_based_cost(rng):
    xs = pt.dmatrix("xs")
    w = pt.dmatrix("w")
    h0 = pt.dvector("h0")
    hs, _ = _scan(lambda x_t, h, w: pt.tanh(x_t + h @ w), sequences=[xs], outputs_info=[h0], non_sequences=[w])
    cost = (hs ** 2).sum() + hs[-1].sum()
    grads = pytensor.grad(cost, [xs, w, h0])
    vals = [rng.normal(size=(5, 3)), rng.normal(size=(3, 3)) * 0.5, rng.normal(size=3)]
    fn, _ = compare_hlograph_and_py([xs, w, h0], [cost, *grads], vals, rtol=1e-9, atol=1e-10)
    assert "Scan" in _ops(fn)

    # the gradient of a cumulative sum (a MIT-MOT output)
    x = pt.dvector("x")
    ys, _ = _scan(lambda xt, acc: acc + xt, sequences=[x], outputs_info=[pt.zeros(())])
    g = pytensor.grad((ys ** 2).sum(), x)
    fn, (got,) = compare_hlograph_and_py([x], [g], [np.arange(4.0)])
    np.testing.assert_allclose(got, [20.0, 20.0, 18.0, 12.0])


def test_while_scan_becomes_a_while_loop():
    x = pt.dscalar("x")
    lim = pt.dscalar("lim")

    def step(v, limit):
        nv = v * 2.0
        return nv, until(nv > limit)

    ys, _ = _scan(step, outputs_info=[x], non_sequences=[lim], n_steps=10)
    fn, (got,) = compare_hlograph_and_py([x, lim], [ys], [1.0, 50.0])
    np.testing.assert_array_equal(got, [2.0, 4.0, 8.0, 16.0, 32.0, 64.0])  # the stopping step is kept
    assert "Scan" in _ops(fn)
    # the condition never holds: all the steps; it holds at once: one step
    for limit, n in [(1e9, 10), (0.0, 1)]:
        got = fn(1.0, limit)[0]
        assert got.shape == (n,)
        np.testing.assert_array_equal(got, 2.0 ** np.arange(1, n + 1))
    # only the last values: PyTensor's memory-saving rewrite keeps a short buffer (with the
    # initial value in front); a loop that stops before filling it leaves the rows
    # written, as PyTensor's Numba backend does (its perform cuts such a buffer by the
    # steps not run, past the rows written)
    for outs in ([ys[-1]], [ys[-2:]], [ys[-3:]]):
        fn = pytensor.function([x, lim], outs, mode="HLOGRAPH")
        ref = pytensor.function([x, lim], outs, mode="NUMBA")
        assert not fallbacks_of(fn)
        for limit in (50.0, 1e9, 0.0, 3.0):
            (got,), (want,) = fn(1.0, limit), ref(1.0, limit)
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("limit", [-1.0, 10.0, 30.0, 1e9])
def test_while_scan_with_sequences_taps_and_several_outputs(limit, rng):
    seq = pt.dvector("seq")
    lim = pt.dscalar("lim")

    def step(s, a, b, limit):
        n = a + b + s
        return [n, n * 0.5], until(n > limit)

    (xs, hs), _ = _scan(step, sequences=[seq], outputs_info=[{"initial": pt.as_tensor([0.0, 1.0]),
                                                              "taps": [-2, -1]}, None],
                        non_sequences=[lim], n_steps=8)
    vals = [rng.uniform(0.0, 2.0, 8), limit]
    compare_hlograph_and_py([seq, lim], [xs, hs], vals)
    compare_hlograph_and_py([seq, lim], [xs[-1], hs[-2:]], vals)
    compare_hlograph_and_py([seq, lim], [xs.sum(), hs.shape[0]], vals)


@pytest.mark.parametrize("n_steps", [0, 1, 3, 20])
def test_while_scan_with_a_number_of_steps_given_at_run_time(n_steps):
    x, n = pt.dscalar("x"), pt.lscalar("n")
    ys, _ = _scan(lambda v: (v * 2.0, until(v > 10.0)), outputs_info=[x], n_steps=n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hgpt.FallbackWarning)
        compare_hlograph_and_py([x, n], [ys, ys.shape[0]], [1.0, n_steps], allow_fallback=True)


def test_while_scan_of_vectors_and_a_shared_update(rng):
    x = pt.dvector("x")
    counter = pytensor.shared(np.asarray(0, dtype=np.int64), name="counter")

    def step(v):
        nv = pt.tanh(v) + 0.5
        return nv, {counter: counter + 1}, until(pt.all(nv > 0.9))

    ys, upd = _scan(step, outputs_info=[x], n_steps=20)
    vals = [rng.uniform(-1.0, 0.0, 3)]
    ref = pytensor.function([x], ys, mode="FAST_COMPILE")(*vals)
    fn = pytensor.function([x], ys, updates=upd, mode="HLOGRAPH")
    got = fn(*vals)
    assert not fallbacks_of(fn)
    assert got.shape == ref.shape and 1 < got.shape[0] < 20
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert int(counter.get_value()) == got.shape[0]


def _loop(until: bool):
    x0, c = ps.float64("x0"), ps.float64("c")
    nxt = x0 * c + 1.0
    if until:
        return ScalarLoop(init=[x0], update=[nxt], constant=[c], until=nxt > 100.0)
    return ScalarLoop(init=[x0], update=[nxt], constant=[c])


def test_scalar_loop_elementwise():
    n = pt.lvector("n")
    x0 = pt.dvector("x0")
    c = pt.dscalar("c")
    out = Elemwise(_loop(False))(n, x0, c)
    compare_hlograph_and_py([n, x0, c], out, [np.array([0, 1, 3, 6]), np.array([1.0, 2.0, -1.0, 0.5]), 2.0])


def test_scalar_loop_with_a_condition():
    n = pt.lvector("n")
    x0 = pt.dvector("x0")
    c = pt.dscalar("c")
    out, done = Elemwise(_loop(True))(n, x0, c)
    compare_hlograph_and_py([n, x0, c], [out, done],
                            [np.array([0, 2, 50, 50]), np.array([1.0, 1.0, 1.0, 200.0]), 3.0])


def test_random_walk_drawing_from_a_shared_generator():
    rng = pytensor.shared(np.random.default_rng(0))

    def step(x, rng):
        e = pt.random.normal(0.0, 1.0, rng=rng)
        nxt = e.owner.outputs[0]
        return x + e, {rng: nxt}

    xs, updates = _scan(step, outputs_info=[pt.zeros(())], non_sequences=[rng], n_steps=2000)
    fn = pytensor.function([], xs, updates=updates, mode="HLOGRAPH")
    before = rng.get_value()
    a, b = fn(), fn()
    assert not fallbacks_of(fn)
    assert a.shape == (2000,) and not np.allclose(a, b)
    steps = np.diff(a, prepend=0.0)
    assert abs(steps.mean()) < 0.08 and abs(steps.std() - 1.0) < 0.05
    assert isinstance(rng.get_value(), np.random.Generator) and rng.get_value() is not before
