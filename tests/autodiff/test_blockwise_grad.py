"""Gradients of Blockwise: the core op's rules applied blockwise (core Ops with rules,
traced functions whose Composite core is differentiated through its graph, several
outputs), batch dims that broadcast summed back, second order, and the error of a core
op without rules; against jnp.vectorize and finite differences."""

import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph import Apply, Op
from hlograph.frontend.graph import NotDifferentiableError
from hlograph.frontend.ops import linalg as la
from hlograph.tests.autodiff.helpers import check_grads


def test_core_op_with_broadcast_batch(rng):
    solve = hg.blockwise(la.Solve(), "(n,n),(n,k)->(n,k)")
    a = rng.normal(size=(2, 1, 3, 3)) + 6 * np.eye(3)
    b = rng.normal(size=(4, 3, 2))
    check_grads(solve, jnp.vectorize(jnp.linalg.solve, signature="(n,n),(n,k)->(n,k)"), [a, b], rng=rng)


def test_traced_function(rng):
    def core(x, y):
        return hg.tanh(x @ y) * hg.sum(x)

    fn = hg.blockwise(core, "(m,n),(n,p)->(m,p)")
    ref = jnp.vectorize(lambda x, y: jnp.tanh(x @ y) * jnp.sum(x), signature="(m,n),(n,p)->(m,p)")
    check_grads(fn, ref, [rng.normal(size=(3, 2, 4)), rng.normal(size=(1, 4, 2))], rng=rng)


def test_several_outputs_complex(rng):
    eigh = hg.blockwise(la.Eigh(), "(n,n)->(n),(n,n)")

    def fn(x):
        w, v = eigh(x)
        p = v * hg.conj(v)  # |v|^2: the same in any phase gauge
        return hg.concatenate([hg.reshape(w.astype(p.dtype), (-1,)), hg.reshape(p, (-1,))], axis=0)

    def ref(x):  # eigh's derivatives see the Hermitian part, as jax's default
        w, v = jnp.linalg.eigh(x)
        p = v * jnp.conj(v)
        return jnp.concatenate([w.astype(p.dtype).reshape(-1), p.reshape(-1)])

    a = rng.normal(size=(2, 3, 3)) + 1j * rng.normal(size=(2, 3, 3))
    a = a @ np.conj(np.swapaxes(a, -1, -2)) + np.diag([0.0, 2.0, 5.0])
    check_grads(fn, ref, [a], rng=rng, tangent_map=lambda t: (t + np.conj(np.swapaxes(t, -1, -2))) / 2)


def test_second_order(rng):
    fn = hg.blockwise(lambda x: hg.sum(hg.sin(x) * x), "(n)->()")
    x = hg.tensor("x", (2, 3), "float64")
    h = hg.hessian(hg.sum(fn(x)), x)
    xv = rng.normal(size=(2, 3))
    # d2/dx2 of sin(x) x = 2 cos(x) - x sin(x), on the diagonal
    expected = np.diag((2 * np.cos(xv) - xv * np.sin(xv)).ravel()).reshape(2, 3, 2, 3)
    np.testing.assert_allclose(hg.evaluate(hg.Graph([x], h), xv), expected, rtol=1e-12, atol=1e-12)


class Halve(Op):
    """x / 2, with no gradient rules."""

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0] / 2]


def test_core_without_rule():
    x = hg.tensor("x", (2, 3), "float64")
    y = hg.blockwise(Halve(), "(n)->(n)")(x)
    with pytest.raises(NotDifferentiableError, match="Halve has no gradient rule"):
        hg.grad(hg.sum(y), x)
    with pytest.raises(NotDifferentiableError, match="Halve has no gradient rule"):
        hg.jvp(y, x, np.ones((2, 3)))
