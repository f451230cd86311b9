# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.testing import print_ir


def index(name, idx, dtype="float32", shape=(4, 5)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], x[idx]))


# CHECK-LABEL: TEST: getitem_int float32[4,5]
# CHECK: %[[S:.+]] = stablehlo.slice %arg0 [1:2, 0:5] : (tensor<4x5xf32>) -> tensor<1x5xf32>
# CHECK: stablehlo.reshape %[[S]] : (tensor<1x5xf32>) -> tensor<5xf32>
index("getitem_int", 1)

# CHECK-LABEL: TEST: getitem_negative_int int8[4,5]
# CHECK: stablehlo.slice %arg0 [0:4, 4:5] : (tensor<4x5xi8>) -> tensor<4x1xi8>
# CHECK: stablehlo.reshape {{.*}} -> tensor<4xi8>
index("getitem_negative_int", (slice(None), -1), "int8")

# CHECK-LABEL: TEST: getitem_strided float32[4,5]
# CHECK: stablehlo.slice %arg0 [1:4:2, 0:5] : (tensor<4x5xf32>) -> tensor<2x5xf32>
# CHECK-NOT: stablehlo.reshape
index("getitem_strided", slice(1, None, 2))

# A negative step slices the same elements in ascending order, then reverses.
# CHECK-LABEL: TEST: getitem_negative_step complex128[4,5]
# CHECK: %[[S:.+]] = stablehlo.slice %arg0 [0:4, 0:5:2] : (tensor<4x5xcomplex<f64>>) -> tensor<4x3xcomplex<f64>>
# CHECK: stablehlo.reverse %[[S]], dims = [1] : tensor<4x3xcomplex<f64>>
index("getitem_negative_step", (Ellipsis, slice(None, None, -2)), "complex128")

# CHECK-LABEL: TEST: getitem_reverse float32[4,5]
# CHECK-NOT: stablehlo.slice
# CHECK: stablehlo.reverse %arg0, dims = [0] : tensor<4x5xf32>
index("getitem_reverse", slice(None, None, -1))

# CHECK-LABEL: TEST: getitem_newaxis bool[4,5]
# CHECK-NOT: stablehlo.slice
# CHECK: stablehlo.reshape %arg0 : (tensor<4x5xi1>) -> tensor<1x4x1x5xi1>
index("getitem_newaxis", (None, slice(None), None), "bool")

# CHECK-LABEL: TEST: getitem_empty float32[4,5]
# CHECK: stablehlo.slice %arg0 [0:0, 0:5] : (tensor<4x5xf32>) -> tensor<0x5xf32>
index("getitem_empty", slice(3, 1))

# CHECK-LABEL: TEST: getitem_scalar float64[4,5]
# CHECK: stablehlo.slice %arg0 [3:4, 2:3]
# CHECK: stablehlo.reshape {{.*}} : (tensor<1x1xf64>) -> tensor<f64>
index("getitem_scalar", (-1, 2), "float64")


def advanced(name, idx, dtype="float32", shape=(4, 5, 3)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], x[idx]))


# Adjacent index arrays: their broadcast shape replaces the indexed dims in place.
# CHECK-LABEL: TEST: gather_adjacent float32[4,5,3]
# Constant index arrays become one constant of start indices, wrapped at lowering time.
# CHECK: %[[I:.+]] = stablehlo.constant dense<{{\[\[\[}}0, 0], [1, 2]], {{\[\[}}2, 0], [3, 2]]]> : tensor<2x2x2xi64>
# CHECK: "stablehlo.gather"(%arg0, %[[I]])
# CHECK-SAME: offset_dims = [0], collapsed_slice_dims = [1, 2], start_index_map = [1, 2], index_vector_dim = 2
# CHECK-SAME: slice_sizes = array<i64: 4, 1, 1>
# CHECK-SAME: -> tensor<4x2x2xf32>
advanced("gather_adjacent", (slice(None), [[0, 1], [2, 3]], [0, -1]))

