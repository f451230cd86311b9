"""Construction, shapes and indexing (``pytensor.tensor.basic``, ``shape``,
``subtensor``) through the HLOGRAPH mode against PyTensor's Python implementation."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pytensor")

import pytensor.tensor as pt  # noqa: E402

import hlograph.interop.pytensor as hgpt  # noqa: E402
from hlograph.tests.interop.pytensor_helpers import compare_hlograph_and_py  # noqa: E402


def test_alloc_make_vector_join_split(rng):
    m, x = pt.matrix("m"), pt.vector("x")
    i = pt.vector("i", dtype="int32")
    outs = [pt.zeros((m.shape[0], 3)), pt.ones_like(m), pt.alloc(x[0], m.shape[0], 2), pt.fill(m, 3.0),
            pt.empty((2, m.shape[1])).shape, pt.stack([x[0], x[1], m[0, 0]]),
            pt.as_tensor([m.shape[0], m.shape[1], i[0]]), pt.concatenate([m, m], axis=0),
            pt.stack([x, x], axis=1), pt.join(1, m, m), pt.concatenate([i, x[:2]]),
            *pt.split(x, [2, 3], n_splits=2, axis=0), *pt.split(m, [1, 2, 1], n_splits=3, axis=0)]
    fn, _ = compare_hlograph_and_py([m, x, i], outs, [rng.normal(size=(4, 3)), rng.normal(size=5),
                                                      np.arange(3, dtype=np.int32)])
    # Alloc's shape comes from the arguments: converted per argument shapes
    assert hgpt.compiled_graph(fn).specialized


def test_eye_arange_extract_diag(rng):
    m = pt.matrix("m")
    outs = [pt.eye(m.shape[0]), pt.eye(3, 4, k=1, dtype="int32"), pt.arange(m.shape[1]),
            pt.arange(2.5, 10, 1.5), pt.arange(10, 2, -3, dtype="int16"), pt.diagonal(m),
            pt.diagonal(m, offset=1), pt.linalg.trace(m) if hasattr(pt.linalg, "trace") else pt.diagonal(m).sum()]
    compare_hlograph_and_py([m], outs, [rng.normal(size=(3, 4))])


def test_shapes_reshape_dimshuffle(rng):
    m, t = pt.matrix("m"), pt.tensor3("t")
    outs = [m.shape, m.shape[0] * 2, m.reshape((3, 4)), m.reshape((m.shape[1], -1)), m.flatten(),
            m.T, m.dimshuffle(1, "x", 0), m[None], t.reshape((t.shape[0], -1)), t.dimshuffle(2, 0, 1),
            pt.specify_shape(m, (4, None)), pt.shape_padright(m, 2), pt.squeeze(pt.shape_padleft(m)),
            t.transpose(1, 2, 0).sum(axis=0)]
    compare_hlograph_and_py([m, t], outs, [rng.normal(size=(4, 3)), rng.normal(size=(2, 3, 2))])


def test_basic_indexing(rng):
    m, x = pt.matrix("m"), pt.vector("x")
    n = pt.scalar("n", dtype="int64")
    outs = [m[1], m[1:, ::2], m[-1, -2], x[::-1], x[-3:], x[n], m[n, 1:], m[:, n], m[1:3][::-1, 0],
            x[n - 5], m[..., 1], x[:100], x[4:1]]
    compare_hlograph_and_py([m, x, n], outs, [rng.normal(size=(4, 3)), rng.normal(size=5), 2])


def test_advanced_indexing(rng):
    m, x = pt.matrix("m"), pt.vector("x")
    idx = pt.vector("idx", dtype="int64")
    outs = [x[[0, 2, 2]], x[idx], m[idx], m[[0, 1], [2, 1]], m[idx, 1:], m[:, idx], m[idx[:, None], idx[:2]],
            x[-1 - idx]]
    compare_hlograph_and_py([m, x, idx], outs, [rng.normal(size=(4, 3)), rng.normal(size=5),
                                                np.array([1, 0, 2], dtype=np.int64)])


def test_set_and_inc_subtensor(rng):
    m, x = pt.matrix("m"), pt.vector("x")
    idx = pt.vector("idx", dtype="int64")
    n = pt.scalar("n", dtype="int64")
    outs = [pt.set_subtensor(x[1:3], 0.0), pt.inc_subtensor(x[::2], 1.0), pt.set_subtensor(m[:, 0], x[:4]),
            pt.inc_subtensor(x[[0, 0, 1]], 1.0), pt.set_subtensor(x[idx], -x[idx]),
            pt.inc_subtensor(m[idx, 1], 2.0), pt.set_subtensor(m[n], 7.0), pt.inc_subtensor(x[n], x[0]),
            pt.inc_subtensor(x[[0, 0, 1]], 1.0, ignore_duplicates=True),
            pt.set_subtensor(pt.zeros((3, 3), dtype="int32")[1, :], pt.arange(3, dtype="int32"))]
    compare_hlograph_and_py([m, x, idx, n], outs, [rng.normal(size=(4, 3)), rng.normal(size=5),
                                                   np.array([3, 1], dtype=np.int64), 1])


def test_boolean_masks(rng):
    """Boolean indexing has value-dependent shapes: hlograph's host ops (JAX rejects it);
    a set or increment by one value for every selected element is a select."""
    x, m = pt.vector("x"), pt.matrix("m")
    v = pt.vector("v", shape=(3,))
    outs = [x[x > 0], pt.set_subtensor(x[x > 0], 0.0), pt.inc_subtensor(x[x < 0], 1.0),
            pt.set_subtensor(m[m[:, 0] > 0], v), m[1:, :][m[1:, 0] > 0, 1:]]
    xv = rng.normal(size=7)
    compare_hlograph_and_py([x, m, v], outs, [xv, rng.normal(size=(5, 3)), rng.normal(size=3)])


def test_scalar_and_tensor_conversions(rng):
    x = pt.vector("x", dtype="int32")
    s = pt.scalar("s", dtype="int64")
    # a scalar-typed value inside the graph: ScalarFromTensor / TensorFromScalar and scalar Ops
    k = pt.scalar_from_tensor(s) * 2 + 1
    outs = [x[:k], pt.tensor_from_scalar(k) * x, x[s:], pt.arange(s + 1)]
    compare_hlograph_and_py([x, s], outs, [np.arange(6, dtype=np.int32), 2])


def test_alloc_runtime_broadcast_is_an_error(rng):
    """As PyTensor's Alloc: a dimension of the value not known to be 1 that is 1 at run
    time and broadcast to another length is an error (``ValueError``), not a broadcast."""
    x = pt.vector("x", shape=(None,))
    fn, _ = compare_hlograph_and_py([x], [pt.alloc(x, 5, 3)], [rng.normal(size=3)])
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        fn(np.zeros(1))
    # statically broadcastable (shape 1 in the type): broadcast, as in PyTensor
    compare_hlograph_and_py([x], [pt.alloc(pt.specify_shape(x, (1,)), 5, 3)], [np.ones(1)])
    m = pt.matrix("m", shape=(None, 3))
    compare_hlograph_and_py([m], [pt.alloc(m, 2, 4, 3)], [rng.normal(size=(4, 3))])
