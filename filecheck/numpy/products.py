# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.numpy import products as m
from hlograph.testing import print_ir


def unary(name, fn, dtype="float32", shape=(2, 3)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


def binary(name, fn, dtype="float32", xshape=(2, 3), yshape=(2, 3)):
    x, y = hg.tensor("x", xshape, dtype), hg.tensor("y", yshape, dtype)
    print_ir(name, hg.Graph([x, y], fn(x, y)))


# CHECK-LABEL: TEST: vecdot float32[5,3]
# CHECK: stablehlo.dot_general {{.*}} contracting_dims = [2] x [0]
# CHECK-SAME: -> tensor<5x1x1xf32>
# CHECK: stablehlo.reshape {{.*}} -> tensor<5xf32>
binary("vecdot", m.vecdot, "float32", (5, 3), (3,))

# CHECK-LABEL: TEST: trace int32[2,3,4]
# CHECK: %[[D:.+]] = "stablehlo.gather"(%arg0, {{.*}}) -> tensor<2x3xi32>
# CHECK: %[[W:.+]] = stablehlo.convert %[[D]] : (tensor<2x3xi32>) -> tensor<2x3xi64>
# CHECK: stablehlo.reduce(%[[W]] init: {{.*}}) applies stablehlo.add across dimensions = [1] : {{.*}} -> tensor<2xi64>
unary("trace", lambda x: m.trace(x, 0, 1, 2), "int32", (2, 3, 4))
