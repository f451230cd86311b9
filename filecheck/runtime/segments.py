# RUN: %PYTHON %s | filecheck %s
# The segment listing of graphs that mix device ops and host ops.
import hlograph as hg


def show(case, graph):
    print(f"TEST: {case}")
    fn = hg.compile(graph)
    print(fn.explain())
    print(fn.lower().as_text())


# CHECK-LABEL: TEST: mask_between_device_ops
# CHECK-NEXT: 3 segments
# CHECK-NEXT: segment 0: device (StableHLO, PJRT); reads x
# CHECK: Exp: StableHLO lowering
# CHECK: segment 1: host (Numba, one compiled function)
# CHECK-NEXT: BooleanMask: output shape depends on values (Numba)
# CHECK: segment 2: device (StableHLO, PJRT); lowered at run time: its input shapes depend on values
# CHECK: Sum: StableHLO lowering
# CHECK: // 3 segments
# CHECK: // ----- segment 0 (device)
# CHECK: func.func public @main(%arg0: tensor<8xf32>)
# CHECK: stablehlo.exponential
# CHECK-NOT: segment 2 (device)
x = hg.tensor("x", (8,), "float32")
e = hg.exp(x)
show("mask_between_device_ops", hg.Graph([x], hg.sum(hg.boolean_mask(e, e > 2.0))))

# CHECK-LABEL: TEST: independent_host_ops_share_a_segment
# CHECK-NEXT: 3 segments
# CHECK: segment 1: host (Numba, one compiled function)
# CHECK-NEXT: Unique: output shape depends on values (Numba)
# CHECK-NEXT: FlatNonzero: output shape depends on values (Numba)
# CHECK: segment 2: device
i = hg.tensor("i", (6,), "int64")
j = i * 2
show("independent_host_ops_share_a_segment",
     hg.Graph([i], [hg.sum(hg.unique(j)), hg.sum(hg.flatnonzero(j))]))

# CHECK-LABEL: TEST: host_only_graph
# CHECK-NEXT: 1 segment
# CHECK-NEXT: segment 0: host (Numba, one compiled function); reads n
# CHECK-NEXT: DynamicEye: output shape depends on values (Numba)
n = hg.scalar("n", "int64")
show("host_only_graph", hg.Graph([n], hg.dynamic_eye(n)))
