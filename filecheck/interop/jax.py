# RUN: %PYTHON -P %s | filecheck %s
# (-P: this file's folder is not put on sys.path, where this file would shadow jax)
import jax
import jax.numpy as jnp
from jax import lax

import hlograph as hg
from hlograph.interop.jax import from_jax
from hlograph.testing import print_ir


def f32(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.float32)


def dense_layer():
    print_ir("dense_layer", from_jax(lambda x, w, b: jnp.tanh(x @ w + b), f32(2, 3), f32(3, 4), f32(4)))


# CHECK-LABEL: TEST: dense_layer float32[2,3]
# CHECK: func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<4xf32>)
# CHECK-SAME: -> tensor<2x4xf32>
# CHECK: %[[D:.+]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0]
# CHECK: %[[B:.+]] = stablehlo.broadcast_in_dim {{.*}} -> tensor<2x4xf32>
# CHECK: %[[S:.+]] = stablehlo.add %[[D]], %[[B]] : tensor<2x4xf32>
# CHECK: %[[T:.+]] = stablehlo.tanh %[[S]] : tensor<2x4xf32>
# CHECK: return %[[T]] : tensor<2x4xf32>
dense_layer()


def relu_custom_jvp():
    # custom_jvp_call: the primal computation, max(x, 0)
    print_ir("relu_custom_jvp", from_jax(jax.nn.relu, f32(3)))


# CHECK-LABEL: TEST: relu_custom_jvp float32[3]
# CHECK: %[[Z:.+]] = stablehlo.broadcast_in_dim {{.*}} -> tensor<3xf32>
# CHECK: %[[M:.+]] = stablehlo.maximum %arg0, %[[Z]] : tensor<3xf32>
# CHECK: return %[[M]]
relu_custom_jvp()


def fori_loop():
    print_ir("fori_loop", from_jax(lambda x: lax.fori_loop(0, 4, lambda i, v: v * 2.0, x), f32(3)))


# a fori_loop with static bounds is a scan: one stablehlo.while
# CHECK-LABEL: TEST: fori_loop float32[3]
# CHECK: stablehlo.while
# CHECK: cond {
# CHECK: stablehlo.compare LT
# CHECK: } do {
# CHECK: stablehlo.multiply %iterArg_2, {{.*}} : tensor<3xf32>
# CHECK: return %0#2 : tensor<3xf32>
fori_loop()


def cond():
    print_ir("cond", from_jax(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x),
                              jax.ShapeDtypeStruct((), jnp.bool_), f32(3)))


# CHECK-LABEL: TEST: cond bool[]
# CHECK: %[[P:.+]] = stablehlo.compare NE
# CHECK: "stablehlo.if"(%[[P]]) ({
# CHECK: stablehlo.sine %arg1
# CHECK: }, {
# CHECK: stablehlo.cosine %arg1
# CHECK: }) : (tensor<i1>) -> tensor<3xf32>
cond()


def fallback():
    # zeta has no rule (hlograph has no Hurwitz zeta): jax's lowering of it, merged as
    # a private function
    print_ir("fallback", from_jax(lambda s, q: lax.zeta(s, q), f32(3), f32(3)))


# CHECK-LABEL: TEST: fallback float32[3]
# CHECK: %[[C:.+]] = call @[[FN:jax_jaxprimitiveop]](%arg0, %arg1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
# CHECK: return %[[C]]
# CHECK: func.func private @[[FN]](%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<3xf32>
# CHECK: chlo.zeta %arg0, %arg1 : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
fallback()


def float64():
    # 64-bit specs enable x64 for the trace: the Python floats are float64 constants
    print_ir("float64", from_jax(lambda x: x * 2.0 + 1, jax.ShapeDtypeStruct((3,), jnp.float64)))


# CHECK-LABEL: TEST: float64 float64[3]
# CHECK: stablehlo.constant dense<2.000000e+00> : tensor<f64>
# CHECK: stablehlo.multiply %arg0, {{.*}} : tensor<3xf64>
# CHECK: stablehlo.add {{.*}} : tensor<3xf64>
float64()


