# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.numpy import linalg as la
from hlograph.testing import print_ir


def case(name, fn, *specs):
    xs = [hg.tensor(f"x{i}", shape, dtype) for i, (shape, dtype) in enumerate(specs)]
    print_ir(name, hg.Graph(xs, fn(*xs)))


# CHECK-LABEL: TEST: vecdot complex64[2,4,3]
# CHECK: %[[RE:.+]] = stablehlo.real %arg0
# CHECK: %[[IM:.+]] = stablehlo.imag %arg0
# CHECK: %[[NEG:.+]] = stablehlo.negate %[[IM]]
# CHECK: %[[CONJ:.+]] = stablehlo.complex %[[RE]], %[[NEG]]
# CHECK: stablehlo.dot_general %[[CONJ]], %arg1, batching_dims = [1] x [0], contracting_dims = [2] x [1]
# CHECK-SAME: (tensor<2x4x3xcomplex<f32>>, tensor<4x3xcomplex<f32>>) -> tensor<4x2xcomplex<f32>>
# CHECK: stablehlo.transpose {{.*}} -> tensor<2x4xcomplex<f32>>
case("vecdot", la.vecdot, ((2, 4, 3), "complex64"), ((4, 3), "complex64"))

# CHECK-LABEL: TEST: matrix_transpose float32[2,3,4]
# CHECK: stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
case("matrix_transpose", la.matrix_transpose, ((2, 3, 4), "float32"))

# CHECK-LABEL: TEST: trace int32[3,3]
# CHECK: %[[D:.+]] = "stablehlo.gather"(%arg0, {{.*}}) -> tensor<3xi32>
# CHECK: %[[W:.+]] = stablehlo.convert %[[D]] : (tensor<3xi32>) -> tensor<3xi64>
# CHECK: stablehlo.reduce(%[[W]] init: {{.*}}) applies stablehlo.add across dimensions = [0]
# CHECK-SAME: -> tensor<i64>
case("trace", la.trace, ((3, 3), "int32"))

# the cheapest order: x0 @ (x1 @ x2)
# CHECK-LABEL: TEST: multi_dot float64[10,2]
# CHECK: %[[R:.+]] = stablehlo.dot_general %arg1, %arg2, contracting_dims = [1] x [0]
# CHECK-SAME: -> tensor<2x4xf64>
# CHECK: stablehlo.dot_general %arg0, %[[R]], contracting_dims = [1] x [0]
# CHECK-SAME: -> tensor<10x4xf64>
case("multi_dot", lambda *xs: la.multi_dot(xs), ((10, 2), "float64"), ((2, 30), "float64"),
     ((30, 4), "float64"))

# CHECK-LABEL: TEST: cond float64[2,3,3]
# CHECK: %[[S:.+]] = call @[[F:jax_svd.*]](%arg0) : (tensor<2x3x3xf64>) -> tensor<2x3xf64>
# CHECK: stablehlo.divide {{.*}} : tensor<2xf64>
# CHECK: stablehlo.select {{.*}} : tensor<2xi1>, tensor<2xf64>
# CHECK: func.func private @[[F]]
# CHECK: stablehlo.custom_call @lapack_dgesdd_ffi
case("cond", la.cond, ((2, 3, 3), "float64"))
