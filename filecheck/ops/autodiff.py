# RUN: %PYTHON %s | filecheck %s
# Gradient graphs lower like any graph: forward values are reused, broadcasts are
# summed back (SumToLike once shapes are known), stop_gradient is the identity.
import hlograph as hg
from hlograph.testing import print_ir

# (float64: float32 sin/cos lower to polynomials on the CPU, see ops/fast_math.py)
# CHECK-LABEL: TEST: grad_exp_sin float64[2,3]
# CHECK: %[[E:.+]] = stablehlo.exponential %arg0 : tensor<2x3xf64>
# CHECK-NOT: stablehlo.exponential
# CHECK: %[[C:.+]] = stablehlo.cosine %arg0
# CHECK: stablehlo.multiply %[[E]], %[[C]]
# CHECK: %[[S:.+]] = stablehlo.sine %arg0
# CHECK: stablehlo.multiply %[[E]], %[[S]]
# CHECK: stablehlo.add
# CHECK-NEXT: return {{.*}} : tensor<2x3xf64>
x = hg.tensor("x", (2, 3), "float64")
print_ir("grad_exp_sin", hg.Graph([x], hg.grad(hg.sum(hg.exp(x) * hg.sin(x)), x)), pipeline="O2")

# CHECK-LABEL: TEST: grad_matmul float32[2,3]
# CHECK: %[[Y:.+]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0]
# CHECK: %[[T:.+]] = stablehlo.tanh %[[Y]]
# CHECK: %[[T2:.+]] = stablehlo.multiply %[[T]], %[[T]]
# CHECK: %[[S:.+]] = stablehlo.subtract {{.*}}, %[[T2]]
# CHECK: %[[D:.+]] = stablehlo.multiply {{.*}}, %[[S]] : tensor<2x4xf32>
# CHECK: stablehlo.dot_general %[[D]], %arg1, contracting_dims = [1] x [1]
# CHECK-SAME: -> tensor<2x3xf32>
# CHECK: %[[GW:.+]] = stablehlo.dot_general %[[D]], %arg0, contracting_dims = [0] x [0]
# CHECK-SAME: -> tensor<4x3xf32>
# CHECK: stablehlo.transpose %[[GW]], dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
a = hg.tensor("a", (2, 3), "float32")
w = hg.tensor("w", (3, 4), "float32")
print_ir("grad_matmul", hg.Graph([a, w], hg.grad(hg.sum(hg.tanh(a @ w)), [a, w])))

# a bias whose dim 0 is unknown: the sum over the broadcast dim is resolved at lowering
# CHECK-LABEL: TEST: grad_bias float64[?,3]
# CHECK: func.func public @main(%arg0: tensor<4x3xf64>, %arg1: tensor<1x3xf64>) -> tensor<1x3xf64>
# CHECK: %[[R:.+]] = stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [0]
# CHECK-SAME: -> tensor<3xf64>
# CHECK: stablehlo.reshape %[[R]] : (tensor<3xf64>) -> tensor<1x3xf64>
x = hg.tensor("x", (None, 3), "float64")
b = hg.tensor("b", (None, 3), "float64")
print_ir("grad_bias", hg.Graph([x, b], hg.grad(hg.sum(hg.tanh(x + b)), b)),
         ((4, 3), "float64"), ((1, 3), "float64"))

# CHECK-LABEL: TEST: stop_gradient float32[3]
# CHECK-NEXT: module
# CHECK-NEXT: func.func public @main(%arg0: tensor<3xf32>)
# CHECK-NEXT: stablehlo.constant dense<2.000000e+00>
# CHECK-NEXT: stablehlo.broadcast_in_dim
# CHECK-NEXT: stablehlo.multiply %arg0
x = hg.tensor("x", (3,), "float32")
print_ir("stop_gradient", hg.Graph([x], hg.stop_gradient(x) * 2.0))

# the max's gradient splits among ties: a mask divided by the count of maxima
# CHECK-LABEL: TEST: grad_max float32[3]
# CHECK: %[[M:.+]]:2 = stablehlo.reduce
# CHECK: %[[EQ:.+]] = stablehlo.compare EQ, %arg0, {{.*}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
# (bool -> float is a select of 1 and 0: XLA would turn a convert times y into a select)
# CHECK: %[[MASK:.+]] = stablehlo.select %[[EQ]], {{.*}} : tensor<3xi1>, tensor<3xf32>
# CHECK: stablehlo.reduce(%[[MASK]] init: {{.*}}) applies stablehlo.add
# CHECK: stablehlo.divide %[[MASK]], {{.*}} : tensor<3xf32>
print_ir("grad_max", hg.Graph([x], hg.grad(hg.max(x), x)), pipeline="O2")

# a reshape of an input with two unknown dims: the cotangent is reshaped back (ReshapeLike)
# CHECK-LABEL: TEST: grad_reshape_unknown_dims float64[?,?]
# CHECK: func.func public @main(%arg0: tensor<2x3xf64>) -> tensor<2x3xf64>
# CHECK: %[[G:.+]] = stablehlo.multiply {{.*}} : tensor<6xf64>
# CHECK: %[[R:.+]] = stablehlo.reshape %[[G]] : (tensor<6xf64>) -> tensor<2x3xf64>
# CHECK: return %[[R]]
x = hg.tensor("x", (None, None), "float64")
print_ir("grad_reshape_unknown_dims", hg.Graph([x], hg.grad(hg.sum(hg.reshape(x, -1) ** 2), x)),
         ((2, 3), "float64"), pipeline="O2")

# a concatenation of pieces of unknown sizes: the cotangent is sliced (SplitLike)
# CHECK-LABEL: TEST: grad_concatenate_unknown_sizes float64[?,2]
# CHECK: func.func public @main(%arg0: tensor<3x2xf64>, %arg1: tensor<1x2xf64>)
# CHECK: %[[C:.+]] = stablehlo.cosine {{.*}} : tensor<4x2xf64>
# CHECK-DAG: stablehlo.slice %[[C]] [0:3, 0:2] : (tensor<4x2xf64>) -> tensor<3x2xf64>
# CHECK-DAG: stablehlo.slice %[[C]] [3:4, 0:2] : (tensor<4x2xf64>) -> tensor<1x2xf64>
a = hg.tensor("a", (None, 2), "float64")
b = hg.tensor("b", (None, 2), "float64")
print_ir("grad_concatenate_unknown_sizes",
         hg.Graph([a, b], hg.grad(hg.sum(hg.sin(hg.concatenate([a, b]))), [a, b])),
         ((3, 2), "float64"), ((1, 2), "float64"), pipeline="O2")