# Separated index arrays: the broadcast shape goes first; slices are applied before.
# CHECK-LABEL: TEST: gather_separated int32[4,5,3]
# CHECK: %[[S:.+]] = stablehlo.slice %arg0 [0:4, 1:4:2, 0:3] : (tensor<4x5x3xi32>) -> tensor<4x2x3xi32>
# CHECK: "stablehlo.gather"(%[[S]], %{{[a-z0-9_]+}})
# CHECK-SAME: offset_dims = [1], collapsed_slice_dims = [0, 2], start_index_map = [0, 2], index_vector_dim = 1
# CHECK-SAME: slice_sizes = array<i64: 1, 2, 1>
# CHECK-SAME: -> tensor<3x2xi32>
advanced("gather_separated", ([0, 1, 3], slice(1, None, 2), 2), "int32")

# Negative indices wrap: select(i < 0, i + dim, i).
# CHECK-LABEL: TEST: gather_graph_index float64[6]
# CHECK: %[[C:.+]] = stablehlo.convert %arg1 : (tensor<2xi32>) -> tensor<2xi64>
# CHECK: %[[N:.+]] = stablehlo.compare LT, %[[C]]
# CHECK: %[[W:.+]] = stablehlo.select %[[N]]
# CHECK: %[[R:.+]] = stablehlo.reshape %[[W]] : (tensor<2xi64>) -> tensor<2x1xi64>
# CHECK: "stablehlo.gather"(%arg0, %[[R]])
# CHECK-SAME: gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>
# CHECK-SAME: -> tensor<2xf64>
x = hg.tensor("x", (6,), "float64")
i = hg.tensor("i", (2,), "int32")
print_ir("gather_graph_index", hg.Graph([x, i], x[i]))


def update(name, idx, mode, v_shape, dtype="float32", shape=(4, 5)):
    x = hg.tensor("x", shape, dtype)
    v = hg.tensor("v", v_shape, dtype)
    print_ir(name, hg.Graph([x, v], getattr(hg.at(x)[idx], mode)(v)))


# Step-1 slices are update windows; each index array element scatters one window.
# CHECK-LABEL: TEST: scatter_add float32[4,5]
# CHECK: %[[I:.+]] = stablehlo.constant dense<{{\[\[}}0, 0], [0, 0], [2, 0]]> : tensor<3x2xi64>
# CHECK: "stablehlo.scatter"(%arg0, %[[I]], %arg1)
# CHECK-SAME: update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1
# CHECK-SAME: unique_indices = false
# CHECK: stablehlo.add %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<f32>
# CHECK: (tensor<4x5xf32>, tensor<3x2xi64>, tensor<3x5xf32>) -> tensor<4x5xf32>
update("scatter_add", ([0, 0, 2], slice(None)), "add", (3, 5))

# A strided slice is scattered element by element; set returns the update.
# CHECK-LABEL: TEST: scatter_set_strided int8[4,5]
# CHECK: %[[I:.+]] = stablehlo.constant dense<{{\[\[}}1, 0], [1, 2], [1, 4]]> : tensor<3x2xi64>
# CHECK: "stablehlo.scatter"(%arg0, %[[I]], %arg1)
# CHECK-SAME: scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>
# CHECK: ^bb0(%[[OLD:.+]]: tensor<i8>, %[[NEW:.+]]: tensor<i8>):
# CHECK-NEXT: stablehlo.return %[[NEW]] : tensor<i8>
# CHECK: (tensor<4x5xi8>, tensor<3x2xi64>, tensor<3xi8>) -> tensor<4x5xi8>
update("scatter_set_strided", (1, slice(None, None, 2)), "set", (3,), "int8")

# Only slices: one window at a constant start.
# CHECK-LABEL: TEST: scatter_max_window float64[4,5]
# CHECK-DAG: %[[I:.+]] = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
# CHECK-DAG: %[[U:.+]] = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<5xf64>) -> tensor<2x5xf64>
# CHECK: "stablehlo.scatter"(%arg0, %[[I]], %[[U]])
# CHECK-SAME: scatter<update_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1]>
# CHECK: stablehlo.maximum
# CHECK: (tensor<4x5xf64>, tensor<2xi64>, tensor<2x5xf64>) -> tensor<4x5xf64>
update("scatter_max_window", slice(1, 3), "max", (5,), "float64")

