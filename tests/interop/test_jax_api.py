"""from_jax's graph (inputs named and flattened in pytree order, output tree, x64
only for 64-bit specs) and the jit helper."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.interop.jax import ImportedGraph, from_jax, jit


def model(params, x, *, scale):
    h = jnp.tanh(x @ params["w"] + params["b"])
    return {"out": h * scale, "norms": [jnp.sum(h * h), jnp.max(h)]}


def specs():
    params = {"w": jax.ShapeDtypeStruct((3, 2), jnp.float32), "b": jax.ShapeDtypeStruct((2,), jnp.float32)}
    return params, jax.ShapeDtypeStruct((4, 3), jnp.float32)


def test_inputs_are_the_flattened_specs_named_by_parameter_and_path():
    params, x = specs()
    g = from_jax(model, params, x, scale=jax.ShapeDtypeStruct((), jnp.float32))
    assert isinstance(g, ImportedGraph) and isinstance(g, hg.Graph)
    assert [v.name for v in g.inputs] == ["params['b']", "params['w']", "x", "scale"]
    assert [str(t) for t in g.input_types] == ["float32[2]", "float32[3,2]", "float32[4,3]", "float32[]"]
    assert [str(t) for t in g.output_types] == ["float32[]", "float32[]", "float32[4,2]"]
    assert not g.single_output


def test_outputs_go_back_into_the_function_structure(rng):
    params = {"w": rng.normal(size=(3, 2)).astype(np.float32), "b": rng.normal(size=(2,)).astype(np.float32)}
    x = rng.normal(size=(4, 3)).astype(np.float32)
    g = from_jax(model, params, x, scale=np.float32(2))
    flat = jax.tree_util.tree_leaves(((params, x), {"scale": np.float32(2)}))
    out = g.unflatten(hg.compile(g)(*flat))
    expected = jax.jit(model)(params, x, scale=np.float32(2))
    assert jax.tree_util.tree_structure(out) == jax.tree_util.tree_structure(expected)
    for a, e in zip(jax.tree_util.tree_leaves(out), jax.tree_util.tree_leaves(expected)):
        np.testing.assert_allclose(a, e, rtol=2e-5, atol=1e-6)


def test_a_single_array_result_is_a_single_output():
    g = from_jax(jnp.sin, jax.ShapeDtypeStruct((3,), jnp.float32))
    assert g.single_output
    out = hg.compile(g)(np.zeros(3, np.float32))
    assert isinstance(out, np.ndarray) and out.shape == (3,)
    assert g.unflatten(out) is out


def test_float32_stays_float32_and_64_bit_specs_enable_x64():
    f = lambda x: x * 2.5 + jnp.arange(3)  # a Python float and jnp's default int
    g32 = from_jax(f, np.ones(3, np.float32))
    assert not g32.x64 and g32.output_types == [hg.TensorType("float32", (3,))]
    g64 = from_jax(f, np.ones(3, np.float64))
    assert g64.x64 and g64.output_types == [hg.TensorType("float64", (3,))]
    # jax's own setting is untouched
    assert not jax.config.jax_enable_x64


def test_jit_calls_with_pytrees_and_caches_per_signature(rng):
    jitted = jit(model)
    params = {"w": rng.normal(size=(3, 2)).astype(np.float32), "b": rng.normal(size=(2,)).astype(np.float32)}
    x = rng.normal(size=(4, 3)).astype(np.float32)
    out = jitted(params, x, scale=2.0)
    expected = jax.jit(model)(params, x, scale=2.0)
    np.testing.assert_allclose(out["out"], expected["out"], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(out["norms"][0], expected["norms"][0], rtol=2e-5)
    assert out["out"].dtype == np.float32
    g = jitted.graph_for(params, x, scale=2.0)
    assert jitted.graph_for(params, x + 1, scale=3.0) is g  # same shapes and dtypes: cached
    assert jitted.graph_for(params, x[:2], scale=3.0) is not g
    assert g.input_types[-1] == hg.TensorType("float32", ())  # a Python float is a weak float32


def test_jit_takes_jax_arrays_and_keys():
    jitted = jit(lambda key, x: x + jax.random.uniform(key, x.shape))
    key = jax.random.key(0)
    x = jnp.ones(3, jnp.float32)
    np.testing.assert_array_equal(jitted(key, x), x + jax.random.uniform(key, (3,)))


@pytest.mark.parametrize("name", ["from_jax", "explain_import", "jit", "register"])
def test_the_api_is_exported(name):
    import hlograph.interop.jax as hj
    assert name in hj.__all__ and callable(getattr(hj, name))


def test_from_jax_traces_and_interprets_with_the_collector_paused(monkeypatch):
    import gc

    from hlograph.interop.jax import interpreter
    seen = []
    for name in ("trace", "eval_jaxpr"):
        fn = getattr(interpreter, name)
        monkeypatch.setattr(interpreter, name,
                            (lambda f, n: lambda *a, **k: (seen.append((n, gc.isenabled())), f(*a, **k))[1])(fn, name))
    g = hg.from_jax(lambda x: jnp.sin(x) * 2, jax.ShapeDtypeStruct((3,), jnp.float32))
    assert seen == [("trace", False), ("eval_jaxpr", False)] and gc.isenabled()
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_allclose(hg.compile(g)(x), np.sin(x) * 2, rtol=1e-6)
