# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
import hlograph.lowering.rules.blockwise  # noqa: F401
import hlograph.lowering.rules.linalg  # noqa: F401
import hlograph.lowering.rules.reduction  # noqa: F401
from hlograph.frontend.ops import blockwise as bw
from hlograph.frontend.ops import linalg as la
from hlograph.frontend.ops import reduction as red
from hlograph.testing import print_ir


def case(name, op, *shapes, dtype="float32"):
    xs = [hg.tensor(f"x{i}", s, dtype) for i, s in enumerate(shapes)]
    print_ir(name, hg.Graph(xs, op(*xs)))


row_sum = bw.Blockwise(red.Sum(axis=-1), "(m,n)->(m)")

# A small batch is unrolled: the core rule once per element on static slices.
# CHECK-LABEL: TEST: sum_unrolled float32[2,3,4]
# CHECK: %[[S0:.+]] = stablehlo.slice %arg0 [0:1, 0:3, 0:4] : (tensor<2x3x4xf32>) -> tensor<1x3x4xf32>
# CHECK: %[[C0:.+]] = stablehlo.reshape %[[S0]] : (tensor<1x3x4xf32>) -> tensor<3x4xf32>
# CHECK: %[[R0:.+]] = stablehlo.reduce(%[[C0]] init: {{.+}}) applies stablehlo.add across dimensions = [1]
# CHECK: %[[O0:.+]] = stablehlo.reshape %[[R0]] : (tensor<3xf32>) -> tensor<1x3xf32>
# CHECK: stablehlo.slice %arg0 [1:2, 0:3, 0:4]
# CHECK: %[[O1:.+]] = stablehlo.reshape {{.+}} : (tensor<3xf32>) -> tensor<1x3xf32>
# CHECK: stablehlo.concatenate %[[O0]], %[[O1]], dim = 0 : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
# CHECK-NOT: stablehlo.while
case("sum_unrolled", row_sum, (2, 3, 4))

# A large batch loops: dynamic_slice in, the core rule once in the body, dynamic_update_slice out.
# CHECK-LABEL: TEST: sum_loop float32[2,5,3,4]
# CHECK: %[[X:.+]] = stablehlo.reshape %arg0 : (tensor<2x5x3x4xf32>) -> tensor<10x3x4xf32>
# CHECK: stablehlo.while({{.*}} = %[[X]]) : tensor<i64>, tensor<10x3xf32>, tensor<10x3x4xf32>
# CHECK: stablehlo.compare LT
# CHECK: stablehlo.dynamic_slice {{.*}} sizes = [1, 3, 4] : (tensor<10x3x4xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<1x3x4xf32>
# CHECK: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
# CHECK: stablehlo.dynamic_update_slice {{.*}} : (tensor<10x3xf32>, tensor<1x3xf32>, tensor<i64>, tensor<i64>) -> tensor<10x3xf32>
# CHECK: stablehlo.reshape {{.*}} : (tensor<10x3xf32>) -> tensor<2x5x3xf32>
case("sum_loop", row_sum, (2, 5, 3, 4))

# CHECK-LABEL: TEST: sum_empty float32[0,3,4]
# CHECK: %[[Z:.+]] = stablehlo.constant dense<0.000000e+00> : tensor<0x3xf32>
# CHECK: return %[[Z]] : tensor<0x3xf32>
case("sum_empty", row_sum, (0, 3, 4))

# Batch dims broadcast first; a traced function becomes a Composite, called per element.
# CHECK-LABEL: TEST: matmul_broadcast float32[2,1,3,4]
# CHECK: stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2, 3] : (tensor<2x1x3x4xf32>) -> tensor<2x2x3x4xf32>
# CHECK: stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3] : (tensor<2x4x5xf32>) -> tensor<2x2x4x5xf32>
# CHECK-COUNT-4: call @[[F:matmul.*]]({{.*}}) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
# CHECK: stablehlo.concatenate {{.*}} -> tensor<4x3x5xf32>
# CHECK: stablehlo.reshape {{.*}} : (tensor<4x3x5xf32>) -> tensor<2x2x3x5xf32>
# CHECK: func.func private @[[F]]
# CHECK: stablehlo.dot_general
case("matmul_broadcast", bw.blockwise(hg.matmul, "(m,n),(n,p)->(m,p)"), (2, 1, 3, 4), (2, 4, 5))

# A core op lowered by jax: its func.call sits in the loop body, two outputs stacked.
# CHECK-LABEL: TEST: slogdet_loop float64[9,3,3]
# CHECK: stablehlo.while({{.*}}) : tensor<i64>, tensor<9xf64>, tensor<9xf64>, tensor<9x3x3xf64>
# CHECK: call @[[F:jax_slogdet.*]]({{.*}}) : (tensor<3x3xf64>) -> (tensor<f64>, tensor<f64>)
# CHECK-COUNT-2: stablehlo.dynamic_update_slice {{.*}} : (tensor<9xf64>, tensor<1xf64>, tensor<i64>) -> tensor<9xf64>
# CHECK: func.func private @[[F]](%arg0: tensor<3x3xf64>)
case("slogdet_loop", bw.Blockwise(la.Slogdet(), "(n,n)->(),()"), (9, 3, 3), dtype="float64")
