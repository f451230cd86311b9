# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
import hlograph.lowering.rules.special  # noqa: F401
from hlograph.frontend.ops import special as sp
from hlograph.testing import print_ir


def unary(name, fn, dtype="float32", shape=(2, 3)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


def binary(name, fn, dtype="float32", xshape=(2, 3), yshape=(2, 3)):
    x, y = hg.tensor("x", xshape, dtype), hg.tensor("y", yshape, dtype)
    print_ir(name, hg.Graph([x, y], fn(x, y)))


# CHECK-LABEL: TEST: erfc float32[2,3]
# CHECK: chlo.erfc %arg0 : tensor<2x3xf32> -> tensor<2x3xf32>
unary("erfc", sp.erfc)

# CHECK-LABEL: TEST: erfinv float64[2,3]
# CHECK: chlo.erf_inv %arg0 : tensor<2x3xf64> -> tensor<2x3xf64>
unary("erfinv", sp.erfinv, "float64")

# gammaln: narrower floats compute in float64 and round once
# CHECK-LABEL: TEST: gammaln float32[2,3]
# CHECK: %[[W:.+]] = stablehlo.convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf64>
# CHECK: %[[L:.+]] = chlo.lgamma %[[W]] : tensor<2x3xf64> -> tensor<2x3xf64>
# CHECK: stablehlo.convert %[[L]] : (tensor<2x3xf64>) -> tensor<2x3xf32>
unary("gammaln", sp.gammaln)

# CHECK-LABEL: TEST: gammaln_f64 float64[2,3]
# CHECK: chlo.lgamma %arg0 : tensor<2x3xf64> -> tensor<2x3xf64>
unary("gammaln_f64", sp.gammaln, "float64")

# CHECK-LABEL: TEST: gammaln_int int8[2,3]
# CHECK: %[[X:.+]] = stablehlo.convert %arg0 : (tensor<2x3xi8>) -> tensor<2x3xf16>
# CHECK: %[[W:.+]] = stablehlo.convert %[[X]] : (tensor<2x3xf16>) -> tensor<2x3xf64>
# CHECK: chlo.lgamma %[[W]] : tensor<2x3xf64> -> tensor<2x3xf64>
unary("gammaln_int", sp.gammaln, "int8")

# CHECK-LABEL: TEST: digamma float32[2,3]
# CHECK: %[[D:.+]] = chlo.digamma %arg0 : tensor<2x3xf32> -> tensor<2x3xf32>
# CHECK: stablehlo.select {{.*}}, %[[D]] : tensor<2x3xi1>, tensor<2x3xf32>
unary("digamma", sp.digamma)

# CHECK-LABEL: TEST: trigamma float32[2,3]
# CHECK: chlo.polygamma {{.*}}, %arg0 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
unary("trigamma", sp.trigamma)

# CHECK-LABEL: TEST: polygamma float64[3]
# CHECK: %[[N:.+]] = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf64>) -> tensor<2x3xf64>
# CHECK: chlo.polygamma %[[N]], %arg1 : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
binary("polygamma", sp.polygamma, "float64", xshape=(3,))

# CHECK-LABEL: TEST: i1e float32[2,3]
# CHECK: chlo.bessel_i1e %arg0 : tensor<2x3xf32> -> tensor<2x3xf32>
unary("i1e", sp.i1e)

# CHECK-LABEL: TEST: i0e float32[2,3]
# CHECK: stablehlo.abs %arg0 : tensor<2x3xf32>
# CHECK: stablehlo.sqrt {{.*}} : tensor<2x3xf32>
# CHECK: stablehlo.compare LE, {{.*}}, FLOAT
# CHECK: stablehlo.select {{.*}} : tensor<2x3xi1>, tensor<2x3xf32>
unary("i0e", sp.i0e)

# CHECK-LABEL: TEST: softplus float32[2,3]
# CHECK: stablehlo.log_plus_one {{.*}} : tensor<2x3xf32>
# CHECK: stablehlo.maximum %arg0, {{.*}} : tensor<2x3xf32>
unary("softplus", sp.softplus)

# CHECK-LABEL: TEST: log1mexp float64[2,3]
# CHECK-DAG: stablehlo.exponential_minus_one %arg0 : tensor<2x3xf64>
# CHECK-DAG: stablehlo.log_plus_one {{.*}} : tensor<2x3xf64>
# CHECK: stablehlo.select
unary("log1mexp", sp.log1mexp, "float64")

# CHECK-LABEL: TEST: xlogy float32[2,3]
# CHECK: %[[L:.+]] = stablehlo.log %arg1 : tensor<2x3xf32>
# CHECK: %[[M:.+]] = stablehlo.multiply %arg0, %[[L]] : tensor<2x3xf32>
# CHECK: stablehlo.select {{.*}}, %[[M]] : tensor<2x3xi1>, tensor<2x3xf32>
binary("xlogy", sp.xlogy)

# CHECK-LABEL: TEST: xlog1py float32[2,3]
# CHECK: stablehlo.log_plus_one %arg1 : tensor<2x3xf32>
binary("xlog1py", sp.xlog1py)

# CHECK-LABEL: TEST: ndtr float32[2,3]
# CHECK-DAG: chlo.erfc {{.*}} -> tensor<2x3xf32>
# CHECK-DAG: chlo.erf {{.*}} -> tensor<2x3xf32>
# CHECK: stablehlo.select
unary("ndtr", sp.ndtr)

# CHECK-LABEL: TEST: ndtr_f16 float16[2,3]
# CHECK: stablehlo.convert %arg0 : (tensor<2x3xf16>) -> tensor<2x3xf32>
# CHECK: chlo.erfc {{.*}} -> tensor<2x3xf32>
# CHECK: stablehlo.convert {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf16>
unary("ndtr_f16", sp.ndtr, "float16")

# CHECK-LABEL: TEST: ndtri float64[2,3]
# CHECK: stablehlo.log {{.*}} : tensor<2x3xf64>
# CHECK: stablehlo.sqrt {{.*}} : tensor<2x3xf64>
# CHECK: stablehlo.compare GE, {{.*}}, FLOAT
# CHECK: stablehlo.select {{.*}} : tensor<2x3xi1>, tensor<2x3xf64>
unary("ndtri", sp.ndtri, "float64")

# CHECK-LABEL: TEST: log_ndtr float32[2,3]
# CHECK: chlo.erfc {{.*}} -> tensor<2x3xf32>
# CHECK: stablehlo.log_plus_one {{.*}} : tensor<2x3xf32>
# CHECK: stablehlo.compare GT, %arg0, {{.*}}, FLOAT
# CHECK: stablehlo.select {{.*}} : tensor<2x3xi1>, tensor<2x3xf32>
unary("log_ndtr", sp.log_ndtr)

# CHECK-LABEL: TEST: erfcx float64[2,3]
# CHECK-DAG: stablehlo.exponential {{.*}} : tensor<2x3xf64>
# CHECK-DAG: chlo.erfc %arg0 : tensor<2x3xf64> -> tensor<2x3xf64>
# CHECK: stablehlo.select {{.*}} : tensor<2x3xi1>, tensor<2x3xf64>
unary("erfcx", sp.erfcx, "float64")

# The incomplete gamma and beta functions call jax's lowering, merged as a private function.
# CHECK-LABEL: TEST: gammainc float32[2,3]
# CHECK: %[[A:.+]] = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
# CHECK: %[[P:.+]] = call @[[F:jax_gammainc.*]](%arg0, %[[A]]) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK: stablehlo.select {{.*}}, %[[P]] : tensor<2x3xi1>, tensor<2x3xf32>
# CHECK: func.func private @[[F]](%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<2x3xf32>
binary("gammainc", sp.gammainc, yshape=(3,))

# CHECK-LABEL: TEST: gammaincc float64[2,3]
# CHECK: call @[[F:jax_gammaincc.*]](%arg0, %arg1) : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
# CHECK: func.func private @[[F]](%arg0: tensor<2x3xf64>, %arg1: tensor<2x3xf64>) -> tensor<2x3xf64>
binary("gammaincc", sp.gammaincc, "float64")


def ternary(name, fn, dtype="float32", shape=(2, 3)):
    a, b, x = (hg.tensor(n, shape, dtype) for n in "abx")
    print_ir(name, hg.Graph([a, b, x], fn(a, b, x)))


# CHECK-LABEL: TEST: betainc float16[2,3]
# CHECK: %[[A:.+]] = stablehlo.convert %arg0 : (tensor<2x3xf16>) -> tensor<2x3xf32>
# CHECK: %[[R:.+]] = call @[[F:jax_betainc.*]](%[[A]], {{.*}}) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
# CHECK: stablehlo.convert %[[R]] : (tensor<2x3xf32>) -> tensor<2x3xf16>
# CHECK: func.func private @[[F]](%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<2x3xf32>)
ternary("betainc", sp.betainc, "float16")

# The inverses iterate in one stablehlo.while in float64, calling jax's igamma/igammac/betainc.
# CHECK-LABEL: TEST: gammaincinv float32[2,3]
# CHECK: %[[A:.+]] = stablehlo.convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf64>
# CHECK: stablehlo.while
# CHECK: func.call @[[P:jax_gammaincinv[_0-9]*]](%{{.+}}, %{{.+}}) : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
# CHECK: func.call @[[Q:jax_gammaincinv[_0-9]*]](%{{.+}}, %{{.+}}) : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
# CHECK: stablehlo.convert {{.*}} : (tensor<2x3xf64>) -> tensor<2x3xf32>
# CHECK-DAG: func.func private @[[P]](%arg0: tensor<2x3xf64>, %arg1: tensor<2x3xf64>) -> tensor<2x3xf64>
# CHECK-DAG: func.func private @[[Q]](%arg0: tensor<2x3xf64>, %arg1: tensor<2x3xf64>) -> tensor<2x3xf64>
binary("gammaincinv", sp.gammaincinv, yshape=(3,))

# CHECK-LABEL: TEST: gammainccinv float64[2,3]
# CHECK: stablehlo.while
# CHECK: func.call @jax_gammainccinv{{.*}} -> tensor<2x3xf64>
# CHECK: return {{.*}} : tensor<2x3xf64>
binary("gammainccinv", sp.gammainccinv, "float64")

# CHECK-LABEL: TEST: betaincinv float64[2,3]
# CHECK: stablehlo.while
# CHECK: func.call @[[F:jax_betaincinv[_0-9]*]](%{{.+}}, %{{.+}}, %{{.+}}) : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
# CHECK: func.call @[[F]](
# CHECK: return {{.*}} : tensor<2x3xf64>
# CHECK: func.func private @[[F]](%arg0: tensor<2x3xf64>, %arg1: tensor<2x3xf64>, %arg2: tensor<2x3xf64>)
ternary("betaincinv", sp.betaincinv, "float64")

# ive/kve: float64 throughout; Debye's expansion (asinh), then four bounded loops
# (CF1, Temme's series, CF2, the recurrence for K) and the power series of I (lgamma).
# CHECK-LABEL: TEST: ive float32[2,3]
# CHECK: %[[V:.+]] = stablehlo.convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf64>
# CHECK: chlo.asinh {{.*}} : tensor<2x3xf64> -> tensor<2x3xf64>
# CHECK-COUNT-4: stablehlo.while
# CHECK: chlo.lgamma {{.*}} : tensor<2x3xf64> -> tensor<2x3xf64>
# CHECK: %[[R:.+]] = stablehlo.convert {{.*}} : (tensor<2x3xf64>) -> tensor<2x3xf32>
# CHECK: return %[[R]] : tensor<2x3xf32>
binary("ive", sp.ive)

# CHECK-LABEL: TEST: kve float64[3]
# CHECK: %[[V:.+]] = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf64>) -> tensor<2x3xf64>
# CHECK: chlo.asinh {{.*}} : tensor<2x3xf64> -> tensor<2x3xf64>
# CHECK-COUNT-4: stablehlo.while
# CHECK: return {{.*}} : tensor<2x3xf64>
binary("kve", sp.kve, "float64", xshape=(3,))
