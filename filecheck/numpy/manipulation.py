# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.numpy import manipulation as m
from hlograph.testing import print_ir


def unary(name, fn, dtype="float32", shape=(2, 3)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


# CHECK-LABEL: TEST: rot90 float32[2,3]
# CHECK: %[[R:.+]] = stablehlo.reverse %arg0, dims = [1] : tensor<2x3xf32>
# CHECK: stablehlo.transpose %[[R]], dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
unary("rot90", m.rot90)

# CHECK-LABEL: TEST: moveaxis int32[2,3,4]
# CHECK: stablehlo.transpose %arg0, dims = [1, 2, 0] : (tensor<2x3x4xi32>) -> tensor<3x4x2xi32>
unary("moveaxis", lambda x: m.moveaxis(x, 0, -1), "int32", (2, 3, 4))


# CHECK-LABEL: TEST: vstack float32[3]
# CHECK: stablehlo.reshape %arg0 : (tensor<3xf32>) -> tensor<1x3xf32>
# CHECK: stablehlo.convert %arg1 : (tensor<3xi8>) -> tensor<3xf32>
# CHECK: stablehlo.concatenate {{.*}}, dim = 0 : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
def vstack():
    a, b = hg.tensor("a", (3,), "float32"), hg.tensor("b", (3,), "int8")
    print_ir("vstack", hg.Graph([a, b], m.vstack([a, b])))


vstack()

# CHECK-LABEL: TEST: delete float32[2,6]
# CHECK-DAG: stablehlo.slice %arg0 [0:2, 0:1] : (tensor<2x6xf32>) -> tensor<2x1xf32>
# CHECK-DAG: stablehlo.slice %arg0 [0:2, 2:4] : (tensor<2x6xf32>) -> tensor<2x2xf32>
# CHECK-DAG: stablehlo.slice %arg0 [0:2, 5:6] : (tensor<2x6xf32>) -> tensor<2x1xf32>
# CHECK: stablehlo.concatenate {{.*}}, dim = 1 : {{.*}} -> tensor<2x4xf32>
# CHECK-NOT: stablehlo.gather
unary("delete", lambda x: m.delete(x, [1, -2], axis=1), shape=(2, 6))

# roll is two slices and a concatenate.
# CHECK-LABEL: TEST: roll float64[5]
# CHECK: %[[A:.+]] = stablehlo.slice %arg0 [3:5] : (tensor<5xf64>) -> tensor<2xf64>
# CHECK: %[[B:.+]] = stablehlo.slice %arg0 [0:3] : (tensor<5xf64>) -> tensor<3xf64>
# CHECK: stablehlo.concatenate %[[A]], %[[B]], dim = 0 : (tensor<2xf64>, tensor<3xf64>) -> tensor<5xf64>
x = hg.tensor("x", (5,), "float64")
print_ir("roll", hg.Graph([x], m.roll(x, 2)))

# tile broadcasts a reshaped input and merges dims.
# CHECK-LABEL: TEST: tile float32[2,3]
# CHECK: %[[R:.+]] = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<1x2x1x3xf32>
# CHECK: %[[B:.+]] = stablehlo.broadcast_in_dim %[[R]], dims = [0, 1, 2, 3] : (tensor<1x2x1x3xf32>) -> tensor<2x2x2x3xf32>
# CHECK: stablehlo.reshape %[[B]] : (tensor<2x2x2x3xf32>) -> tensor<4x6xf32>
x = hg.tensor("x", (2, 3), "float32")
print_ir("tile", hg.Graph([x], m.tile(x, (2, 2))))
