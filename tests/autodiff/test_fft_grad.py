"""Gradients of the Fourier transforms (hg.fft) against jax (jnp.fft) and finite
differences: reverse and forward mode through every transform Op, with cropping and
padding, moved axes, odd and even lengths of the real inverse, all three norms, real and
complex inputs; second derivatives through Parseval's identity."""

import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.tests.autodiff.helpers import check_grads, random_like

CASES = [
    # (name, kwargs, input shape, real input)
    ("fft", dict(), (3, 6), False),
    ("fft", dict(n=4, axis=0, norm="ortho"), (3, 6), True),
    ("fft", dict(n=9, norm="forward"), (2, 6), False),
    ("ifft", dict(n=8, axis=-2), (5, 3), False),
    ("ifft", dict(n=3, norm="ortho"), (2, 5), True),
    ("rfft", dict(), (3, 8), True),
    ("rfft", dict(n=5, axis=0, norm="forward"), (7, 2), True),
    ("rfft", dict(n=12, norm="ortho"), (2, 7), True),
    ("irfft", dict(), (2, 5), False),
    ("irfft", dict(n=7, norm="ortho"), (2, 5), False),
    ("irfft", dict(n=4, axis=0, norm="forward"), (6, 3), False),
    ("irfft", dict(n=1), (2, 3), False),
    ("hfft", dict(n=6), (2, 5), False),
    ("hfft", dict(n=9, norm="ortho"), (4,), True),
    ("ihfft", dict(n=7, norm="forward"), (3, 6), True),
    ("fft2", dict(s=(4, 5), norm="ortho"), (3, 3, 4), False),
    ("ifftn", dict(axes=(0, 2)), (2, 3, 4), False),
    ("fftn", dict(), (2, 2, 3, 2), False),  # four axes: two transform Ops
    ("rfftn", dict(s=(3, 6)), (2, 4, 5), True),
    ("rfft2", dict(axes=(-1, 0), norm="forward"), (4, 3, 5), True),
    ("irfftn", dict(s=(3, 5)), (2, 4, 3), False),
    ("irfft2", dict(axes=(2, 0), norm="ortho"), (5, 2, 3), False),
    ("irfftn", dict(), (2, 2, 3, 3), False),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}{c[1]}{c[2]}" for c in CASES])
def test_transform(case):
    name, kw, shape, real = case
    rng = np.random.default_rng(0)
    x = random_like(rng, shape, "float64" if real else "complex128")
    check_grads(lambda v: getattr(hg.fft, name)(v, **kw), lambda v: getattr(jnp.fft, name)(v, **kw), [x],
                rng=rng)


def test_single_precision():
    rng = np.random.default_rng(1)
    for name, dtype in (("rfft", "float32"), ("irfft", "complex64"), ("fft", "complex64")):
        check_grads(lambda v: getattr(hg.fft, name)(v, n=6), lambda v: getattr(jnp.fft, name)(v, n=6),
                    [random_like(rng, (2, 5), dtype)], rng=rng, fd=False)


def test_second_derivatives_parseval():
    # sum |fft(x)|^2 = n * sum x^2: gradient 2 n x, Hessian 2 n I
    x = hg.tensor("x", (6,), "float64")
    cost = hg.sum(hg.square(hg.abs(hg.fft.fft(x))))
    g, h = hg.grad(cost, x), hg.hessian(cost, x)
    v = np.random.default_rng(2).normal(size=6)
    for out in (hg.compile(hg.Graph([x], [g, h]))(v), hg.evaluate(hg.Graph([x], [g, h]), v)):
        np.testing.assert_allclose(out[0], 12 * v, rtol=1e-10)
        np.testing.assert_allclose(out[1], 12 * np.eye(6), rtol=1e-10, atol=1e-10)
    # the real transforms too: irfft(rfft(x)) is x, so its gradient is the cotangent
    y = hg.fft.irfft(hg.fft.rfft(x, norm="ortho"), n=6, norm="ortho")
    ct = np.arange(6.0)
    grad = hg.grad(hg.sum(y * ct), x)
    np.testing.assert_allclose(hg.compile(hg.Graph([x], grad))(v), ct, rtol=1e-10, atol=1e-12)