def jax_op():
    # hg.jax_op: jax's lowering of the function, merged as a private function and
    # called; an operand the function ignores stays in its signature (keep_unused)
    x = hg.tensor("x", (3,), "float32")
    y = hg.tensor("y", (2,), "int32")
    print_ir("jax_op", hg.Graph([x, y], hg.exp(hg.jax_op(lambda a, b: jnp.sin(a))(x, y))))


# CHECK-LABEL: TEST: jax_op float32[3]
# CHECK: %[[C:.+]] = call @[[FN:jax_jaxop[0-9_]*]](%arg0, %arg1) : (tensor<3xf32>, tensor<2xi32>) -> tensor<3xf32>
# CHECK: %[[E:.+]] = stablehlo.exponential %[[C]] : tensor<3xf32>
# CHECK: return %[[E]]
# CHECK: func.func private @[[FN]](%arg0: tensor<3xf32>, %arg1: tensor<2xi32>) -> tensor<3xf32>
# CHECK: stablehlo.sine %arg0
# CHECK-NOT: stablehlo.slice
# CHECK: return
jax_op()


def custom_vjp_grad():
    # the gradient of an imported custom_vjp function is jax's backward rule (here
    # deliberately 100 * ct, not cos(x) * ct), computed by jax inside the module
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    f.defvjp(lambda x: (jnp.sin(x), None), lambda res, ct: (ct * 100.0,))
    g = from_jax(lambda x: jnp.sum(f(x)), f32(3))
    print_ir("custom_vjp_grad", hg.Graph(g.inputs, hg.grad(g.outputs[0], g.inputs[0])))


# CHECK-LABEL: TEST: custom_vjp_grad float32[3]
# CHECK: %[[ONES:.+]] = stablehlo.broadcast_in_dim {{.*}} -> tensor<3xf32>
# CHECK: %[[G:.+]] = call @[[FN:jax_jaxop[0-9_]*]](%arg0, %[[ONES]]) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
# CHECK: return %[[G]] : tensor<3xf32>
# CHECK: func.func private @[[FN]](%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<3xf32>
# CHECK-NOT: stablehlo.cosine
# CHECK: stablehlo.constant dense<1.000000e+02>
# CHECK: stablehlo.multiply %arg1
custom_vjp_grad()


def to_jax():
    # hg.to_jax inside jax.jit: hlograph's module merged into jax's as a private
    # function and called (no callback)
    w = hg.tensor("w", (3,), "float32")
    t = hg.to_jax(hg.Graph([w], hg.tanh(w) * 2.0))
    print("TEST: to_jax")
    print(jax.jit(lambda v: jnp.cos(t(v))).lower(f32(3)).as_text())


# CHECK-LABEL: TEST: to_jax
# CHECK: func.func public @main(%arg0: tensor<3xf32>)
# CHECK: %[[C:.+]] = call @[[FN:hlograph_graph[0-9_]+]](%arg0) : (tensor<3xf32>) -> tensor<3xf32>
# CHECK: stablehlo.cosine %[[C]]
# CHECK: func.func private @[[FN]](%arg0: tensor<3xf32>) -> tensor<3xf32>
# CHECK: stablehlo.tanh %arg0
# CHECK-NOT: callback
to_jax()


def i32():
    return jax.ShapeDtypeStruct((), jnp.int32)


def dynamic_slice():
    # x[i] at a traced i: jax wraps a negative i, then its dynamic_slice clamps
    print_ir("dynamic_slice", from_jax(lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 3)), f32(4, 5), i32()))


# CHECK-LABEL: TEST: dynamic_slice float32[4,5]
# CHECK: func.func public @main(%arg0: tensor<4x5xf32>, %arg1: tensor<i32>) -> tensor<2x3xf32>
# CHECK-NOT: stablehlo.gather
# CHECK: %[[D:.+]] = stablehlo.dynamic_slice %arg0, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, sizes = [2, 3] : (tensor<4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
# CHECK: return %[[D]] : tensor<2x3xf32>
dynamic_slice()


def dynamic_update_slice():
    print_ir("dynamic_update_slice",
             from_jax(lambda x, u, i: lax.dynamic_update_slice(x, u, (1, i)), f32(4, 5), f32(2, 2), i32()))


