"""O2 changes no result: translation validation over modules exported by
``jax.jit(f).lower()`` for realistic functions, graphs built with hlograph ops,
and StableHLO's own test programs (../shared/corpus)."""

from __future__ import annotations

import pathlib

import jax
import jax.numpy as jnp
import pytest

import hlograph as hg
from hlograph.xla.mlir import ir, make_context
from hlograph.passes import run
from hlograph.testing.validation import count_ops, lift_constant_inputs, validate

f32, bf16, i32 = jnp.float32, jnp.bfloat16, jnp.int32


def spec(shape, dtype=f32):
    return jax.ShapeDtypeStruct(shape, dtype)


def mlp(x, w1, b1, w2, b2):
    h = jax.nn.relu(x @ w1 + b1)
    return jax.nn.log_softmax(h @ w2 + b2)


def attention(q, k, v):
    s = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(q.shape[-1])
    mask = jnp.tril(jnp.ones((q.shape[1], k.shape[1]), bool))
    s = jnp.where(mask, s, -1e9)
    return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(s, axis=-1), v)


def layer_norm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * jax.lax.rsqrt(v + 1e-5) * g + b


def softmax_xent(logits, labels):
    logp = jax.nn.log_softmax(logits)
    return -jnp.take_along_axis(logp, labels[:, None], axis=1).mean()


def conv_net(x, w1, w2):
    dn = ("NHWC", "HWIO", "NHWC")
    y = jax.nn.relu(jax.lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn))
    y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    y = jax.nn.gelu(jax.lax.conv_general_dilated(y, w2, (1, 1), "VALID", dimension_numbers=dn))
    return y.mean(axis=(1, 2))


def fori(x):
    return jax.lax.fori_loop(0, 7, lambda i, c: c * 0.5 + jnp.sin(c) + i, x)


def while_cond(x):
    def body(c):
        i, v = c
        v = jax.lax.cond(i % 2 == 0, lambda t: t * 2.0, lambda t: t - 1.0, v)
        return i + 1, v

    return jax.lax.while_loop(lambda c: c[0] < 5, body, (0, x))[1]


def scan_cumsum(x):
    return jax.lax.scan(lambda c, v: (c + v, c * v), jnp.zeros(x.shape[1:], x.dtype), x)


def integer_math(a, b):
    return (a * 3 + b) // 7, a % 5, jnp.where(a > b, a, b) << 1, (a ^ b) & 0xFF, jnp.clip(a, -3, 3)


def random_bits(key_data):
    key = jax.random.wrap_key_data(key_data)
    return jax.random.uniform(key, (16,)), jax.random.randint(key, (8,), 0, 10)


def gather_scatter(x, idx):
    return x[idx] * 2, x.at[idx].add(1.0), jnp.argsort(x), jnp.cumsum(x)


def bf16_mlp(x, w):
    return jax.nn.silu(x @ w).astype(f32).sum(axis=0)


def complex_ops(x):
    z = jnp.fft.rfft(x)
    return jnp.abs(z) + jnp.angle(z), (z * jnp.conj(z)).real


JAX_CASES = {
    "mlp": (mlp, [spec((8, 16)), spec((16, 32)), spec((32,)), spec((32, 10)), spec((10,))]),
    "attention": (attention, [spec((2, 8, 16))] * 3),
    "layer_norm": (layer_norm, [spec((4, 32)), spec((32,)), spec((32,))]),
    "softmax_cross_entropy": (softmax_xent, [spec((6, 10)), spec((6,), i32)]),
    "conv_net": (conv_net, [spec((2, 8, 8, 3)), spec((3, 3, 3, 4)), spec((3, 3, 4, 5))]),
    "fori_loop": (fori, [spec((5,))]),
    "while_cond": (while_cond, [spec((5,))]),
    "scan": (scan_cumsum, [spec((6, 3))]),
    "integer_math": (integer_math, [spec((12,), i32)] * 2),
    "random_bits": (random_bits, [spec((2,), jnp.uint32)]),
    "gather_scatter": (gather_scatter, [spec((10,)), spec((4,), i32)]),
    "bf16_mlp": (bf16_mlp, [spec((4, 8), bf16), spec((8, 6), bf16)]),
    "complex": (complex_ops, [spec((16,))]),
}


