# RUN: %PYTHON -P %s | filecheck %s
# (-P: this file's folder is not put on sys.path, where this file would shadow jax)
import jax
import jax.numpy as jnp
from jax import lax

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
    # cumlogsumexp has no rule: jax's lowering of it, merged as a private function
    print_ir("fallback", from_jax(lambda x: lax.cumlogsumexp(x), f32(3)))


# CHECK-LABEL: TEST: fallback float32[3]
# CHECK: %[[C:.+]] = call @[[FN:jax_jaxprimitiveop]](%arg0) : (tensor<3xf32>) -> tensor<3xf32>
# CHECK: return %[[C]]
# CHECK: func.func private @[[FN]](%arg0: tensor<3xf32>) -> tensor<3xf32>
# CHECK: func.func private @cumlogsumexp
# CHECK: "stablehlo.reduce_window"
fallback()


def float64():
    # 64-bit specs enable x64 for the trace: the Python floats are float64 constants
    print_ir("float64", from_jax(lambda x: x * 2.0 + 1, jax.ShapeDtypeStruct((3,), jnp.float64)))


# CHECK-LABEL: TEST: float64 float64[3]
# CHECK: stablehlo.constant dense<2.000000e+00> : tensor<f64>
# CHECK: stablehlo.multiply %arg0, {{.*}} : tensor<3xf64>
# CHECK: stablehlo.add {{.*}} : tensor<3xf64>
float64()