# take along an axis is a gather of that axis.
# CHECK-LABEL: TEST: take float32[4,5]
# CHECK: "stablehlo.gather"(%arg0, %{{[a-z0-9_]+}})
# CHECK-SAME: offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 2
# CHECK-SAME: -> tensor<4x2x2xf32>
x = hg.tensor("x", (4, 5), "float32")
print_ir("take", hg.Graph([x], hg.take(x, [[0, 1], [2, -1]], axis=1)))

# searchsorted compares every pair and counts: NaN in v sorts after every number.
# CHECK-LABEL: TEST: searchsorted float32[6]
# CHECK-DAG: %[[A:.+]] = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<6xf32>) -> tensor<3x6xf32>
# CHECK-DAG: %[[V:.+]] = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<3xf32>) -> tensor<3x6xf32>
# CHECK: stablehlo.compare LT, %[[A]], %[[V]], FLOAT
# CHECK: stablehlo.or
# CHECK: %[[N:.+]] = stablehlo.convert {{.*}} : (tensor<3x6xi1>) -> tensor<3x6xi64>
# CHECK: stablehlo.reduce(%[[N]] init: %{{[a-z0-9_]+}}) applies stablehlo.add across dimensions = [1] : (tensor<3x6xi64>, tensor<i64>) -> tensor<3xi64>
a = hg.tensor("a", (6,), "float32")
v = hg.tensor("v", (3,), "float32")
print_ir("searchsorted", hg.Graph([a, v], hg.searchsorted(a, v)))

# A dynamic slice at run-time starts (an int32 value and a constant of its dtype).
# CHECK-LABEL: TEST: dynamic_slice float32[4,5]
# CHECK: %[[C:.+]] = stablehlo.constant dense<1> : tensor<i32>
# CHECK: stablehlo.dynamic_slice %arg0, %arg1, %[[C]], sizes = [2, 3] : (tensor<4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
x = hg.tensor("x", (4, 5), "float32")
i = hg.tensor("i", (), "int32")
print_ir("dynamic_slice", hg.Graph([x, i], hg.dynamic_slice(x, [i, 1], (2, 3))))

# CHECK-LABEL: TEST: dynamic_update_slice bfloat16[4,5]
# CHECK: stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg2 : (tensor<4x5xbf16>, tensor<1x5xbf16>, tensor<i64>, tensor<i64>) -> tensor<4x5xbf16>
x = hg.tensor("x", (4, 5), "bfloat16")
u = hg.tensor("u", (1, 5), "bfloat16")
i = hg.tensor("i", (), "int64")
print_ir("dynamic_update_slice", hg.Graph([x, u, i], hg.dynamic_update_slice(x, u, [i, i])))

# Mixed start dtypes become int64 (a uint64 start clipped to int64's maximum first).
# CHECK-LABEL: TEST: dynamic_slice_mixed_starts float64[6,4]
# CHECK: %[[M:.+]] = stablehlo.minimum %arg1, %{{.+}} : tensor<ui64>
# CHECK: %[[J:.+]] = stablehlo.convert %[[M]] : (tensor<ui64>) -> tensor<i64>
# CHECK: %[[I:.+]] = stablehlo.convert %arg2 : (tensor<i8>) -> tensor<i64>
# CHECK: stablehlo.dynamic_slice %arg0, %[[J]], %[[I]], sizes = [2, 3] : (tensor<6x4xf64>, tensor<i64>, tensor<i64>) -> tensor<2x3xf64>
x = hg.tensor("x", (6, 4), "float64")
j = hg.tensor("j", (), "uint64")
i = hg.tensor("i", (), "int8")
print_ir("dynamic_slice_mixed_starts", hg.Graph([x, j, i], hg.dynamic_slice(x, [j, i], (2, 3))))

# A 0-d operand takes no start indices: its slice is itself, its update the update.
# CHECK-LABEL: TEST: dynamic_slice_0d float32[]
# CHECK-NOT: stablehlo.dynamic_slice
# CHECK-NOT: stablehlo.dynamic_update_slice
# CHECK: return %arg0, %arg1 : tensor<f32>, tensor<f32>
x = hg.tensor("x", (), "float32")
u = hg.tensor("u", (), "float32")
print_ir("dynamic_slice_0d", hg.Graph([x, u], [hg.dynamic_slice(x, [], ()), hg.dynamic_update_slice(x, u, [])]))