def jax_module(name: str) -> str:
    f, specs = JAX_CASES[name]
    return jax.jit(f).lower(*specs).as_text()


@pytest.mark.parametrize("name", list(JAX_CASES))
def test_o2_on_jax_exported_functions(name):
    text = jax_module(name)
    result = validate(text, "O2", trials=2, interpreter="auto")
    assert result.ops_after <= result.ops_before
    assert "call @" not in result.optimized  # every private function inlined


def test_o2_reduces_op_count_over_the_jax_functions():
    before = after = 0
    for name in JAX_CASES:
        with make_context():
            m = ir.Module.parse(jax_module(name))
            before += count_ops(m)
            run(m, "O2")
            after += count_ops(m)
    assert after < 0.85 * before, (before, after)


def hlograph_graphs():
    x = hg.tensor("x", (4, 5), "float32")
    y = hg.tensor("y", (5,), "float32")
    n = hg.tensor("n", (4, 5), "int32")
    b = hg.tensor("b", (3,), "bool")
    h = hg.tensor("h", (6,), "float16")
    return {
        "broadcast_arithmetic": hg.Graph([x, y], [hg.exp(x * 1.0 + y) - hg.negative(hg.negative(y)), x / 1.0]),
        "mixed_int_float": hg.Graph([n, x], [hg.maximum(n, 0) * 2 + 1, hg.where(n > 2, x, -x)]),
        "logic": hg.Graph([b], [hg.logical_not(hg.logical_not(b)), hg.logical_and(b, True)]),
        "half": hg.Graph([h], [hg.sqrt(hg.abs(h)) * 1.0 + 0.5]),
    }


@pytest.mark.parametrize("name", ["broadcast_arithmetic", "mixed_int_float", "logic", "half"])
def test_o2_on_hlograph_graphs(name):
    graph = hlograph_graphs()[name]
    text = hg.compile(graph, pipeline="O0").lower().as_text()
    result = validate(text, "O2", trials=3)
    assert result.ops_after <= result.ops_before


CORPUS = pathlib.Path(__file__).resolve().parents[3] / "shared" / "corpus" / "stablehlo-sample"
CORPUS_FILES = sorted(CORPUS.glob("*.mlir")) if CORPUS.is_dir() else []
needs_corpus = pytest.mark.skipif(not CORPUS_FILES, reason="../shared/corpus is not present")


@needs_corpus
def test_o2_leaves_every_corpus_module_valid_and_the_corpus_smaller():
    # (one module may grow: inlining copies a function called several times)
    total_before = total_after = 0
    for path in CORPUS_FILES:
        with make_context():
            m = ir.Module.parse(path.read_text())
            before = count_ops(m)
            run(m, "O2")
            assert m.operation.verify(), path.name
            after = count_ops(m)
        total_before, total_after = total_before + before, total_after + after
    assert total_after < 0.7 * total_before


@needs_corpus
def test_o2_changes_no_corpus_result():
    """Every fifth program, with its @inputs() made arguments so that XLA
    computes it at run time (it would constant-fold the whole program)."""
    for path in CORPUS_FILES[::5]:
        text, inputs = lift_constant_inputs(path.read_text())
        try:
            validate(text, "O2", inputs=[inputs], interpreter=False)
        except AssertionError as e:
            raise AssertionError(f"{path.name}: {e}") from None


