# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.ops import arrange as m
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

# CHECK-LABEL: TEST: trace int32[2,3,4]
# CHECK: %[[D:.+]] = "stablehlo.gather"(%arg0, {{.*}}) -> tensor<2x3xi32>
# CHECK: %[[W:.+]] = stablehlo.convert %[[D]] : (tensor<2x3xi32>) -> tensor<2x3xi64>
# CHECK: stablehlo.reduce(%[[W]] init: {{.*}}) applies stablehlo.add across dimensions = [1] : {{.*}} -> tensor<2xi64>
unary("trace", lambda x: m.trace(x, 0, 1, 2), "int32", (2, 3, 4))

# CHECK-LABEL: TEST: choose int32[3]
# CHECK-DAG: %[[LE:.+]] = stablehlo.compare LE, %arg0, {{.*}} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
# CHECK-DAG: %[[EQ:.+]] = stablehlo.compare EQ, %arg0, {{.*}} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
# CHECK: %[[S:.+]] = stablehlo.select %[[EQ]], {{.*}} : tensor<3xi1>, tensor<3xf32>
# CHECK: stablehlo.select %[[LE]], {{.*}}, %[[S]] : tensor<3xi1>, tensor<3xf32>
unary("choose", lambda a: m.choose(a, [hg.constant([1.0, 2.0, 3.0], "float32"), 4.0, 5.0], mode="clip"),
      "int32", (3,))
