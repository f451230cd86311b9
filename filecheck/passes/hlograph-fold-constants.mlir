// RUN: hlograph-opt %s -p hlograph-fold-constants --split-input-file | filecheck %s

// CHECK-LABEL: func.func @add_int(
func.func @add_int() -> tensor<2xi32> {
  // CHECK: %[[C:.+]] = stablehlo.constant dense<[4, 6]> : tensor<2xi32>
  // CHECK-NOT: stablehlo.add
  // CHECK: return %[[C]]
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
  %0 = stablehlo.add %a, %b : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @multiply_int8_wraps(
func.func @multiply_int8_wraps() -> tensor<2xi8> {
  // CHECK: stablehlo.constant dense<[44, -128]> : tensor<2xi8>
  // CHECK-NOT: stablehlo.multiply
  %a = stablehlo.constant dense<[100, -128]> : tensor<2xi8>
  %b = stablehlo.constant dense<[3, -1]> : tensor<2xi8>
  %0 = stablehlo.multiply %a, %b : tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

// CHECK-LABEL: func.func @splat_stays_splat(
func.func @splat_stays_splat() -> tensor<1000x1000xf32> {
  // CHECK: stablehlo.constant dense<3.000000e+00> : tensor<1000x1000xf32>
  // CHECK-NOT: stablehlo.multiply
  %a = stablehlo.constant dense<1.5> : tensor<1000x1000xf32>
  %b = stablehlo.constant dense<2.0> : tensor<1000x1000xf32>
  %0 = stablehlo.multiply %a, %b : tensor<1000x1000xf32>
  return %0 : tensor<1000x1000xf32>
}

// -----

// CHECK-LABEL: func.func @divide_int_truncates(
func.func @divide_int_truncates() -> (tensor<4xi32>, tensor<4xi32>) {
  // CHECK-DAG: %[[Q:.+]] = stablehlo.constant dense<[-3, -3, 3, 3]> : tensor<4xi32>
  // CHECK-DAG: %[[R:.+]] = stablehlo.constant dense<[-1, 1, -1, 1]> : tensor<4xi32>
  // CHECK: return %[[Q]], %[[R]]
  %a = stablehlo.constant dense<[-7, 7, -7, 7]> : tensor<4xi32>
  %b = stablehlo.constant dense<[2, -2, -2, 2]> : tensor<4xi32>
  %0 = stablehlo.divide %a, %b : tensor<4xi32>
  %1 = stablehlo.remainder %a, %b : tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @divide_int_by_zero_no_match(
func.func @divide_int_by_zero_no_match() -> tensor<2xi32> {
  // CHECK: stablehlo.divide
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
  %0 = stablehlo.divide %a, %b : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @shift_left_out_of_range(
func.func @shift_left_out_of_range() -> tensor<3xi32> {
  // CHECK: stablehlo.constant dense<[8, 0, 0]> : tensor<3xi32>
  // CHECK-NOT: stablehlo.shift_left
  %a = stablehlo.constant dense<[1, 1, 1]> : tensor<3xi32>
  %b = stablehlo.constant dense<[3, 32, -1]> : tensor<3xi32>
  %0 = stablehlo.shift_left %a, %b : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @shift_right_arithmetic_out_of_range(
func.func @shift_right_arithmetic_out_of_range() -> tensor<3xi8> {
  // CHECK: stablehlo.constant dense<[-64, -1, 0]> : tensor<3xi8>
  // CHECK-NOT: stablehlo.shift_right_arithmetic
  %a = stablehlo.constant dense<[-128, -128, 64]> : tensor<3xi8>
  %b = stablehlo.constant dense<[1, 9, 9]> : tensor<3xi8>
  %0 = stablehlo.shift_right_arithmetic %a, %b : tensor<3xi8>
  return %0 : tensor<3xi8>
}

// -----

// CHECK-LABEL: func.func @compare_nan(
func.func @compare_nan() -> (tensor<2xi1>, tensor<2xi1>) {
  // CHECK-DAG: %[[LT:.+]] = stablehlo.constant dense<[false, true]> : tensor<2xi1>
  // CHECK-DAG: %[[NE:.+]] = stablehlo.constant dense<true> : tensor<2xi1>
  // CHECK: return %[[LT]], %[[NE]]
  %a = stablehlo.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = stablehlo.compare LT, %a, %b, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %1 = stablehlo.compare NE, %a, %b, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %0, %1 : tensor<2xi1>, tensor<2xi1>
}

// -----

// CHECK-LABEL: func.func @compare_type_against_element_type_no_match(
func.func @compare_type_against_element_type_no_match() -> tensor<i1> {
  // CHECK: stablehlo.compare GT
  %a = stablehlo.constant dense<-1> : tensor<i32>
  %b = stablehlo.constant dense<1> : tensor<i32>
  %0 = stablehlo.compare GT, %a, %b, UNSIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

// CHECK-LABEL: func.func @convert_float_to_int(
func.func @convert_float_to_int() -> tensor<3xi32> {
  // CHECK: stablehlo.constant dense<[2, -2, 0]> : tensor<3xi32>
  // CHECK-NOT: stablehlo.convert
  %a = stablehlo.constant dense<[2.7, -2.7, -0.5]> : tensor<3xf32>
  %0 = stablehlo.convert %a : (tensor<3xf32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @convert_out_of_range_no_match(
func.func @convert_out_of_range_no_match() -> tensor<i32> {
  // CHECK: stablehlo.convert {{.*}} -> tensor<i32>
  %a = stablehlo.constant dense<1.0e+10> : tensor<f32>
  %0 = stablehlo.convert %a : (tensor<f32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// CHECK-LABEL: func.func @broadcast_reshape_transpose(
func.func @broadcast_reshape_transpose() -> tensor<3x2xi32> {
  // CHECK: stablehlo.constant dense<{{\[}}[1, 1], [2, 2], [3, 3]]> : tensor<3x2xi32>
  // CHECK-NOT: stablehlo.transpose
  %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xi32>) -> tensor<2x3xi32>
  %1 = stablehlo.reshape %0 : (tensor<2x3xi32>) -> tensor<6xi32>
  %2 = stablehlo.reshape %1 : (tensor<6xi32>) -> tensor<2x3xi32>
  %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  return %3 : tensor<3x2xi32>
}

// -----

// CHECK-LABEL: func.func @slice_concatenate_reverse(
func.func @slice_concatenate_reverse() -> tensor<4xi32> {
  // CHECK: stablehlo.constant dense<[2, 4, 4, 2]> : tensor<4xi32>
  // CHECK-NOT: stablehlo.concatenate
  %a = stablehlo.constant dense<[1, 2, 3, 4, 5]> : tensor<5xi32>
  %0 = stablehlo.slice %a [1:5:2] : (tensor<5xi32>) -> tensor<2xi32>
  %1 = stablehlo.reverse %0, dims = [0] : tensor<2xi32>
  %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<2xi32>, tensor<2xi32>) -> tensor<4xi32>
  return %2 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @pad_interior_and_negative(
func.func @pad_interior_and_negative() -> tensor<5xi32> {
  // CHECK: stablehlo.constant dense<[0, 2, 0, 3, 0]> : tensor<5xi32>
  // CHECK-NOT: stablehlo.pad
  %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.pad %a, %z, low = [-1], high = [1], interior = [1] : (tensor<3xi32>, tensor<i32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

// CHECK-LABEL: func.func @iota_compare_select(
func.func @iota_compare_select() -> tensor<4xf32> {
  // CHECK: stablehlo.constant dense<[1.000000e+00, 1.000000e+00, -1.000000e+00, -1.000000e+00]> : tensor<4xf32>
  // CHECK-NOT: stablehlo.select
  %i = stablehlo.iota dim = 0 : tensor<4xi32>
  %two = stablehlo.constant dense<2> : tensor<4xi32>
  %p = stablehlo.compare LT, %i, %two, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %a = stablehlo.constant dense<1.0> : tensor<4xf32>
  %b = stablehlo.constant dense<-1.0> : tensor<4xf32>
  %0 = stablehlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_int_sum(
func.func @reduce_int_sum() -> tensor<2xi32> {
  // CHECK: stablehlo.constant dense<[16, 25]> : tensor<2xi32>
  // CHECK-NOT: stablehlo.reduce
  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %z = stablehlo.constant dense<10> : tensor<i32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @reduce_float_sum_no_match(
func.func @reduce_float_sum_no_match() -> tensor<f32> {
  // CHECK: stablehlo.reduce
  %a = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @round_keeps_sign_of_zero(
func.func @round_keeps_sign_of_zero() -> tensor<4xf32> {
  // CHECK: stablehlo.constant dense<[-0.000000e+00, -1.000000e+00, 3.000000e+00, 0.000000e+00]> : tensor<4xf32>
  // CHECK-NOT: stablehlo.round_nearest_afz
  %a = stablehlo.constant dense<[-0.3, -0.5, 2.5, 0.49999997]> : tensor<4xf32>
  %0 = stablehlo.round_nearest_afz %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @sqrt_is_correctly_rounded(
func.func @sqrt_is_correctly_rounded() -> tensor<f32> {
  // CHECK: stablehlo.constant dense<1.41421354> : tensor<f32>
  // CHECK-NOT: stablehlo.sqrt
  %a = stablehlo.constant dense<2.0> : tensor<f32>
  %0 = stablehlo.sqrt %a : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @exponential_no_match(
func.func @exponential_no_match() -> tensor<f32> {
  // CHECK: stablehlo.exponential
  %a = stablehlo.constant dense<1.0> : tensor<f32>
  %0 = stablehlo.exponential %a : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @maximum_signed_zeros_no_match(
func.func @maximum_signed_zeros_no_match() -> tensor<f32> {
  // CHECK: stablehlo.maximum
  %a = stablehlo.constant dense<-0.0> : tensor<f32>
  %b = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.maximum %a, %b : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @bf16_and_complex(
func.func @bf16_and_complex() -> (tensor<2xbf16>, tensor<2xcomplex<f32>>) {
  // CHECK-DAG: stablehlo.constant dense<[1.750000e+00, 2.560000e+02]> : tensor<2xbf16>
  // CHECK-DAG: stablehlo.constant dense<[(2.000000e+00,4.000000e+00), (6.000000e+00,-8.000000e+00)]> : tensor<2xcomplex<f32>>
  // CHECK-NOT: stablehlo.add
  %a = stablehlo.constant dense<[1.5, 256.0]> : tensor<2xbf16>
  %b = stablehlo.constant dense<[0.25, 1.0]> : tensor<2xbf16>
  %0 = stablehlo.add %a, %b : tensor<2xbf16>
  %c = stablehlo.constant dense<[(1.0, 2.0), (3.0, -4.0)]> : tensor<2xcomplex<f32>>
  %1 = stablehlo.add %c, %c : tensor<2xcomplex<f32>>
  return %0, %1 : tensor<2xbf16>, tensor<2xcomplex<f32>>
}

// -----

// CHECK-LABEL: func.func @large_iota_no_match(
func.func @large_iota_no_match() -> tensor<2048xi32> {
  // CHECK: stablehlo.iota dim = 0 : tensor<2048xi32>
  %0 = stablehlo.iota dim = 0 : tensor<2048xi32>
  return %0 : tensor<2048xi32>
}

// -----

// CHECK-LABEL: func.func @operand_not_constant_no_match(
func.func @operand_not_constant_no_match(%arg0: tensor<2xi32>) -> tensor<2xi32> {
  // CHECK: stablehlo.add
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %0 = stablehlo.add %a, %arg0 : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// A broadcast of a scalar becomes a splat, whatever the size.
// CHECK-LABEL: func.func @broadcast_scalar_to_large_splat(
func.func @broadcast_scalar_to_large_splat() -> tensor<3000x3000xf32> {
  // CHECK: %[[C:.+]] = stablehlo.constant dense<1.500000e+00> : tensor<3000x3000xf32>
  // CHECK-NOT: stablehlo.broadcast_in_dim
  // CHECK: return %[[C]]
  %c = stablehlo.constant dense<1.5> : tensor<f32>
  %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<3000x3000xf32>
  return %0 : tensor<3000x3000xf32>
}