EXOTIC = """
func.func public @main(%d: tensor<?xf32>, %t: !stablehlo.token, %q: tensor<4xf8E4M3FN>, %i4: tensor<4xi4>)
    -> (tensor<?xf32>, !stablehlo.token, tensor<4xf8E4M3FN>, tensor<4xi4>, tensor<2xf32>, tensor<4xf32>, tensor<f32>) {
  %c1 = stablehlo.constant dense<1.0> : tensor<f32>
  %b = stablehlo.constant dense<2.0> : tensor<2xf32>
  %r = stablehlo.constant dense_resource<blob1> : tensor<2xf32>
  %0 = stablehlo.add %r, %b : tensor<2xf32>
  %s = stablehlo.get_dimension_size %d, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %1 = stablehlo.negate %d : tensor<?xf32>
  %2 = stablehlo.negate %1 : tensor<?xf32>
  %one8 = stablehlo.constant dense<1.0> : tensor<4xf8E4M3FN>
  %3 = stablehlo.multiply %q, %one8 : tensor<4xf8E4M3FN>
  %z4 = stablehlo.constant dense<0> : tensor<4xi4>
  %4 = stablehlo.add %i4, %z4 : tensor<4xi4>
  %t2 = stablehlo.after_all %t : !stablehlo.token
  %tup = stablehlo.tuple %b, %b : tuple<tensor<2xf32>, tensor<2xf32>>
  %g = stablehlo.get_tuple_element %tup[0] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %5 = stablehlo.add %0, %g : tensor<2xf32>
  %s1 = stablehlo.reshape %s : (tensor<i32>) -> tensor<1xi32>
  %bd = stablehlo.dynamic_broadcast_in_dim %c1, %s1, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
  %6 = stablehlo.add %2, %bd : tensor<?xf32>
  %f = stablehlo.convert %q : (tensor<4xf8E4M3FN>) -> tensor<4xf32>
  %cz = stablehlo.complex %f, %f : tensor<4xcomplex<f32>>
  %c = stablehlo.constant dense<(1.0, 0.0)> : tensor<4xcomplex<f32>>
  %cm = stablehlo.multiply %cz, %c : tensor<4xcomplex<f32>>
  %re = stablehlo.real %cm : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %big = stablehlo.constant dense<3.0> : tensor<8192x8192xf32>
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%big init: %init) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<8192x8192xf32>, tensor<f32>) -> tensor<f32>
  return %6, %t2, %3, %4, %5, %re, %m : tensor<?xf32>, !stablehlo.token, tensor<4xf8E4M3FN>, tensor<4xi4>, tensor<2xf32>, tensor<4xf32>, tensor<f32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F00000040"
    }
  }
#-}
"""


def test_o2_declines_what_it_cannot_read():
    """Dynamic shapes, tokens, tuples, f8 and i4 elements, dense_resource
    blobs, complex multiplication: O2 rewrites what it understands and leaves
    the rest, without failing. A reduction over 64M splat elements folds from
    its one element (nothing is materialized)."""
    with make_context():
        m = ir.Module.parse(EXOTIC)
        run(m, "O2")
        assert m.operation.verify()
        out = str(m)
    assert "stablehlo.negate" not in out  # the dynamic double negation went
    for kept in ("dense_resource<blob1>", "stablehlo.multiply %arg2", "stablehlo.add %arg3",
                 "stablehlo.after_all", "stablehlo.get_tuple_element"):
        assert kept in out, kept
    assert "stablehlo.reduce" not in out and "dense<3.000000e+00> : tensor<f32>" in out


def _o2_driver_only(text: str) -> str:
    """O2 with hlograph-simplify as every one of its patterns on MLIR's greedy
    driver, without ordering operands in one walk first or leaving out patterns
    with nothing to match: the module the pass must give."""
    from hlograph.passes.patterns import apply_patterns
    from hlograph.passes.simplify import SimplifyPass

    with make_context():
        m = ir.Module.parse(text)
        run(m, "hlograph-inline-calls,symbol-dce,cse")
        apply_patterns(m, SimplifyPass().patterns())
        run(m, "cse")
        return str(m)


def _o2(text: str) -> str:
    with make_context():
        return str(run(ir.Module.parse(text), "O2"))


#: broadcasts that hlograph-simplify sinks (the pass leaves that pattern out where no broadcast can appear)
SINKABLE = """
func.func public @main(%a: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<4x5xf32> {
  %x = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<5xf32>) -> tensor<4x5xf32>
  %y = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<5xf32>) -> tensor<4x5xf32>
  %s = stablehlo.add %y, %x : tensor<4x5xf32>
  %e = stablehlo.exponential %s : tensor<4x5xf32>
  return %e : tensor<4x5xf32>
}
"""


def test_o2_gives_the_module_of_the_driver_alone():
    texts = [jax_module(name) for name in JAX_CASES]
    texts += [hg.compile(g, pipeline="O0").lower().as_text() for g in hlograph_graphs().values()]
    texts += [path.read_text() for path in CORPUS_FILES]
    texts.append(SINKABLE)
    for text in texts:
        assert _o2(text) == _o2_driver_only(text), text[:400]
