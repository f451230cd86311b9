# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.ops import mathx as m
from hlograph.testing import print_ir


def unary(name, fn, dtype="float32", shape=(2, 3)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


def binary(name, fn, dtype="float32", xshape=(2, 3), yshape=(2, 3)):
    x, y = hg.tensor("x", xshape, dtype), hg.tensor("y", yshape, dtype)
    print_ir(name, hg.Graph([x, y], fn(x, y)))


# CHECK-LABEL: TEST: isclose float32[2,3]
# CHECK: %[[D:.+]] = stablehlo.subtract %arg0, %arg1 : tensor<2x3xf32>
# CHECK: %[[LE:.+]] = stablehlo.compare LE, {{.*}} -> tensor<2x3xi1>
# CHECK: stablehlo.is_finite %arg1
# CHECK: %[[EQ:.+]] = stablehlo.compare EQ, %arg0, %arg1, FLOAT
# CHECK: stablehlo.or {{.*}}, %[[EQ]] : tensor<2x3xi1>
binary("isclose", m.isclose)

# CHECK-LABEL: TEST: rint int32[4]
# CHECK: %[[X:.+]] = stablehlo.convert %arg0 : (tensor<4xi32>) -> tensor<4xf64>
# CHECK: stablehlo.round_nearest_even %[[X]] : tensor<4xf64>
unary("rint", m.rint, "int32", (4,))

# CHECK-LABEL: TEST: gcd int32[4]
# CHECK: stablehlo.while
# CHECK: stablehlo.reduce
# CHECK-SAME: applies stablehlo.or
# CHECK: stablehlo.remainder {{.*}} : tensor<4xi32>
# CHECK: return {{.*}} : tensor<4xi32>
binary("gcd", m.gcd, "int32", (4,), (4,))

# CHECK-LABEL: TEST: vecdot float32[5,3]
# CHECK: stablehlo.dot_general {{.*}} contracting_dims = [2] x [0]
# CHECK-SAME: -> tensor<5x1x1xf32>
# CHECK: stablehlo.reshape {{.*}} -> tensor<5xf32>
binary("vecdot", m.vecdot, "float32", (5, 3), (3,))

# CHECK-LABEL: TEST: correlate float32[8]
# CHECK-NOT: stablehlo.reverse
# CHECK: stablehlo.convolution
# CHECK-SAME: -> tensor<1x1x6xf32>
binary("correlate", m.correlate, "float32", (8,), (3,))

# CHECK-LABEL: TEST: heaviside float64[3]
# CHECK: %[[NAN:.+]] = stablehlo.compare NE, %arg0, %arg0
# CHECK: %[[NEG:.+]] = stablehlo.compare LT, %arg0
# CHECK: %[[POS:.+]] = stablehlo.compare GT, %arg0
# CHECK: stablehlo.select %[[POS]], {{.*}}, %arg1
# CHECK: stablehlo.select %[[NEG]]
# CHECK: stablehlo.select %[[NAN]], %arg0, {{.*}} : tensor<3xi1>, tensor<3xf64>
binary("heaviside", m.heaviside, "float64", (3,), (3,))
