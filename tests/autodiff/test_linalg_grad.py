"""Gradients of DotGeneral (matmul, dot, tensordot, einsum, outer) against jax and finite
differences: stacked and broadcast batch dims, vectors, complex operands."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.tests.autodiff.helpers import check_grads

MATMUL_SHAPES = [
    ((3, 4), (4, 2)),
    ((4,), (4, 2)),
    ((3, 4), (4,)),
    ((4,), (4,)),
    ((2, 3, 4), (4, 5)),         # a stack against one matrix
    ((2, 1, 3, 4), (5, 4, 2)),   # batch dims broadcast both ways
    ((1, 3, 4), (2, 4, 2)),
    ((0, 3, 4), (4, 2)),         # an empty stack
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=[f"{a}@{b}" for a, b in MATMUL_SHAPES])
def test_matmul(sa, sb, rng):
    check_grads(hg.matmul, jnp.matmul, [rng.normal(size=sa), rng.normal(size=sb)], rng=rng)


@pytest.mark.parametrize("spec,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bki", [(2, 2, 3), (2, 3, 4)]),
    ("ij,kj->ik", [(2, 3), (4, 3)]),
    ("i,i->", [(3,), (3,)]),
    ("ijk,jl->lik", [(2, 3, 4), (3, 2)]),
    ("ii->i", [(3, 3)]),
])
def test_einsum(spec, shapes, rng):
    args = [rng.normal(size=s) for s in shapes]
    check_grads(lambda *v: hg.einsum(spec, *v), lambda *v: jnp.einsum(spec, *v), args, rng=rng)


def test_dot_tensordot_outer(rng):
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 3, 2))
    check_grads(lambda x, y: hg.tensordot(x, y, axes=([1, 2], [1, 0])),
                lambda x, y: jnp.tensordot(x, y, axes=([1, 2], [1, 0])), [a, b], rng=rng)
    check_grads(hg.dot, jnp.dot, [rng.normal(size=(2, 3)), rng.normal(size=(4, 3, 5))], rng=rng)
    check_grads(hg.outer, jnp.outer, [rng.normal(size=(3,)), rng.normal(size=(2,))], rng=rng)
    check_grads(hg.dot, jnp.dot, [rng.normal(size=()), rng.normal(size=(3,))], rng=rng)


def test_complex_matmul(rng):
    a = rng.normal(size=(2, 3)) + 1j * rng.normal(size=(2, 3))
    b = rng.normal(size=(3, 2)) + 1j * rng.normal(size=(3, 2))
    check_grads(hg.matmul, jnp.matmul, [a, b], rng=rng)


def test_float32_mlp(rng):
    x = rng.normal(size=(4, 3)).astype(np.float32)
    w = rng.normal(size=(3, 5)).astype(np.float32)
    b = rng.normal(size=(5,)).astype(np.float32)
    check_grads(lambda x_, w_, b_: hg.log_softmax(hg.tanh(x_ @ w_ + b_), axis=-1),
                lambda x_, w_, b_: jax.nn.log_softmax(jnp.tanh(x_ @ w_ + b_), axis=-1),
                [x, w, b], rng=rng, fd=False)
