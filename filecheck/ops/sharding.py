# RUN: %PYTHON %s | filecheck %s
import jax

jax.config.update("jax_num_cpu_devices", 8)

import hlograph as hg  # noqa: E402
import hlograph.lowering.rules.sharding  # noqa: E402,F401
from hlograph.frontend.ops.sharding import with_sharding  # noqa: E402
from hlograph.runtime.mesh import P, make_mesh  # noqa: E402
from hlograph.testing import print_ir  # noqa: E402


def print_sharded(case, graph, mesh, in_shardings=None, out_shardings=None):
    print(f"TEST: {case} {graph.inputs[0].type}")
    fn = hg.compile(graph, pipeline="O0", mesh=mesh, in_shardings=in_shardings, out_shardings=out_shardings)
    print(fn.lower().as_text())


mesh_2x4 = make_mesh((2, 4), ("x", "y"))

# CHECK-LABEL: TEST: with_sharding_no_mesh float32[8,4]
# CHECK-NOT: sdy.
# CHECK: stablehlo.exponential %arg0 : tensor<8x4xf32>
x = hg.tensor("x", (8, 4), "float32")
print_ir("with_sharding_no_mesh", hg.Graph([x], hg.exp(with_sharding(x, P("x", None)))))

# CHECK-LABEL: TEST: with_sharding_mesh float32[8,4]
# CHECK: mhlo.num_partitions = 8 : i32
# CHECK: sdy.mesh @mesh = <["x"=2, "y"=4]>
# CHECK: %[[C:.+]] = sdy.sharding_constraint %arg0 <@mesh, [{"y"}, {"x"}]> : tensor<8x4xf32>
# CHECK: stablehlo.exponential %[[C]] : tensor<8x4xf32>
x = hg.tensor("x", (8, 4), "float32")
print_sharded("with_sharding_mesh", hg.Graph([x], hg.exp(with_sharding(x, P("y", "x")))), mesh_2x4)

# CHECK-LABEL: TEST: with_sharding_multi_axis float32[8,4]
# CHECK: sdy.sharding_constraint {{.*}} <@mesh, [{}, {"x", "y"}]> : tensor<8x4xf32>
x = hg.tensor("x", (8, 4), "float32")
print_sharded("with_sharding_multi_axis", hg.Graph([x], hg.exp(with_sharding(x, P(None, ("x", "y"))))), mesh_2x4)

# CHECK-LABEL: TEST: in_out_shardings float32[8,4]
# CHECK: func.func public @main
# CHECK-SAME: %arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}
# CHECK-SAME: %arg1: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}
# CHECK-SAME: -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}, tensor<f32>)
x = hg.tensor("x", (8, 4), "float32")
b = hg.tensor("b", (4,), "float32")
print_sharded("in_out_shardings", hg.Graph([x, b], [x + b, hg.sum(x)]), mesh_2x4,
              in_shardings=[P("x"), None], out_shardings=[P("x", "y"), None])
