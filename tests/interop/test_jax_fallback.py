"""The fallback (a primitive without a rule is computed by jax, inside the compiled
module and in perform), the import report, the rule registry, and the errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.extend.core import Primitive
from jax.interpreters import mlir

import hlograph as hg
from hlograph.interop.jax import (JaxPrimitiveOp, JaxTraceError, RuleError, explain_import, from_jax,
                                  register, registry)
from hlograph.tests.helpers import assert_same
from hlograph.tests.interop.jax_corpus import compare_with_jax


def _fallback_nodes(g):
    return [n for n in g.toposort() if isinstance(n.op, JaxPrimitiveOp)]


def test_a_primitive_without_a_rule_is_computed_by_jax(rng):
    # zeta has no rule (hlograph has no Hurwitz zeta function): it is the fallback's test case
    assert registry.lookup("zeta") is None
    x = rng.normal(size=(3, 5)).astype(np.float32)
    q = np.abs(rng.normal(size=(3, 5))).astype(np.float32) + 0.5
    f = lambda x, q: jnp.tanh(lax.zeta(x * x + 1.5, q)) * 2.0
    g = compare_with_jax(f, x, q)
    assert dict(g.report.fallbacks) == {"zeta": 1}
    (node,) = _fallback_nodes(g)
    assert str(node.op) == "JaxPrimitive{zeta}"
    assert node.outputs[0].type == hg.TensorType("float32", (3, 5))
    # perform binds the primitive with jax: the reference agrees
    assert_same(hg.evaluate(g, x, q), np.asarray(jax.jit(f)(x, q)))
    # the lowering calls jax's lowering of the primitive, merged into the module
    text = hg.compile(g, pipeline="O0").lower().as_text()
    assert "call @jax_jaxprimitiveop" in text and "chlo.zeta" in text


def test_the_fallback_inside_a_loop_body(rng):
    x = rng.normal(size=(4, 3)).astype(np.float32)
    f = lambda x: lax.scan(lambda c, r: (c + lax.igamma_grad_a(jnp.abs(r) + 0.5, r * r + 0.1).sum(),
                                         lax.zeta(r * r + 2.0, jnp.abs(r) + 1.0)), 0.0, x)
    g = compare_with_jax(f, x)
    assert dict(g.report.fallbacks) == {"igamma_grad_a": 1, "zeta": 1}


def test_prng_keys_cross_the_fallback_as_key_data():
    # the key primitives of rbg keys (threefry's are graph computations) are computed by
    # jax: the bits match
    def f(key, x):
        k1, k2 = jax.random.split(key)
        noise = jax.random.normal(jax.random.fold_in(k1, 3), x.shape)
        return (x + noise, jax.random.uniform(k2, (2,)),
                jax.random.randint(jax.random.key(7, impl="rbg"), (3,), 0, 9))
    key = jax.random.key(42, impl="rbg")
    x = np.arange(4, dtype=np.float32)
    g = from_jax(f, key, x)
    assert g.input_types[0] == hg.TensorType("uint32", (4,))
    for a, e in zip(hg.compile(g)(jax.random.key_data(key), x), jax.jit(f)(key, x)):
        np.testing.assert_array_equal(a, np.asarray(e))
    assert {"random_seed", "random_bits", "random_split", "random_fold_in"} <= set(g.report.fallbacks)


def test_a_typed_key_argument_is_its_key_data():
    key = jax.random.key(1)
    g = from_jax(lambda k: jax.random.normal(k, (3,)), key)
    assert g.input_types == [hg.TensorType("uint32", (2,))] and g.input_keys[0] is not None
    out = hg.compile(g)(jax.random.key_data(key))
    np.testing.assert_array_equal(out, jax.random.normal(key, (3,)))


def test_a_rule_that_declines_params_hands_the_equation_to_the_fallback(rng):
    # eigh without sorting the eigenvalues has no matching Op: the eigh rule declines it
    a = rng.normal(size=(4, 4)).astype(np.float32)
    g = compare_with_jax(lambda a: lax.linalg.eigh(a + a.T, sort_eigenvalues=False), a)
    assert dict(g.report.fallbacks) == {"eigh": 1}
    assert "unsorted eigenvalues" in str(g.report)


def test_explain_import_lists_rules_fallbacks_and_dropped_effects(rng):
    def f(x):
        jax.debug.print("x = {}", x)
        return lax.zeta(x, x) + jnp.exp(x)
    report = explain_import(f, jax.ShapeDtypeStruct((3,), jnp.float32))
    text = str(report)
    assert text.splitlines()[0].endswith("dropped_effects.<locals>.f): 4 equations")
    assert "by rule: add x1, exp x1" in text
    assert "zeta x1: no rule" in text
    assert "dropped: debug_print x1" in text
    assert report.n_equations == 4


def test_value_dependent_python_control_flow_names_jax_error():
    def f(x):
        if x.sum() > 0:  # needs the value of a traced array
            return x
        return -x
    with pytest.raises(JaxTraceError) as info:
        from_jax(f, jax.ShapeDtypeStruct((3,), jnp.float32))
    message = str(info.value)
    assert "jax cannot trace test_value_dependent_python_control_flow_names_jax_error.<locals>.f" in message
    assert "TracerBoolConversionError" in message and "jax.lax.cond" in message
    assert isinstance(info.value.__cause__, jax.errors.TracerBoolConversionError)


def test_other_trace_errors_are_named_without_the_control_flow_hint():
    with pytest.raises(JaxTraceError, match="TypeError: add got incompatible shapes") as info:
        from_jax(lambda x, y: x + y, np.ones(3, np.float32), np.ones(4, np.float32))
    assert "lax.cond" not in str(info.value)


# --- a primitive of the user's own: the fallback, then a rule --------------------------
def _softsign_primitive() -> Primitive:
    p = Primitive("test_softsign")
    p.def_impl(lambda x: x / (1 + jnp.abs(x)))
    p.def_abstract_eval(lambda x: jax.core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(p, mlir.lower_fun(lambda x: x / (1 + jnp.abs(x)), multiple_results=False))
    return p


SOFTSIGN = _softsign_primitive()


@pytest.fixture
def clean_registry():
    yield
    registry.RULES.pop(SOFTSIGN.name, None)


def test_a_custom_primitive_imports_through_the_fallback_then_through_its_rule(rng, clean_registry):
    x = rng.normal(size=(4,)).astype(np.float32)
    f = lambda x: SOFTSIGN.bind(x) * 2.0
    assert dict(compare_with_jax(f, x).report.fallbacks) == {"test_softsign": 1}

    @register(SOFTSIGN)
    def softsign(x):
        return x / (1 + hg.abs(x))

    g = compare_with_jax(f, x)
    assert not g.report.fallbacks and g.report.by_rule["test_softsign"] == 1
    with pytest.raises(ValueError, match="already registered"):
        register("test_softsign")(softsign)


def test_a_rule_giving_the_wrong_shape_is_an_error(clean_registry):
    register(SOFTSIGN)(lambda x: hg.sum(x))
    with pytest.raises(RuleError, match=r"'test_softsign' gave float32\[\]; jax's result is float32\[4\]"):
        from_jax(lambda x: SOFTSIGN.bind(x), np.ones(4, np.float32))


def test_a_rule_result_is_cast_to_jax_dtype(clean_registry):
    # the rule computes in float64 (NumPy promotion of a float64 constant): the result is float32
    register(SOFTSIGN)(lambda x: x / (hg.constant(1.0, "float64") + hg.abs(x)))
    g = compare_with_jax(lambda x: SOFTSIGN.bind(x), np.ones(4, np.float32))
    assert g.output_types == [hg.TensorType("float32", (4,))]


def test_a_rule_whose_builders_refuse_hands_the_equation_to_the_fallback(clean_registry):
    def refuses(x):
        raise TypeError("Softsign: not for this dtype")
    register(SOFTSIGN)(refuses)
    g = compare_with_jax(lambda x: SOFTSIGN.bind(x), np.ones(4, np.float32))
    assert dict(g.report.fallbacks) == {"test_softsign": 1}
    assert "the rule failed (TypeError: Softsign: not for this dtype)" in str(g.report)
