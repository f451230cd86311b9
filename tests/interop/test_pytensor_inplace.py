"""In-place semantics in the HLOGRAPH mode: Ops with a ``destroy_map`` (written by
the user, or run by their perform), ``mutable`` and ``borrow`` inputs and outputs,
and ``updates`` of shared variables give what PyTensor's default mode gives: only an
in-place Op the graph holds on an input overwrites the argument (as in the default
mode), never a rewrite or an Op run by its perform; the per-shape conversion cache is
bounded."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pytensor")

import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from pytensor import In, Out  # noqa: E402
import pytensor.scalar as ps  # noqa: E402
from pytensor.tensor.elemwise import Elemwise  # noqa: E402

import hlograph.interop.pytensor as hgpt  # noqa: E402
from hlograph.interop.pytensor import linker as hg_linker  # noqa: E402


def _inplace(scalar_op):
    """The Elemwise of ``scalar_op`` that writes its result into its first input."""
    return Elemwise(scalar_op, inplace_pattern={0: 0})


def _both(inputs, outputs, **kw):
    """The function compiled with the HLOGRAPH mode and with PyTensor's default mode
    (``accept_inplace``: the graph holds in-place Ops as written)."""
    return (pytensor.function(inputs, outputs, mode="HLOGRAPH", accept_inplace=True, **kw),
            pytensor.function(inputs, outputs, accept_inplace=True, **kw))


def test_inplace_elemwise_on_an_intermediate():
    x = pt.dvector("x")
    y = _inplace(ps.exp)(x * 2.0)
    z = _inplace(ps.add)(y, x)
    f, ref = _both([x], [y, z])
    xv = np.array([0.0, 1.0, -1.0])
    keep = xv.copy()
    got, want = f(xv), ref(xv)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)
    np.testing.assert_array_equal(xv, keep)


def test_inplace_inc_and_set_subtensor():
    x, v = pt.dvector("x"), pt.dvector("v")
    base = x * 1.0
    inc = pt.inc_subtensor(base[1:3], v, inplace=True)
    st = pt.set_subtensor(x[::2], 0.0)  # of an input: never in place
    f, ref = _both([x, v], [inc, st, x + 0])
    xv, vv = np.arange(5.0), np.array([10.0, 20.0])
    keep = xv.copy()
    for g, w in zip(f(xv, vv), ref(xv, vv)):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(xv, keep)


def test_inplace_op_on_an_input_overwrites_it_as_the_default_mode_does():
    """An in-place Op the graph holds on an input (``mutable``, or any input under
    ``accept_inplace``) writes its result into the argument's array, as PyTensor's other
    linkers do; the results and the argument afterwards are the default mode's."""
    x = pt.dvector("x")
    out = _inplace(ps.sqr)(x)  # destroys x
    for inp in (In(x, mutable=True), x):
        f, ref = _both([inp], out)
        xv, rv = np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0])
        np.testing.assert_array_equal(f(xv), ref(rv))
        np.testing.assert_array_equal(xv, rv)
        np.testing.assert_array_equal(xv, [1.0, 4.0, 9.0])


def test_inplace_result_on_an_input_is_the_argument_array():
    """The output of an in-place Op on an input is the argument's array itself (its
    buffer, overwritten), as in PyTensor's default and Numba modes; also for an Elemwise
    of a two-output Composite writing into both its inputs."""
    x, y = pt.dvector("x"), pt.dvector("y")
    f, ref = _both([x], _inplace(ps.sqr)(x))
    xv, rv = np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0])
    assert f(xv) is xv and ref(rv) is rv
    np.testing.assert_array_equal(xv, rv)
    xs, ys = ps.float64("xs"), ps.float64("ys")
    both = Elemwise(ps.Composite([xs, ys], [xs + 1, ys * 2]), inplace_pattern={0: 0, 1: 1})(x, y)
    f = pytensor.function([x, y], both, mode="HLOGRAPH", accept_inplace=True)
    xv, yv = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    o1, o2 = f(xv, yv)
    assert o1 is xv and o2 is yv
    np.testing.assert_array_equal(xv, [2.0, 3.0])
    np.testing.assert_array_equal(yv, [6.0, 8.0])
    # an argument that cannot be written into (read-only): a new array, the argument kept
    ro = np.array([1.0, 2.0])
    ro.flags.writeable = False
    f = pytensor.function([x], _inplace(ps.sqr)(x), mode="HLOGRAPH", accept_inplace=True)
    out = f(ro)
    assert out is not ro
    np.testing.assert_array_equal(out, [1.0, 4.0])
    np.testing.assert_array_equal(ro, [1.0, 2.0])


