# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.ops import sort as so
import hlograph.lowering.rules.sort  # noqa: F401
from hlograph.testing import print_ir


def unary(name, fn, dtype="float32", shape=(3, 4)):
    x = hg.tensor("x", shape, dtype)
    out = fn(x)
    print_ir(name, hg.Graph([x], list(out) if isinstance(out, tuple) else out))


# CHECK-LABEL: TEST: sort_last_axis float32[3,4]
# CHECK: stablehlo.sort
# CHECK-SAME: dimension = 1
# CHECK-SAME: is_stable = true
# CHECK: stablehlo.compare LT, %[[A:.+]], %[[B:.+]], TOTALORDER
# CHECK: -> tensor<3x4xf32>
unary("sort_last_axis", so.sort)

# CHECK-LABEL: TEST: sort_descending_int int32[3,4]
# CHECK: stablehlo.sort
# CHECK-SAME: dimension = 0
# CHECK: stablehlo.compare GT, {{.*}}, SIGNED
# CHECK: -> tensor<3x4xi32>
unary("sort_descending_int", lambda x: so.sort(x, axis=0, descending=True), "int32")

# CHECK-LABEL: TEST: sort_flattened float64[3,4]
# CHECK: stablehlo.reshape {{.*}} -> tensor<12xf64>
# CHECK: stablehlo.sort
# CHECK: -> tensor<12xf64>
unary("sort_flattened", lambda x: so.sort(x, axis=None), "float64")

# CHECK-LABEL: TEST: argsort float32[3,4]
# CHECK: stablehlo.iota dim = 1 : tensor<3x4xi64>
# CHECK: stablehlo.sort
# CHECK: -> (tensor<3x4xf32>, tensor<3x4xi64>)
unary("argsort", so.argsort)

# complex keys: a class (2 for a NaN real part, 1 for a NaN imaginary part: NumPy
# sorts those last), then the real and imaginary parts
# CHECK-LABEL: TEST: argsort_complex complex64[5]
# CHECK: stablehlo.sort
# CHECK: stablehlo.real
# CHECK: stablehlo.imag
# CHECK: stablehlo.compare NE, {{.*}} : (tensor<f32>, tensor<f32>) -> tensor<i1>
# CHECK: stablehlo.select {{.*}} : tensor<i1>, tensor<i32>
# CHECK: stablehlo.add {{.*}} : tensor<i32>
# CHECK: stablehlo.compare LT, {{.*}} : (tensor<i32>, tensor<i32>) -> tensor<i1>
# CHECK: -> (tensor<5xcomplex<f32>>, tensor<5xi64>)
unary("argsort_complex", so.argsort, "complex64", (5,))

# CHECK-LABEL: TEST: top_k float32[3,4]
# CHECK: stablehlo.sort
# CHECK: stablehlo.compare GT, {{.*}}, TOTALORDER
# CHECK: stablehlo.slice {{.*}} [0:3, 0:2]
# CHECK: stablehlo.slice {{.*}} [0:3, 0:2]
# CHECK: return {{.*}} tensor<3x2xf32>, tensor<3x2xi64>
unary("top_k", lambda x: so.top_k(x, 2))

# CHECK-LABEL: TEST: partition int64[3,4]
# CHECK: stablehlo.sort
# CHECK: -> tensor<3x4xi64>
unary("partition", lambda x: so.partition(x, 1), "int64")
