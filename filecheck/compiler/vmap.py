# RUN: %PYTHON %s | filecheck %s
# hg.vmap vectorizes the traced graph: one batched computation (batched
# dot_general, reductions shifted past the batch axis), never a loop.
import hlograph as hg


def show(name, inputs, outputs):
    print(f"TEST: {name}")
    print(hg.compile(hg.Graph(inputs, outputs)).lower().as_text())


# one side mapped: the batch axis is a free dim of the dot_general
# CHECK-LABEL: TEST: mapped_lhs
# CHECK: func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<4x3xf32>) -> tensor<8x3xf32>
# CHECK-NOT: stablehlo.while
# CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0]{{.*}} : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
# CHECK: stablehlo.tanh %{{.+}} : tensor<8x3xf32>
# CHECK-NOT: stablehlo.while
w = hg.tensor("w", (4, 3), "float32")
xs = hg.tensor("xs", (8, 4), "float32")
show("mapped_lhs", [xs, w], hg.vmap(lambda x, w: hg.tanh(x @ w), in_axes=(0, None))(xs, w))

# both sides mapped: a batching dim of the dot_general; the per-example sum
# reduces the dim after the batch axis
# CHECK-LABEL: TEST: mapped_both
# CHECK: func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<8x4x3xf32>) -> tensor<8xf32>
# CHECK-NOT: stablehlo.while
# CHECK: stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [1] x [1]{{.*}} -> tensor<8x3xf32>
# CHECK: stablehlo.reduce(%{{.+}} init: %{{.+}}) applies stablehlo.add across dimensions = [1] : (tensor<8x3xf32>, tensor<f32>) -> tensor<8xf32>
# CHECK-NOT: stablehlo.while
ws = hg.tensor("ws", (8, 4, 3), "float32")
show("mapped_both", [xs, ws], hg.vmap(lambda x, w: hg.sum(x @ w))(xs, ws))

# a Jacobian is one vjp vectorized over the identity: no loop, no per-row copies
# CHECK-LABEL: TEST: jacobian
# CHECK: func.func public @main(%arg0: tensor<16xf32>) -> tensor<16x16xf32>
# CHECK-NOT: stablehlo.while
# CHECK: stablehlo.tanh %arg0 : tensor<16xf32>
# CHECK-NOT: stablehlo.tanh
# CHECK-NOT: stablehlo.while
# CHECK: return %{{.+}} : tensor<16x16xf32>
x = hg.tensor("x", (16,), "float32")
show("jacobian", [x], hg.jacobian(hg.tanh(x) * hg.sum(x), x))
