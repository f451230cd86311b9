"""jax's ``dynamic_slice`` and ``dynamic_update_slice`` import as hlograph's DynamicSlice
and DynamicUpdateSlice (no gather or scatter), give what jax.jit gives for starts in
range, negative and past the end, and differentiate as jax.grad does."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import hlograph as hg
from hlograph.frontend.ops.indexing import (AdvancedIncSubtensor, AdvancedSubtensor, DynamicSlice,
                                            DynamicUpdateSlice)
from hlograph.interop.jax import from_jax
from hlograph.tests.helpers import assert_same

#: index values: in range, negative (jax wraps them once, then the op clamps), past the end
INDICES = [0, 1, 3, -1, -4, -9, 7, 2**31 - 1, -2**31]


def _ops(g):
    return {type(n.op) for n in g.nodes}


def _check_values(f, args, index_pos, indices=INDICES):
    """Imports ``f`` once and compares the compiled graph and its perform with jax.jit(f)
    for each value of the index argument at ``index_pos``."""
    g = from_jax(f, *args)
    assert not g.report.fallbacks, str(g.report)
    fn, jitted = hg.compile(g), jax.jit(f)
    for i in indices:
        values = list(args)
        values[index_pos] = np.asarray(i, args[index_pos].dtype)
        expected = jax.tree_util.tree_leaves(jitted(*values))
        for got in (fn(*values), hg.evaluate(g, *values)):
            got = got if isinstance(got, tuple) else (got,)
            assert len(got) == len(expected)
            for k, (a, e) in enumerate(zip(got, expected)):
                assert_same(a, np.asarray(e), what=f"result {k} at index {i}")
    return g


def test_dynamic_slice(rng):
    x = rng.normal(size=(4, 5)).astype(np.float32)
    f = lambda x, i: (lax.dynamic_slice(x, (i, 1), (2, 3)), lax.dynamic_slice(x, (2, i), (1, 4)))
    g = _check_values(f, [x, np.int32(0)], 1)
    assert DynamicSlice in _ops(g) and AdvancedSubtensor not in _ops(g)


def test_dynamic_update_slice(rng):
    x = rng.normal(size=(4, 5)).astype(np.float32)
    u = rng.normal(size=(2, 3)).astype(np.float32)
    f = lambda x, u, i: lax.dynamic_update_slice(x, u, (i, i))
    g = _check_values(f, [x, u, np.int32(0)], 2)
    assert DynamicUpdateSlice in _ops(g) and AdvancedIncSubtensor not in _ops(g)


def test_int64_indices_and_dtypes(rng):
    with jax.enable_x64(True):
        x = rng.integers(-9, 9, size=(3, 4, 2)).astype(np.int64)
        u = rng.integers(-9, 9, size=(1, 2, 2)).astype(np.int64)
        f = lambda x, u, i: (lax.dynamic_slice(x, (i, i, 0), (2, 3, 1)),
                             lax.dynamic_update_slice(x, u, (1, i, 0)))
        g = _check_values(f, [x, u, np.int64(0)], 2, INDICES + [2**40, -2**40])
    assert {DynamicSlice, DynamicUpdateSlice} <= _ops(g)


def test_indexing_at_a_traced_index(rng):
    # x[i] with a traced i is a dynamic_slice, lax's row update a dynamic_update_slice
    x = rng.normal(size=(5, 3)).astype(np.float32)
    v = rng.normal(size=(3,)).astype(np.float32)
    f = lambda x, v, i: (x[i], x[i, 1:], lax.dynamic_update_index_in_dim(x, v, i, 0))
    g = _check_values(f, [x, v, np.int32(0)], 2, [0, 2, 4, -1, -5, -6, 5, 9])
    assert {DynamicSlice, DynamicUpdateSlice} <= _ops(g)
    # x.at[i].set(v) is a scatter in jax (dropping out-of-range rows), imported as one,
    # next to the dynamic slices of x[i]
    f = lambda x, v, i: (x.at[i].set(v), x.at[i].set(x[i] * 2.0))
    g = _check_values(f, [x, v, np.int32(0)], 2, [0, 3, 4, -1, -5])
    assert {DynamicSlice, AdvancedIncSubtensor} <= _ops(g)


def test_0d_operand_and_empty_windows(rng):
    x = rng.normal(size=(3, 0, 2)).astype(np.float32)
    s = np.float32(2.5)
    f = lambda x, s, i: (lax.dynamic_slice(x, (i, 0, i), (2, 0, 1)),
                         lax.dynamic_update_slice(x, jnp.zeros((1, 0, 2), x.dtype), (i, i, i)),
                         lax.dynamic_slice(s, (), ()), lax.dynamic_update_slice(s, s * 2, ()))
    _check_values(f, [x, s, np.int32(0)], 2, [0, 1, -1, 5])


@pytest.mark.parametrize("i", [1, -2, 6, -7])
def test_grad_through_an_imported_function(i, rng):
    x = rng.normal(size=(4, 5))
    u = rng.normal(size=(2, 2))

    def f(x, u, i):
        y = lax.dynamic_update_slice(jnp.sin(x), u * 3.0, (i, 2))
        return jnp.sum(lax.dynamic_slice(y, (1, i), (3, 2)) ** 2) + jnp.sum(x[i] * y[i])

    with jax.enable_x64(True):
        g = from_jax(f, x, u, np.int64(0))
        gx, gu = hg.grad(g.outputs[0], g.inputs[:2])
        gg = hg.Graph(g.inputs, [gx, gu])
        ops = _ops(gg)
        assert {DynamicSlice, DynamicUpdateSlice} <= ops
        assert AdvancedSubtensor not in ops and AdvancedIncSubtensor not in ops
        expected = jax.grad(f, argnums=(0, 1))(x, u, np.int64(i))
    for got in (hg.compile(gg)(x, u, np.int64(i)), hg.evaluate(gg, x, u, np.int64(i))):
        for a, e in zip(got, expected):
            np.testing.assert_allclose(a, np.asarray(e), rtol=1e-12, atol=1e-12)
