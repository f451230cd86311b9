# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.testing import print_ir


def product(name, fn, ashape, bshape, dtype="float32"):
    a, b = hg.tensor("a", ashape, dtype), hg.tensor("b", bshape, dtype)
    print_ir(name, hg.Graph([a, b], fn(a, b)))


# CHECK-LABEL: TEST: matmul_2d float32[2,3]
# CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST]
# CHECK-SAME: (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
# CHECK-NOT: stablehlo.transpose
product("matmul_2d", hg.matmul, (2, 3), (3, 4))

# CHECK-LABEL: TEST: matmul_batched float64[5,2,3]
# CHECK: stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1]
# CHECK-SAME: -> tensor<5x2x4xf64>
product("matmul_batched", hg.matmul, (5, 2, 3), (5, 3, 4), "float64")

# CHECK-LABEL: TEST: matmul_stack_times_matrix float32[5,2,3]
# CHECK-NOT: stablehlo.broadcast_in_dim
# CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0]
# CHECK-SAME: -> tensor<5x2x4xf32>
product("matmul_stack_times_matrix", hg.matmul, (5, 2, 3), (3, 4))

# CHECK-LABEL: TEST: matmul_broadcast_stacks float32[4,1,2,3]
# CHECK: %[[A:.+]] = stablehlo.reshape %arg0 : (tensor<4x1x2x3xf32>) -> tensor<4x2x3xf32>
# CHECK: %[[B:.+]] = stablehlo.reshape %arg1 : (tensor<1x6x3x2xf32>) -> tensor<6x3x2xf32>
# CHECK: %[[D:.+]] = stablehlo.dot_general %[[A]], %[[B]], contracting_dims = [2] x [1]
# CHECK-SAME: -> tensor<4x2x6x2xf32>
# CHECK: stablehlo.transpose %[[D]], dims = [0, 2, 1, 3] : (tensor<4x2x6x2xf32>) -> tensor<4x6x2x2xf32>
product("matmul_broadcast_stacks", hg.matmul, (4, 1, 2, 3), (1, 6, 3, 2))

# CHECK-LABEL: TEST: matmul_vector_matrix float32[3]
# CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0]
# CHECK-SAME: (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
product("matmul_vector_matrix", hg.matmul, (3,), (3, 4))

# CHECK-LABEL: TEST: matmul_float16 float16[2,3]
# CHECK: %[[D:.+]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0]
# CHECK-SAME: (tensor<2x3xf16>, tensor<3x4xf16>) -> tensor<2x4xf32>
# CHECK: stablehlo.convert %[[D]] : (tensor<2x4xf32>) -> tensor<2x4xf16>
product("matmul_float16", hg.matmul, (2, 3), (3, 4), "float16")

# CHECK-LABEL: TEST: matmul_int8 int8[2,3]
# CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] :
# CHECK-SAME: -> tensor<2x4xi8>
product("matmul_int8", hg.matmul, (2, 3), (3, 4), "int8")

# CHECK-LABEL: TEST: matmul_bool bool[2,3]
# CHECK: stablehlo.dot_general
# CHECK-SAME: (tensor<2x3xi1>, tensor<3x4xi1>) -> tensor<2x4xi1>
product("matmul_bool", hg.matmul, (2, 3), (3, 4), "bool")

# CHECK-LABEL: TEST: dot_inner float64[3]
# CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0]
# CHECK-SAME: -> tensor<f64>
product("dot_inner", hg.dot, (3,), (3,), "float64")

# CHECK-LABEL: TEST: dot_nd float32[2,3]
# CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1]
# CHECK-SAME: (tensor<2x3xf32>, tensor<4x3x5xf32>) -> tensor<2x4x5xf32>
product("dot_nd", hg.dot, (2, 3), (4, 3, 5))

# CHECK-LABEL: TEST: dot_scalar complex64[]
# CHECK: stablehlo.dot_general %arg0, %arg1,
# CHECK-SAME: (tensor<complex<f32>>, tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>>
product("dot_scalar", hg.dot, (), (3,), "complex64")

