# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.numpy import statistics as m
from hlograph.testing import print_ir


def unary(name, fn, dtype="float32", shape=(3, 4)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


def binary(name, fn, dtype="float32", xshape=(2, 3), yshape=(2, 3)):
    x, y = hg.tensor("x", xshape, dtype), hg.tensor("y", yshape, dtype)
    print_ir(name, hg.Graph([x, y], fn(x, y)))


# CHECK-LABEL: TEST: nanmax float32[3,4]
# CHECK: %[[NAN:.+]] = stablehlo.compare NE, %arg0, %arg0, FLOAT
# CHECK: %[[ALL:.+]] = stablehlo.reduce(%[[NAN]] init: {{.*}}) applies stablehlo.and across dimensions = [1]
# CHECK: %[[FILLED:.+]] = stablehlo.select %[[NAN]], {{.*}}, %arg0 : tensor<3x4xi1>, tensor<3x4xf32>
# CHECK: stablehlo.reduce(%[[FILLED]] init: {{.*}}) across dimensions = [1]
# CHECK: stablehlo.maximum
# CHECK: stablehlo.select %[[ALL]], {{.*}} : tensor<3xi1>, tensor<3xf32>
unary("nanmax", lambda x: m.nanmax(x, axis=1))

# CHECK-LABEL: TEST: median float32[3,4]
# CHECK: %[[S:.+]] = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}>
# CHECK: stablehlo.slice %[[S]] [0:3, 3:4] : (tensor<3x4xf32>) -> tensor<3x1xf32>
# CHECK: stablehlo.slice %[[S]] [0:3, 1:3] : (tensor<3x4xf32>) -> tensor<3x2xf32>
# CHECK: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [1]
# CHECK: stablehlo.divide {{.*}} : tensor<3xf32>
unary("median", lambda x: m.median(x, axis=-1))

# CHECK-LABEL: TEST: count_nonzero int32[3,4]
# CHECK: %[[NZ:.+]] = stablehlo.compare NE, %arg0, {{.*}}, SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
# CHECK: %[[I:.+]] = stablehlo.convert %[[NZ]] : (tensor<3x4xi1>) -> tensor<3x4xi64>
# CHECK: stablehlo.reduce(%[[I]] init: {{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<3x4xi64>, tensor<i64>) -> tensor<4xi64>
unary("count_nonzero", lambda x: m.count_nonzero(x, axis=0), "int32")

# CHECK-LABEL: TEST: cumulative_sum float32[3,4]
# CHECK: %[[C:.+]] = "stablehlo.reduce_window"(%arg0, {{.*}}) <{padding = dense<{{\[\[}}0, 0], [3, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 4>
# CHECK: stablehlo.add
# CHECK: stablehlo.concatenate {{.*}}, %[[C]], dim = 1 : (tensor<3x1xf32>, tensor<3x4xf32>) -> tensor<3x5xf32>
unary("cumulative_sum", lambda x: m.cumulative_sum(x, axis=1, include_initial=True))

# CHECK-LABEL: TEST: digitize float64[3,4]
# CHECK: %[[B:.+]] = stablehlo.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf64>
# CHECK: stablehlo.broadcast_in_dim %[[B]], dims = [2] : (tensor<3xf64>) -> tensor<3x4x3xf64>
# CHECK: stablehlo.compare LE
# CHECK: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [2] : (tensor<3x4x3xi64>, tensor<i64>) -> tensor<3x4xi64>
unary("digitize", lambda x: m.digitize(x, [0.0, 1.0, 2.0]), "float64")

# CHECK-LABEL: TEST: correlate float32[8]
# CHECK-NOT: stablehlo.reverse
# CHECK: stablehlo.convolution
# CHECK-SAME: -> tensor<1x1x6xf32>
binary("correlate", m.correlate, "float32", (8,), (3,))
