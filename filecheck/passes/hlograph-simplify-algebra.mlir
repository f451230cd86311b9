// RUN: hlograph-opt %s -p hlograph-simplify-algebra --split-input-file | filecheck %s
// RUN: hlograph-opt %s -p 'hlograph-simplify-algebra{fast-math=true}' --split-input-file | filecheck %s --check-prefix=FAST

// CHECK-LABEL: func.func @add_negative_zero(
func.func @add_negative_zero(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NOT: stablehlo.add
  // CHECK: return %arg0
  %z = stablehlo.constant dense<-0.0> : tensor<3xf32>
  %0 = stablehlo.add %z, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @add_positive_zero_no_match(
func.func @add_positive_zero_no_match(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: stablehlo.add
  // FAST-LABEL: func.func @add_positive_zero_no_match(
  // FAST-NOT: stablehlo.add
  // FAST: return %arg0
  %z = stablehlo.constant dense<0.0> : tensor<3xf32>
  %0 = stablehlo.add %x, %z : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @add_int_zero(
func.func @add_int_zero(%x: tensor<3xi32>) -> tensor<3xi32> {
  // CHECK-NOT: stablehlo.add
  // CHECK: return %arg0
  %z = stablehlo.constant dense<0> : tensor<3xi32>
  %0 = stablehlo.add %x, %z : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @subtract_positive_zero(
func.func @subtract_positive_zero(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NOT: stablehlo.subtract
  // CHECK: return %arg0
  %z = stablehlo.constant dense<0.0> : tensor<3xf32>
  %0 = stablehlo.subtract %x, %z : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @subtract_negative_zero_no_match(
func.func @subtract_negative_zero_no_match(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: stablehlo.subtract
  %z = stablehlo.constant dense<-0.0> : tensor<3xf32>
  %0 = stablehlo.subtract %x, %z : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_zero_minus_x(
func.func @negative_zero_minus_x(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: %[[N:.+]] = stablehlo.negate %arg0 : tensor<3xf32>
  // CHECK-NOT: stablehlo.subtract
  // CHECK: return %[[N]]
  %z = stablehlo.constant dense<-0.0> : tensor<3xf32>
  %0 = stablehlo.subtract %z, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @positive_zero_minus_x_no_match(
func.func @positive_zero_minus_x_no_match(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: stablehlo.subtract
  %z = stablehlo.constant dense<0.0> : tensor<3xf32>
  %0 = stablehlo.subtract %z, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @subtract_self_int(
func.func @subtract_self_int(%x: tensor<3xi32>) -> tensor<3xi32> {
  // CHECK: %[[Z:.+]] = stablehlo.constant dense<0> : tensor<3xi32>
  // CHECK: return %[[Z]]
  %0 = stablehlo.subtract %x, %x : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @subtract_self_float_no_match(
func.func @subtract_self_float_no_match(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: stablehlo.subtract %arg0, %arg0
  // FAST-LABEL: func.func @subtract_self_float_no_match(
  // FAST: %[[Z:.+]] = stablehlo.constant dense<0.000000e+00> : tensor<3xf32>
  // FAST: return %[[Z]]
  %0 = stablehlo.subtract %x, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @multiply_one(
func.func @multiply_one(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NOT: stablehlo.multiply
  // CHECK: return %arg0
  %one = stablehlo.constant dense<1.0> : tensor<3xf32>
  %0 = stablehlo.multiply %one, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @multiply_minus_one(
func.func @multiply_minus_one(%x: tensor<3xf64>) -> tensor<3xf64> {
  // CHECK: %[[N:.+]] = stablehlo.negate %arg0 : tensor<3xf64>
  // CHECK: return %[[N]]
  %m = stablehlo.constant dense<-1.0> : tensor<3xf64>
  %0 = stablehlo.multiply %x, %m : tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// CHECK-LABEL: func.func @multiply_zero_int(
func.func @multiply_zero_int(%x: tensor<3xi64>) -> tensor<3xi64> {
  // CHECK: %[[Z:.+]] = stablehlo.constant dense<0> : tensor<3xi64>
  // CHECK-NOT: stablehlo.multiply
  // CHECK: return %[[Z]]
  %z = stablehlo.constant dense<0> : tensor<3xi64>
  %0 = stablehlo.multiply %x, %z : tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// CHECK-LABEL: func.func @multiply_zero_float_no_match(
func.func @multiply_zero_float_no_match(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: stablehlo.multiply
  %z = stablehlo.constant dense<0.0> : tensor<3xf32>
  %0 = stablehlo.multiply %x, %z : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @multiply_one_complex_no_match(
func.func @multiply_one_complex_no_match(%x: tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  // CHECK: stablehlo.multiply
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<3xcomplex<f32>>
  %0 = stablehlo.multiply %x, %one : tensor<3xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}

// -----

// CHECK-LABEL: func.func @divide_one(
func.func @divide_one(%x: tensor<3xi32>) -> tensor<3xi32> {
  // CHECK-NOT: stablehlo.divide
  // CHECK: return %arg0
  %one = stablehlo.constant dense<1> : tensor<3xi32>
  %0 = stablehlo.divide %x, %one : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @divide_minus_one_int_no_match(
func.func @divide_minus_one_int_no_match(%x: tensor<3xi32>) -> tensor<3xi32> {
  // CHECK: stablehlo.divide
  %m = stablehlo.constant dense<-1> : tensor<3xi32>
  %0 = stablehlo.divide %x, %m : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @double_negate_and_not(
func.func @double_negate_and_not(%x: tensor<3xf32>, %p: tensor<3xi1>) -> (tensor<3xf32>, tensor<3xi1>) {
  // CHECK-NOT: stablehlo.negate
  // CHECK-NOT: stablehlo.not
  // CHECK: return %arg0, %arg1
  %0 = stablehlo.negate %x : tensor<3xf32>
  %1 = stablehlo.negate %0 : tensor<3xf32>
  %2 = stablehlo.not %p : tensor<3xi1>
  %3 = stablehlo.not %2 : tensor<3xi1>
  return %1, %3 : tensor<3xf32>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @abs_of_negate(
func.func @abs_of_negate(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: %[[A:.+]] = stablehlo.abs %arg0
  // CHECK-NOT: stablehlo.negate
  // CHECK: return %[[A]]
  %0 = stablehlo.negate %x : tensor<3xf32>
  %1 = stablehlo.abs %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @bitwise_identities(
func.func @bitwise_identities(%x: tensor<3xui8>) -> (tensor<3xui8>, tensor<3xui8>, tensor<3xui8>) {
  // CHECK-DAG: %[[ONES:.+]] = stablehlo.constant dense<255> : tensor<3xui8>
  // CHECK-DAG: %[[ZERO:.+]] = stablehlo.constant dense<0> : tensor<3xui8>
  // CHECK: return %arg0, %[[ONES]], %[[ZERO]]
  %ones = stablehlo.constant dense<255> : tensor<3xui8>
  %0 = stablehlo.and %x, %ones : tensor<3xui8>
  %1 = stablehlo.or %x, %ones : tensor<3xui8>
  %2 = stablehlo.xor %x, %x : tensor<3xui8>
  return %0, %1, %2 : tensor<3xui8>, tensor<3xui8>, tensor<3xui8>
}

// -----

// CHECK-LABEL: func.func @max_self(
func.func @max_self(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NOT: stablehlo.maximum
  // CHECK: return %arg0
  %0 = stablehlo.maximum %x, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @compare_self_int(
func.func @compare_self_int(%x: tensor<3xi32>) -> tensor<3xi1> {
  // CHECK: %[[T:.+]] = stablehlo.constant dense<true> : tensor<3xi1>
  // CHECK: return %[[T]]
  %0 = stablehlo.compare LE, %x, %x, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @compare_self_float_no_match(
func.func @compare_self_float_no_match(%x: tensor<3xf32>) -> tensor<3xi1> {
  // CHECK: stablehlo.compare EQ, %arg0, %arg0
  %0 = stablehlo.compare EQ, %x, %x, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @select_constant_predicate(
func.func @select_constant_predicate(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NOT: stablehlo.select
  // CHECK: return %arg1
  %p = stablehlo.constant dense<false> : tensor<i1>
  %0 = stablehlo.select %p, %a, %b : tensor<i1>, tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @select_same_branches(
func.func @select_same_branches(%p: tensor<3xi1>, %a: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NOT: stablehlo.select
  // CHECK: return %arg1
  %0 = stablehlo.select %p, %a, %a : tensor<3xi1>, tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @concatenate_one_operand(
func.func @concatenate_one_operand(%a: tensor<3xf32>, %e: tensor<0xf32>) -> tensor<3xf32> {
  // CHECK-NOT: stablehlo.concatenate
  // CHECK: return %arg0
  %0 = stablehlo.concatenate %a, %e, dim = 0 : (tensor<3xf32>, tensor<0xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @convert_identity_and_roundtrip(
func.func @convert_identity_and_roundtrip(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  // CHECK-NOT: stablehlo.convert
  // CHECK: return %arg0, %arg0
  %0 = stablehlo.convert %x : tensor<3xf32>
  %1 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xf64>
  %2 = stablehlo.convert %1 : (tensor<3xf64>) -> tensor<3xf32>
  return %0, %2 : tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @convert_widening_chain(
func.func @convert_widening_chain(%x: tensor<3xi8>) -> tensor<3xi64> {
  // CHECK: %[[C:.+]] = stablehlo.convert %arg0 : (tensor<3xi8>) -> tensor<3xi64>
  // CHECK-NEXT: return %[[C]]
  %0 = stablehlo.convert %x : (tensor<3xi8>) -> tensor<3xi32>
  %1 = stablehlo.convert %0 : (tensor<3xi32>) -> tensor<3xi64>
  return %1 : tensor<3xi64>
}

// -----

// CHECK-LABEL: func.func @convert_narrowing_roundtrip_no_match(
func.func @convert_narrowing_roundtrip_no_match(%x: tensor<3xf64>) -> tensor<3xf64> {
  // CHECK: stablehlo.convert %arg0 : (tensor<3xf64>) -> tensor<3xf32>
  // CHECK: stablehlo.convert {{.*}} : (tensor<3xf32>) -> tensor<3xf64>
  %0 = stablehlo.convert %x : (tensor<3xf64>) -> tensor<3xf32>
  %1 = stablehlo.convert %0 : (tensor<3xf32>) -> tensor<3xf64>
  return %1 : tensor<3xf64>
}

// -----

// CHECK-LABEL: func.func @convert_int_float_int_no_match(
func.func @convert_int_float_int_no_match(%x: tensor<3xi16>) -> tensor<3xi8> {
  // CHECK: stablehlo.convert %arg0 : (tensor<3xi16>) -> tensor<3xf32>
  // CHECK: stablehlo.convert {{.*}} : (tensor<3xf32>) -> tensor<3xi8>
  %0 = stablehlo.convert %x : (tensor<3xi16>) -> tensor<3xf32>
  %1 = stablehlo.convert %0 : (tensor<3xf32>) -> tensor<3xi8>
  return %1 : tensor<3xi8>
}

// -----

// CHECK-LABEL: func.func @reshape_chain(
func.func @reshape_chain(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  // CHECK: %[[R:.+]] = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-NEXT: return %[[R]], %arg0
  %0 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = stablehlo.reshape %0 : (tensor<6xf32>) -> tensor<3x2xf32>
  %2 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1, %2 : tensor<3x2xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_chain(
func.func @transpose_chain(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
  // CHECK: %[[T:.+]] = stablehlo.transpose %arg0, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  // CHECK-NEXT: return %[[T]], %arg0
  %0 = stablehlo.transpose %x, dims = [1, 0, 2] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = stablehlo.transpose %0, dims = [2, 1, 0] : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  %2 = stablehlo.transpose %0, dims = [1, 0, 2] : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  return %1, %2 : tensor<4x2x3xf32>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_of_unit_dims(
func.func @transpose_of_unit_dims(%x: tensor<1x3x1x4xf32>) -> tensor<3x1x4x1xf32> {
  // CHECK: stablehlo.reshape %arg0 : (tensor<1x3x1x4xf32>) -> tensor<3x1x4x1xf32>
  // CHECK-NOT: stablehlo.transpose
  %0 = stablehlo.transpose %x, dims = [1, 0, 3, 2] : (tensor<1x3x1x4xf32>) -> tensor<3x1x4x1xf32>
  return %0 : tensor<3x1x4x1xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_no_match(
func.func @transpose_no_match(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: stablehlo.transpose %arg0, dims = [1, 0]
  %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_chain(
func.func @broadcast_chain(%x: tensor<3xf32>) -> (tensor<4x2x3xf32>, tensor<1x3xf32>) {
  // CHECK: %[[B:.+]] = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<3xf32>) -> tensor<4x2x3xf32>
  // CHECK: %[[R:.+]] = stablehlo.reshape %arg0 : (tensor<3xf32>) -> tensor<1x3xf32>
  // CHECK: return %[[B]], %[[R]]
  %0 = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  %2 = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
  return %1, %2 : tensor<4x2x3xf32>, tensor<1x3xf32>
}

// -----

// CHECK-LABEL: func.func @slice_chain(
func.func @slice_chain(%x: tensor<10xf32>) -> (tensor<2xf32>, tensor<10xf32>) {
  // CHECK: %[[S:.+]] = stablehlo.slice %arg0 [3:8:4] : (tensor<10xf32>) -> tensor<2xf32>
  // CHECK-NEXT: return %[[S]], %arg0
  %0 = stablehlo.slice %x [1:9:2] : (tensor<10xf32>) -> tensor<4xf32>
  %1 = stablehlo.slice %0 [1:4:2] : (tensor<4xf32>) -> tensor<2xf32>
  %2 = stablehlo.slice %x [0:10] : (tensor<10xf32>) -> tensor<10xf32>
  return %1, %2 : tensor<2xf32>, tensor<10xf32>
}

// -----

// CHECK-LABEL: func.func @pad_and_reverse_identities(
func.func @pad_and_reverse_identities(%x: tensor<3x1xf32>) -> (tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x1xf32>) {
  // CHECK-NOT: stablehlo.pad
  // CHECK-NOT: stablehlo.reverse
  // CHECK: return %arg0, %arg0, %arg0
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.pad %x, %z, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %1 = stablehlo.reverse %x, dims = [1] : tensor<3x1xf32>
  %2 = stablehlo.reverse %x, dims = [0] : tensor<3x1xf32>
  %3 = stablehlo.reverse %2, dims = [0] : tensor<3x1xf32>
  return %0, %1, %3 : tensor<3x1xf32>, tensor<3x1xf32>, tensor<3x1xf32>
}

// -----

// CHECK-LABEL: func.func @real_of_complex(
func.func @real_of_complex(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  // CHECK-NOT: stablehlo.real
  // CHECK: return %arg0, %arg1
  %0 = stablehlo.complex %a, %b : tensor<3xcomplex<f32>>
  %1 = stablehlo.real %0 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  %2 = stablehlo.imag %0 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  return %1, %2 : tensor<3xf32>, tensor<3xf32>
}