# CHECK-LABEL: TEST: dynamic_update_slice float32[4,5]
# CHECK-NOT: stablehlo.scatter
# CHECK: %[[U:.+]] = stablehlo.dynamic_update_slice %arg0, %arg1, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : (tensor<4x5xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x5xf32>
# CHECK: return %[[U]] : tensor<4x5xf32>
dynamic_update_slice()


def dynamic_slice_grad():
    # the gradient of x[i] is a dynamic_update_slice of the cotangent into zeros
    print_ir("dynamic_slice_grad", from_jax(jax.grad(lambda x, i: jnp.sum(x[i] ** 2)), f32(4, 3), i32()))


# CHECK-LABEL: TEST: dynamic_slice_grad float32[4,3]
# CHECK-NOT: stablehlo.gather
# CHECK: stablehlo.dynamic_slice %arg0, {{.*}} sizes = [1, 3]
# CHECK-NOT: stablehlo.scatter
# CHECK: stablehlo.dynamic_update_slice {{.*}} : (tensor<4x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x3xf32>
dynamic_slice_grad()


def dynamic_slice_at_known_starts():
    print_ir("dynamic_slice_at_known_starts",
             from_jax(lambda x: lax.dynamic_slice(x, (3, -2), (2, 3)), f32(4, 5)))


# known starts are a static slice, clamped: 3 -> 2, and -2 (wrapped by jax to 3) -> 2
# CHECK-LABEL: TEST: dynamic_slice_at_known_starts float32[4,5]
# CHECK-NOT: stablehlo.dynamic_slice
# CHECK: stablehlo.slice %arg0 [2:4, 2:5] : (tensor<4x5xf32>) -> tensor<2x3xf32>
dynamic_slice_at_known_starts()


def random_bits():
    # jax's threefry2x32 random_bits (partitionable counts, jax's default), as graph
    # computations: the key's two words, an iota of counts, 20 rounds of add/rotate/xor
    print_ir("random_bits", from_jax(lambda k: jax.random.bits(k, (4,), jnp.uint32),
                                     jax.ShapeDtypeStruct((2,), jnp.uint32)))


# CHECK-LABEL: TEST: random_bits uint32[2]
# CHECK: func.func public @main(%arg0: tensor<2xui32>) -> tensor<4xui32>
# CHECK-NOT: stablehlo.custom_call
# CHECK: stablehlo.slice %arg0 [0:1]
# CHECK: stablehlo.iota dim = 0 : tensor<4xui32>
# CHECK: stablehlo.slice %arg0 [1:2]
# the first rotations of the first block: 13 and 15 (left), 19 and 17 (their right shifts)
# CHECK: stablehlo.constant dense<13> : tensor<ui32>
# CHECK: stablehlo.shift_left
# CHECK: stablehlo.constant dense<19> : tensor<ui32>
# CHECK: stablehlo.shift_right_logical
# CHECK: stablehlo.or
# CHECK: stablehlo.xor
# CHECK: stablehlo.constant dense<15> : tensor<ui32>
# the key schedule's third word: k1 ^ k2 ^ 0x1BD11BDA
# CHECK: stablehlo.constant dense<466688986> : tensor<ui32>
# CHECK: stablehlo.constant dense<1> : tensor<ui32>
# CHECK-NOT: stablehlo.custom_call
# CHECK: return %{{.+}} : tensor<4xui32>
random_bits()


def random_uniform_bitcast():
    print_ir("random_uniform_bitcast", from_jax(lambda s: jax.random.uniform(jax.random.PRNGKey(s), (3,)),
                                                jax.ShapeDtypeStruct((), jnp.int32)))


# seeding converts the int32 seed to the key's low word; uniform's mantissa bits are
# bitcast to float32 (no custom call: nothing went through jax's lowering)
# CHECK-LABEL: TEST: random_uniform_bitcast int32[]
# CHECK-NOT: stablehlo.custom_call
# CHECK: stablehlo.convert %arg0 : (tensor<i32>) -> tensor<ui32>
# CHECK: stablehlo.constant dense<1065353216>
# CHECK: stablehlo.bitcast_convert %{{.+}} : (tensor<3xui32>) -> tensor<3xf32>
# CHECK-NOT: stablehlo.custom_call
# CHECK: return
random_uniform_bitcast()
