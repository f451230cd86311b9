# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.numpy import math as m
from hlograph.testing import print_ir


def unary(name, fn, dtype="float32", shape=(2, 3)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


def binary(name, fn, dtype="float32", xshape=(2, 3), yshape=(2, 3)):
    x, y = hg.tensor("x", xshape, dtype), hg.tensor("y", yshape, dtype)
    print_ir(name, hg.Graph([x, y], fn(x, y)))


def case(name, fn, dtype="float32", shape=(4, 3)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


# CHECK-LABEL: TEST: rint int32[4]
# CHECK: %[[X:.+]] = stablehlo.convert %arg0 : (tensor<4xi32>) -> tensor<4xf64>
# CHECK: stablehlo.round_nearest_even %[[X]] : tensor<4xf64>
unary("rint", m.rint, "int32", (4,))

# CHECK-LABEL: TEST: gcd int32[4]
# CHECK: stablehlo.while
# CHECK: stablehlo.reduce
# CHECK-SAME: applies stablehlo.or
# CHECK: stablehlo.remainder {{.*}} : tensor<4xui32>
# CHECK: return {{.*}} : tensor<4xi32>
binary("gcd", m.gcd, "int32", (4,), (4,))

# CHECK-LABEL: TEST: heaviside float64[3]
# CHECK: %[[NAN:.+]] = stablehlo.compare NE, %arg0, %arg0
# CHECK: %[[NEG:.+]] = stablehlo.compare LT, %arg0
# CHECK: %[[POS:.+]] = stablehlo.compare GT, %arg0
# CHECK: stablehlo.select %[[POS]], {{.*}}, %arg1
# CHECK: stablehlo.select %[[NEG]]
# CHECK: stablehlo.select %[[NAN]], %arg0, {{.*}} : tensor<3xi1>, tensor<3xf64>
binary("heaviside", m.heaviside, "float64", (3,), (3,))

# (float64: float32 arccos lowers to a polynomial on the CPU, see ops/fast_math.py)
# CHECK-LABEL: TEST: acos float64[4,3]
# CHECK: chlo.acos %arg0 : tensor<4x3xf64> -> tensor<4x3xf64>
case("acos", m.acos, "float64")

# CHECK-LABEL: TEST: bitwise_left_shift int32[4,3]
# CHECK: stablehlo.shift_left
case("bitwise_left_shift", lambda x: m.bitwise_left_shift(x, 2), "int32")

# Horner's rule: multiply then add per coefficient
# CHECK-LABEL: TEST: polyval float64[4,3]
# CHECK: stablehlo.multiply
# CHECK: stablehlo.add
# CHECK: stablehlo.multiply
# CHECK: stablehlo.add
case("polyval", lambda x: m.polyval([2.0, -1.0, 0.5], x), "float64")
