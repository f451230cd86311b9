"""PyTensor's in-place rewrites in the HLOGRAPH mode (``mode.including("inplace")``):
an Op that may overwrite an input marked ``In(x, mutable=True)`` overwrites the
argument's array as PyTensor's NUMBA mode does: with what LAPACK leaves there, and only
in the layouts LAPACK writes into (Fortran order; C order too where it works on the
transpose); strided and read-only arrays are never written; results match the Python
mode in every layout."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

pytest.importorskip("pytensor")

import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
import pytensor.scalar as ps  # noqa: E402
from pytensor import In  # noqa: E402
from pytensor.compile.mode import Mode, get_mode  # noqa: E402
from pytensor.tensor.elemwise import Elemwise  # noqa: E402

import hlograph.interop.pytensor as hgpt  # noqa: E402

INPLACE = get_mode("HLOGRAPH").including("inplace")


def _layouts(val):
    """The argument in Fortran order, C order and as a strided view."""
    return {"F": np.copy(val, order="F"), "C": np.copy(val, order="C"),
            "strided": np.repeat(val, 2, axis=0)[::2]}


def _spd(rng, n, dtype):
    x = rng.normal(size=(n, n))
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=(n, n))
    return (np.eye(n) * n + x @ x.conj().T).astype(dtype)


def _destroyed(fn):
    return [n.op.destroy_map for n in fn.maker.fgraph.apply_nodes if n.op.destroy_map]


def test_inplace_rewrites_are_off_by_default_and_including_turns_them_on():
    x = pt.dmatrix("x")
    out = pt.linalg.cholesky(x)
    plain = pytensor.function([In(x, mutable=True)], out, mode="HLOGRAPH")
    assert _destroyed(plain) == []
    on = pytensor.function([In(x, mutable=True)], out, mode=INPLACE)
    assert _destroyed(on) == [{0: [0]}]
    # the query keeps "inplace" on through further including/excluding, off when excluded again
    chained = get_mode("HLOGRAPH").including("inplace").excluding("fusion").including("random_make_inplace")
    assert _destroyed(pytensor.function([In(x, mutable=True)], out, mode=chained)) == [{0: [0]}]
    off = get_mode("HLOGRAPH").including("inplace").excluding("inplace")
    assert _destroyed(pytensor.function([In(x, mutable=True)], out, mode=off)) == []
    # a mode built around the linker with a query that has them (as PyTensor's own test
    # helpers build their NUMBA modes) runs them too
    rebuilt = Mode(hgpt.HlographLinker(), get_mode("FAST_RUN").provided_optimizer)
    assert _destroyed(pytensor.function([In(x, mutable=True)], out, mode=rebuilt)) == [{0: [0]}]
    # an input not marked mutable is never destroyed
    assert _destroyed(pytensor.function([x], out, mode=INPLACE)) == []


# (name, build(inputs) -> output, input values, index of the mutable input,
#  layouts overwritten, what the input holds afterwards (reference) or None)
def _cases(rng):
    a = rng.normal(size=(5, 5))
    spd = _spd(rng, 5, "float64")
    b_mat, b_vec = rng.normal(size=(5, 3)), rng.normal(size=5)
    tri = np.linalg.cholesky(spd)
    return [
        ("cholesky", lambda A: pt.linalg.cholesky(A, lower=True), [spd], 0, {"F", "C"},
         lambda A: np.linalg.cholesky(A)),
        ("solve_b", lambda A, b: pt.linalg.solve(A, b, b_ndim=2), [a, b_mat], 1, {"F"},
         lambda A, b: np.linalg.solve(A, b)),
        ("solve_b_vector", lambda A, b: pt.linalg.solve(A, b, b_ndim=1), [a, b_vec], 1, {"F", "C"},
         lambda A, b: np.linalg.solve(A, b)),
        ("solve_a", lambda A, b: pt.linalg.solve(A, b, b_ndim=2), [a, b_mat], 0, {"F", "C"},
         lambda A, b: scipy.linalg.lu_factor(A)[0]),
        ("solve_a_pos", lambda A, b: pt.linalg.solve(A, b, assume_a="pos", b_ndim=2), [spd, b_mat], 0, {"F", "C"},
         None),
        ("solve_triangular_b", lambda A, b: pt.linalg.solve_triangular(A, b, lower=True, b_ndim=2), [tri, b_mat],
         1, {"F"}, lambda A, b: scipy.linalg.solve_triangular(A, b, lower=True)),
        ("cho_solve_b", lambda A, b: pt.linalg.cho_solve((A, True), b, b_ndim=2), [tri, b_mat], 1, {"F"},
         lambda A, b: scipy.linalg.cho_solve((A, True), b)),
        ("lu_factor", lambda A: pt.linalg.lu_factor(A)[0], [a], 0, {"F"},
         lambda A: scipy.linalg.lu_factor(A)[0]),
        ("lu", lambda A: pt.linalg.lu(A)[1], [a], 0, {"F"}, lambda A: scipy.linalg.lu(A)[1]),
        ("eigh", lambda A: pt.linalg.eigh(A)[0], [spd], 0, {"F", "C"}, None),
        ("qr", lambda A: pt.linalg.qr(A, mode="r"), [a], 0, {"F"}, None),
        ("expm", lambda A: pt.linalg.expm(A), [a / 5], 0, {"F", "C"}, lambda A: scipy.linalg.expm(A)),
    ]


@pytest.mark.parametrize("case", range(12))
def test_linalg_ops_overwrite_their_inputs_as_lapack_does(case, rng):
    name, build, vals, k, layouts, holds = _cases(rng)[case]
    syms = [pt.tensor(f"x{i}", shape=(None,) * v.ndim, dtype=v.dtype) for i, v in enumerate(vals)]
    out = build(*syms)
    ins = [In(s, mutable=(i == k)) for i, s in enumerate(syms)]
    fn = pytensor.function(ins, out, mode=INPLACE)
    assert _destroyed(fn), f"{name}: the in-place rewrite did not apply"
    want = pytensor.function(syms, out, mode="FAST_COMPILE")(*vals)
    for layout, arg in _layouts(vals[k]).items():
        args = [v.copy() for v in vals]
        args[k] = arg
        got = fn(*args)
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10, err_msg=f"{name} {layout}")
        written = not np.array_equal(arg, vals[k])
        assert written == (layout in layouts), f"{name}: {layout} argument {'' if written else 'not '}written"
        if written and holds is not None:
            np.testing.assert_allclose(arg, holds(*vals), rtol=1e-8, atol=1e-10, err_msg=name)


def test_read_only_and_list_arguments_are_never_written(rng):
    x = pt.dmatrix("x")
    fn = pytensor.function([In(x, mutable=True)], pt.linalg.cholesky(x), mode=INPLACE)
    val = _spd(rng, 4, "float64")
    ro = val.copy(order="F")
    ro.flags.writeable = False
    np.testing.assert_allclose(fn(ro), np.linalg.cholesky(val))
    np.testing.assert_array_equal(ro, val)
    np.testing.assert_allclose(fn(val.tolist()), np.linalg.cholesky(val))


def test_complex_hermitian_solve_overwrites_fortran_order_only(rng):
    a = _spd(rng, 4, "complex128")
    b = rng.normal(size=(4, 2)) + 1j * rng.normal(size=(4, 2))
    A, B = pt.zmatrix("A"), pt.zmatrix("B")
    fn = pytensor.function([In(A, mutable=True), B], pt.linalg.solve(A, B, assume_a="her", b_ndim=2), mode=INPLACE)
    for layout, arg in _layouts(a).items():
        np.testing.assert_allclose(fn(arg, b), np.linalg.solve(a, b))
        assert (not np.array_equal(arg, a)) == (layout == "F"), layout


def test_chain_of_inplace_ops_on_an_input_leaves_the_last_result():
    """An in-place Op on the result of an in-place Op on an input writes the same buffer:
    the argument holds the last result, as with PyTensor's Python linker."""
    x = pt.dvector("x")
    y = Elemwise(ps.exp, inplace_pattern={0: 0})(x)
    z = Elemwise(ps.add, inplace_pattern={0: 0})(y, pt.constant(1.0))
    results = []
    for mode in ("HLOGRAPH", Mode(linker="py", optimizer=None)):
        fn = pytensor.function([In(x, mutable=True)], z * 2, mode=mode, accept_inplace=True)
        xv = np.array([0.0, 1.0, 2.0])
        results.append((fn(xv), xv))
    (got, x_got), (want, x_want) = results
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(x_got, x_want)
    np.testing.assert_allclose(x_got, np.exp([0.0, 1.0, 2.0]) + 1)


def test_inplace_elemwise_on_a_mutable_input(rng):
    """The rewrites make the use of a mutable input in place, and the Op after it in
    place on that result: the argument holds the last result, in any layout (an
    element-wise Op writes any array), and is the output."""
    x = pt.dmatrix("x")
    fn = pytensor.function([In(x, mutable=True)], pt.exp(x) * 2, mode=INPLACE)
    assert any(d == {0: [0]} and n.inputs[0] is fn.maker.fgraph.inputs[0]
               for n in fn.maker.fgraph.apply_nodes for d in [n.op.destroy_map])
    val = rng.normal(size=(3, 4))
    for layout, arg in _layouts(val).items():
        out = fn(arg)
        np.testing.assert_allclose(out, np.exp(val) * 2)
        np.testing.assert_allclose(arg, np.exp(val) * 2, err_msg=layout)
        assert out is arg
