# RUN: %PYTHON %s | filecheck %s
# Shape-polymorphic lowering: unknown input dims stay `?` in the module, and the
# dynamic StableHLO ops take their sizes from stablehlo.get_dimension_size.
import hlograph as hg


def show(name, inputs, outputs):
    print(f"TEST: {name}")
    print(hg.compile(hg.Graph(inputs, outputs)).lower(symbolic=True).as_text())


# elementwise ops keep the dynamic type; a scalar constant is broadcast to the
# runtime shape
# CHECK-LABEL: TEST: elementwise
# CHECK: func.func public @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32>
# CHECK: %[[B:.+]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
# CHECK: %[[B64:.+]] = stablehlo.convert %[[B]] : (tensor<i32>) -> tensor<i64>
# CHECK: stablehlo.sine %arg0 : tensor<?x4xf32>
# CHECK: stablehlo.dynamic_broadcast_in_dim %{{.+}}, %{{.+}}, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x4xf32>
# CHECK: stablehlo.add %{{.+}} : tensor<?x4xf32>
x = hg.tensor("x", ("b", 4))
show("elementwise", [x], hg.sin(x) + 1.0)

# a named dim shared by two inputs is one size: no broadcast between them
# CHECK-LABEL: TEST: shared_name
# CHECK: @main(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32>
# CHECK-NOT: dynamic_broadcast_in_dim
# CHECK: stablehlo.multiply %arg0, %arg1 : tensor<?x4xf32>
x, y = hg.tensor("x", ("b", 4)), hg.tensor("y", ("b", 4))
show("shared_name", [x, y], x * y)

# two unknown dims broadcast to their maximum
# CHECK-LABEL: TEST: unnamed_broadcast
# CHECK: %[[U:.+]] = stablehlo.convert %{{.+}} : (tensor<i32>) -> tensor<i64>
# CHECK: %[[V:.+]] = stablehlo.convert %{{.+}} : (tensor<i32>) -> tensor<i64>
# CHECK: stablehlo.maximum %[[U]], %[[V]] : tensor<i64>
# CHECK: stablehlo.dynamic_broadcast_in_dim %arg0, %{{.+}}, dims = [0] : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
u, v = hg.tensor("u", (None,)), hg.tensor("v", (None,))
show("unnamed_broadcast", [u, v], u + v)

# reshape computes its runtime shape (4*b); a reduction over the symbolic dim is static
# CHECK-LABEL: TEST: reshape_mean
# CHECK: %[[N:.+]] = stablehlo.multiply %{{.+}}, %{{.+}} : tensor<i64>
# CHECK: stablehlo.dynamic_reshape %arg0, %{{.+}} : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<?xf32>
# CHECK: stablehlo.reduce(%arg0 init: %{{.+}}) applies stablehlo.add across dimensions = [0] : (tensor<?x4xf32>, tensor<f32>) -> tensor<4xf32>
# CHECK: stablehlo.divide
x = hg.tensor("x", ("b", 4))
show("reshape_mean", [x], [hg.reshape(x, (-1,)), x.mean(axis=0)])

# basic slicing with bounds relative to the symbolic size: real_dynamic_slice
# CHECK-LABEL: TEST: slice_drop_last
# CHECK: stablehlo.real_dynamic_slice %arg0, %{{.+}}, %{{.+}}, %{{.+}} : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x4xf32>
x = hg.tensor("x", ("b", 4))
show("slice_drop_last", [x], x[:-1])

# a matmul over the symbolic dim, then iota along it
# CHECK-LABEL: TEST: matmul_iota
# CHECK: stablehlo.dot_general %arg0, %arg1, {{.*}} : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
# CHECK: stablehlo.dynamic_iota %{{.+}}, dim = 0 : (tensor<1xi64>) -> tensor<?xi64>
x, w = hg.tensor("x", ("b", 4)), hg.tensor("w", (4, 3))
show("matmul_iota", [x, w], [x @ w, hg.argsort(hg.sum(x, axis=1))])
