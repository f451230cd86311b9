# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.numpy import indexing as m
from hlograph.testing import print_ir


def unary(name, fn, dtype="float32", shape=(2, 3)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


# CHECK-LABEL: TEST: choose int32[3]
# CHECK-DAG: %[[LE:.+]] = stablehlo.compare LE, %arg0, {{.*}} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
# CHECK-DAG: %[[EQ:.+]] = stablehlo.compare EQ, %arg0, {{.*}} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
# CHECK: %[[S:.+]] = stablehlo.select %[[EQ]], {{.*}} : tensor<3xi1>, tensor<3xf32>
# CHECK: stablehlo.select %[[LE]], {{.*}}, %[[S]] : tensor<3xi1>, tensor<3xf32>
unary("choose", lambda a: m.choose(a, [hg.constant([1.0, 2.0, 3.0], "float32"), 4.0, 5.0], mode="clip"),
      "int32", (3,))
