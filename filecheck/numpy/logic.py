# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.numpy import logic as m
from hlograph.testing import print_ir


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