# CHECK-LABEL: TEST: tensordot_axes float32[2,3,4]
# CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1, 2] x [1, 0]
# CHECK-SAME: -> tensor<2x5xf32>
product("tensordot_axes", lambda a, b: hg.tensordot(a, b, ([1, -1], [1, 0])), (2, 3, 4), (4, 3, 5))


def unary(name, fn, shape, dtype="float32"):
    a = hg.tensor("a", shape, dtype)
    print_ir(name, hg.Graph([a], fn(a)))


# CHECK-LABEL: TEST: einsum_chain float32[2,3]
# CHECK: %[[D:.+]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0]
# CHECK-SAME: -> tensor<2x4xf32>
# CHECK: stablehlo.transpose %[[D]], dims = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
product("einsum_chain", lambda a, b: hg.einsum("ij,jk->ki", a, b), (2, 3), (3, 4))

# CHECK-LABEL: TEST: einsum_diagonal float32[3,3,2]
# CHECK: %[[T:.+]] = stablehlo.transpose %arg0, dims = [2, 0, 1]
# CHECK: %[[R:.+]] = stablehlo.reshape %[[T]] : (tensor<2x3x3xf32>) -> tensor<2x9xf32>
# CHECK: %[[S:.+]] = stablehlo.slice %[[R]] [0:2, 0:9:4] : (tensor<2x9xf32>) -> tensor<2x3xf32>
# CHECK: stablehlo.reduce(%[[S]] init: {{.*}}) applies stablehlo.add across dimensions = [1]
# CHECK-SAME: -> tensor<2xf32>
unary("einsum_diagonal", lambda a: hg.einsum("iij->j", a), (3, 3, 2))

# CHECK-LABEL: TEST: outer float64[3]
# CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [] x []
# CHECK-SAME: (tensor<3xf64>, tensor<4xf64>) -> tensor<3x4xf64>
product("outer", hg.outer, (3,), (4,), "float64")

# The decompositions call jax's lowering (LAPACK custom calls on CPU), merged as
# private functions.
# CHECK-LABEL: TEST: cholesky float64[3,3]
# CHECK: %[[C:.+]] = call @[[F:jax_cholesky.*]](%arg0) : (tensor<3x3xf64>) -> tensor<3x3xf64>
# CHECK: func.func private @[[F]](%arg0: tensor<3x3xf64>) -> tensor<3x3xf64>
# CHECK: stablehlo.custom_call @lapack_dpotrf_ffi
unary("cholesky", hg.cholesky, (3, 3), "float64")

# the upper factor reads the upper triangle (numpy's): LAPACK factors the transposed input
# CHECK-LABEL: TEST: cholesky_upper float64[3,3]
# CHECK: func.func private @jax_cholesky
# CHECK: %[[T:.+]] = stablehlo.transpose %arg0, dims = [1, 0]
# CHECK: call @[[F:cholesky.*]](%[[T]])
# CHECK: func.func private @[[F]]
# CHECK: stablehlo.custom_call @lapack_dpotrf_ffi
# CHECK: %[[U:.+]] = stablehlo.transpose %{{.+}}, dims = [1, 0]
# CHECK-NEXT: return %[[U]]
unary("cholesky_upper", lambda x: hg.cholesky(x, upper=True), (3, 3), "float64")

# CHECK-LABEL: TEST: qr float32[4,3]
# CHECK: call @[[F:jax_qr.*]](%arg0) : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3x3xf32>)
# CHECK: func.func private @[[F]]
# CHECK: stablehlo.custom_call @lapack_sgeqrf_ffi
# CHECK: stablehlo.custom_call @lapack_sorgqr_ffi
unary("qr", hg.qr, (4, 3))

# CHECK-LABEL: TEST: eigh complex64[2,3,3]
# CHECK: call @[[F:jax_eigh.*]](%arg0) : (tensor<2x3x3xcomplex<f32>>) -> (tensor<2x3xf32>, tensor<2x3x3xcomplex<f32>>)
# CHECK: stablehlo.custom_call @lapack_cheevd_ffi
unary("eigh", hg.eigh, (2, 3, 3), "complex64")

# CHECK-LABEL: TEST: svd_values float64[4,3]
# CHECK: call @[[F:jax_svd.*]](%arg0) : (tensor<4x3xf64>) -> tensor<3xf64>
# CHECK: stablehlo.custom_call @lapack_dgesdd_ffi
unary("svd_values", hg.svdvals, (4, 3), "float64")