@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_inplace_subtensor_on_an_input_overwrites_it(dtype, rng):
    """``set_subtensor``/``inc_subtensor(..., inplace=True)`` of an input, as a result or
    only as an intermediate; a Python list argument (no array to write into) and an
    in-place Op on an intermediate leave the arguments alone."""
    x, y = pt.vector("x", dtype=dtype), pt.scalar("y", dtype=dtype)
    i = pt.lvector("i")
    cases = [
        ([x, y], pt.set_subtensor(x[1:3], y, inplace=True)),
        ([x, y], pt.inc_subtensor(x[-2:], y, inplace=True).sum()),  # intermediate only
        ([x, y, i], pt.inc_subtensor(x[i], y, inplace=True)),  # duplicate indices
        ([x, y], pt.inc_subtensor((x * 2)[:2], y, inplace=True)),  # not on an input
    ]
    for inputs, out in cases:
        f, ref = _both(inputs, out)
        xv = rng.integers(-5, 5, size=5).astype(dtype)
        args = [np.array(7, dtype=dtype), np.array([0, 0, 4])][: len(inputs) - 1]
        x_hg, x_ref = xv.copy(), xv.copy()
        np.testing.assert_array_equal(f(x_hg, *args), ref(x_ref, *args))
        np.testing.assert_array_equal(x_hg, x_ref)
    f, ref = _both([x, y], pt.set_subtensor(x[0], y, inplace=True))
    as_list = [1, 2, 3]
    np.testing.assert_array_equal(f(as_list, 9), ref([1, 2, 3], 9))
    assert as_list == [1, 2, 3]


def test_destroying_op_run_by_its_perform_does_not_touch_its_input():
    # the fallback runs a PyTensor perform that writes its input: it gets a copy
    x = pt.dvector("x")
    y = pt.inc_subtensor(x[pt.lvector("i")], 1.0, inplace=False)
    node_y = _inplace(ps.neg)(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hgpt.FallbackWarning)
        f, ref = _both([x, y.owner.inputs[-1]], node_y)
        xv, iv = np.arange(4.0), np.array([0, 0, 3])
        keep = xv.copy()
        np.testing.assert_array_equal(f(xv, iv), ref(xv, iv))
    np.testing.assert_array_equal(xv, keep)


@pytest.mark.parametrize("borrow", [False, True])
def test_borrowed_inputs_and_outputs(borrow):
    x = pt.dvector("x")
    f, ref = _both([In(x, borrow=borrow)], [Out(x, borrow=borrow), Out(x * 2, borrow=borrow)])
    xv = np.arange(3.0)
    a, b = f(xv)
    np.testing.assert_array_equal(a, xv)
    np.testing.assert_array_equal(b, xv * 2)
    a[:] = -1.0  # a result is the caller's: writing it leaves the argument alone
    np.testing.assert_array_equal(xv, np.arange(3.0))
    a2, b2 = f(xv + 1)
    np.testing.assert_array_equal(b, xv * 2)  # an earlier result is not overwritten
    np.testing.assert_array_equal(b2, (xv + 1) * 2)


@pytest.mark.parametrize("borrow", [False, True])
def test_updates_of_shared_variables_match_the_default_mode(borrow):
    init = np.zeros(3)
    results = []
    for mode in ("HLOGRAPH", None):
        s = pytensor.shared(init.copy(), borrow=borrow, name="s")
        n = pytensor.shared(np.int64(0), name="n")
        x = pt.dvector("x")
        f = pytensor.function([x], [s * 1.0, n], updates={s: s + x, n: n + 1}, mode=mode)
        out = [f(np.ones(3)) for _ in range(3)]
        seen = s.get_value(borrow=False)
        seen[:] = 99.0  # a copy: the shared value is unchanged
        results.append((out, s.get_value(), n.get_value()))
    (got, s_got, n_got), (want, s_want, n_want) = results
    for (a, b), (c, d) in zip(got, want):
        np.testing.assert_array_equal(a, c)
        assert b == d
    np.testing.assert_array_equal(s_got, s_want)
    np.testing.assert_array_equal(s_got, [3.0, 3.0, 3.0])
    assert n_got == n_want == 3


def test_shared_value_as_output_is_a_copy():
    s = pytensor.shared(np.arange(4.0), name="s")
    f = pytensor.function([], s, mode="HLOGRAPH")
    out = f()
    out[:] = 0.0
    np.testing.assert_array_equal(s.get_value(), np.arange(4.0))
    np.testing.assert_array_equal(f(), np.arange(4.0))


def test_user_array_passed_to_shared_with_borrow_is_not_overwritten_by_updates():
    arr = np.arange(3.0)
    s = pytensor.shared(arr, borrow=True)
    f = pytensor.function([], [], updates={s: s * 2}, mode="HLOGRAPH")
    f()
    f()
    np.testing.assert_array_equal(s.get_value(), np.arange(3.0) * 4)
    np.testing.assert_array_equal(arr, np.arange(3.0))


def test_per_shape_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(hg_linker, "SHAPE_CACHE_SIZE", 3)
    x = pt.dvector("x")
    f = pytensor.function([x], x.reshape((x.shape[0], -1))[:, 0], mode="HLOGRAPH")
    cg = hgpt.compiled_graph(f)
    assert cg.specialized
    for n in range(1, 6):
        np.testing.assert_array_equal(f(np.arange(float(n))), np.arange(float(n)))
    assert len(cg.conversions()) == 3
    # the least recently used went first; an evicted shape converts again
    assert set(cg._by_shapes) == {((3,),), ((4,),), ((5,),)}
    np.testing.assert_array_equal(f(np.arange(1.0)), [0.0])
    assert set(cg._by_shapes) == {((4,),), ((5,),), ((1,),)}
