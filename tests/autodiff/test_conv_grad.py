"""Gradients of ConvGeneralDilated (conv_general_dilated, conv_transpose, convolve) with
respect to the data and the kernel, against jax.lax.conv_general_dilated and finite
differences: strides, padding (negative too), lhs and rhs dilation, dimension numbers,
feature and batch groups, complex operands."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.tests.autodiff.helpers import check_grads

CASES = {
    # name: (lhs shape, rhs shape, keyword arguments)
    "2d-strided-dilated": ((2, 3, 5, 6), (4, 3, 2, 3),
                           dict(window_strides=(2, 1), padding=((1, 0), (2, 1)), lhs_dilation=(1, 2),
                                rhs_dilation=(2, 1))),
    "nhwc-feature-groups": ((2, 5, 4, 4), (3, 2, 2, 6),
                            dict(window_strides=(1, 2), padding="SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=2)),
    "depthwise": ((1, 3, 7), (6, 1, 3), dict(window_strides=(1,), padding=((2, 2),), rhs_dilation=(2,),
                                                feature_group_count=3)),
    "batch-groups": ((4, 3, 6), (4, 3, 3), dict(window_strides=(2,), padding=((1, 1),), batch_group_count=2)),
    "negative-padding": ((2, 2, 7), (3, 2, 2), dict(window_strides=(1,), padding=((-1, 2),), lhs_dilation=(2,))),
    "3d-specs": ((1, 4, 3, 2, 2), (2, 2, 2, 2, 1),
                 dict(window_strides=(2, 1, 1), padding=((0, 1), (1, 0), (0, 0)),
                      dimension_numbers=("NDHWC", "DHWIO", "NCDHW"))),
}


@pytest.mark.parametrize("name", list(CASES))
def test_conv_general_dilated(name, rng):
    ls, rs, kw = CASES[name]
    check_grads(lambda x, w: hg.conv_general_dilated(x, w, **kw),
                lambda x, w: jax.lax.conv_general_dilated(x, w, **kw),
                [rng.normal(size=ls), rng.normal(size=rs)], rng=rng)


def test_complex(rng):
    kw = dict(window_strides=(2,), padding=((1, 2),), rhs_dilation=(2,), feature_group_count=2)
    x = rng.normal(size=(2, 4, 7)) + 1j * rng.normal(size=(2, 4, 7))
    w = rng.normal(size=(4, 2, 2)) + 1j * rng.normal(size=(4, 2, 2))
    check_grads(lambda a, b: hg.conv_general_dilated(a, b, **kw),
                lambda a, b: jax.lax.conv_general_dilated(a, b, **kw), [x, w], rng=rng)


def test_float32(rng):
    kw = dict(window_strides=(1, 2), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    x = rng.normal(size=(2, 4, 5, 3)).astype(np.float32)
    w = rng.normal(size=(3, 2, 3, 2)).astype(np.float32)
    check_grads(lambda a, b: hg.conv_general_dilated(a, b, **kw),
                lambda a, b: jax.lax.conv_general_dilated(a, b, **kw), [x, w], rng=rng, fd=False)


def test_conv_transpose_and_convolve(rng):
    x, w = rng.normal(size=(1, 5, 2)), rng.normal(size=(3, 2, 3))
    check_grads(lambda a, b: hg.conv_transpose(a, b, strides=(2,), padding="SAME"),
                lambda a, b: jax.lax.conv_transpose(a, b, strides=(2,), padding="SAME"), [x, w], rng=rng)
    for mode in ("full", "same", "valid"):
        check_grads(lambda a, b: hg.convolve(a, b, mode), lambda a, b: jnp.convolve(a, b, mode),
                    [rng.normal(size=(6,)), rng.normal(size=(3,))], rng=rng)


def test_second_order(rng):
    # the cotangents are convolutions themselves, so they differentiate again
    x, w = hg.tensor("x", (1, 2, 5), "float64"), hg.tensor("w", (2, 2, 3), "float64")
    y = hg.conv_general_dilated(x, w, window_strides=(2,), padding=((1, 1),))
    gw = hg.grad(hg.sum(y ** 2), w)
    h = hg.grad(hg.sum(gw), x)
    xv, wv = rng.normal(size=(1, 2, 5)), rng.normal(size=(2, 2, 3))

    def ref(a, b):
        conv = lambda bb: jax.lax.conv_general_dilated(a, bb, (2,), ((1, 1),))  # noqa: E731
        return jnp.sum(jax.grad(lambda bb: jnp.sum(conv(bb) ** 2))(b))

    with jax.enable_x64(True):
        expected = jax.grad(ref)(xv, wv)
    np.testing.assert_allclose(hg.evaluate(hg.Graph([x, w], h), xv, wv), expected, rtol=1e-10)


@pytest.mark.parametrize("groups", [dict(batch_group_count=2), dict(feature_group_count=3)], ids=str)
def test_unknown_batch(groups, rng):
    # the rules need static feature and spatial dims and kernel; the batch may be unknown
    kw = dict(window_strides=(2,), padding=((1, 1),), **groups)
    rs = (6, 1, 3) if "feature_group_count" in groups else (4, 3, 3)
    x, w = hg.tensor("x", (None, 3, 6), "float64"), hg.tensor("w", rs, "float64")
    y = hg.conv_general_dilated(x, w, **kw)
    graph = hg.Graph([x, w], hg.grad(hg.sum(y * hg.sin(y)), [x, w]))
    xv, wv = rng.normal(size=(4, 3, 6)), rng.normal(size=rs)

    def cost(a, b):
        yy = jax.lax.conv_general_dilated(a, b, **kw)
        return jnp.sum(yy * jnp.sin(yy))

    with jax.enable_x64(True):
        expected = jax.grad(cost, (0, 1))(xv, wv)
    for got in (hg.evaluate(graph, xv, wv), hg.compile(graph)(xv, wv)):
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-10)