# CHECK-LABEL: TEST: inv_twice float64[3,3]
# CHECK: call @[[F:jax_inv.*]](%arg0)
# CHECK: call @[[F]](%{{.+}})
# CHECK: func.func private @[[F]]
# CHECK-NOT: func.func private @jax_inv
unary("inv_twice", lambda a: hg.inv(hg.inv(a)), (3, 3), "float64")

# schur: gees (batched by the custom call itself), NaNs where the matrix is not finite;
# output="complex" of a real matrix converts it to complex first (cgees).
# CHECK-LABEL: TEST: schur float64[2,3,3]
# CHECK: call @[[F:jax_schur.*]](%arg0) : (tensor<2x3x3xf64>) -> (tensor<2x3x3xf64>, tensor<2x3x3xf64>)
# CHECK: func.func private @[[F]](%arg0: tensor<2x3x3xf64>)
# CHECK: stablehlo.is_finite %arg0 : (tensor<2x3x3xf64>) -> tensor<2x3x3xi1>
# CHECK: stablehlo.custom_call @lapack_dgees_ffi(%arg0)
# CHECK-SAME: num_batch_dims = "1"
unary("schur", hg.schur, (2, 3, 3), "float64")

# CHECK-LABEL: TEST: schur_complex float32[3,3]
# CHECK: call @[[F:jax_schur.*]](%arg0) : (tensor<3x3xf32>) -> (tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>)
# CHECK: %[[C:.+]] = stablehlo.convert %arg0 : (tensor<3x3xf32>) -> tensor<3x3xcomplex<f32>>
# CHECK: stablehlo.custom_call @lapack_cgees_ffi(%[[C]])
unary("schur_complex", lambda a: hg.schur(a, output="complex"), (3, 3))

# qr with column pivoting: geqp3 (1-based pivots made 0-based), then orgqr
# CHECK-LABEL: TEST: qr_pivoting float64[4,3]
# CHECK: call @[[F:jax_pivotedqr.*]](%arg0) : (tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3x3xf64>, tensor<3xi32>)
# CHECK: stablehlo.custom_call @lapack_dgeqp3_ffi
# CHECK: stablehlo.subtract
# CHECK: stablehlo.custom_call @lapack_dorgqr_ffi
unary("qr_pivoting", lambda a: hg.qr(a, pivoting=True), (4, 3), "float64")

# qr mode="raw": geqrf's reflectors (transposed, as NumPy returns them) and tau, no orgqr
# CHECK-LABEL: TEST: qr_raw float32[4,3]
# CHECK: call @[[F:jax_qr.*]](%arg0) : (tensor<4x3xf32>) -> (tensor<3x4xf32>, tensor<3xf32>)
# CHECK: func.func private @[[F]]
# CHECK: stablehlo.custom_call @lapack_sgeqrf_ffi
# CHECK-NOT: orgqr
# CHECK: stablehlo.transpose
# CHECK-SAME: dims = [1, 0]
unary("qr_raw", lambda a: hg.qr(a, mode="raw"), (4, 3))

# pivoted raw: scipy's ((h, tau), r, p): geqp3, the upper triangle of its first rows
# CHECK-LABEL: TEST: qr_raw_pivoting float64[3,5]
# CHECK: call @[[F:jax_pivotedqr.*]](%arg0) : (tensor<3x5xf64>) -> (tensor<3x5xf64>, tensor<3xf64>, tensor<3x5xf64>, tensor<5xi32>)
# CHECK: func.func private @[[F]]
# CHECK: %[[H:.+]]:3 = stablehlo.custom_call @lapack_dgeqp3_ffi
# CHECK-NOT: orgqr
# CHECK: %[[R:.+]] = call @triu(%[[H]]#0)
# CHECK: %[[P:.+]] = stablehlo.subtract %[[H]]#1
# CHECK: return %[[H]]#0, %[[H]]#2, %[[R]], %[[P]]
unary("qr_raw_pivoting", lambda a: hg.qr(a, mode="raw", pivoting=True), (3, 5), "float64")
