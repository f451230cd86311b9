// RUN: hlograph-opt %s -p hlograph-round-compared-sums --split-input-file | filecheck %s

// A product added into a compared value goes through the identity custom call
// (rounded in memory, as NumPy rounds it) before the add uses it.
// CHECK-LABEL: func.func @product_in_a_compared_sum(
func.func @product_in_a_compared_sum(%a: tensor<4xf64>, %b: tensor<4xf64>, %c: tensor<4xf64>) -> tensor<4xi1> {
  // CHECK: %[[P:.+]] = stablehlo.multiply %arg0, %arg1
  // CHECK-NEXT: %[[R:.+]] = stablehlo.custom_call @dce_sink(%[[P]])
  // CHECK-SAME: output_operand_aliases
  // CHECK-NEXT: %[[S:.+]] = stablehlo.add %[[R]], %arg2
  // CHECK: stablehlo.compare GE, %[[S]]
  %0 = stablehlo.multiply %a, %b : tensor<4xf64>
  %1 = stablehlo.add %0, %c : tensor<4xf64>
  %z = stablehlo.constant dense<0.0> : tensor<4xf64>
  %2 = stablehlo.compare GE, %1, %z, FLOAT : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xi1>
  return %2 : tensor<4xi1>
}

// -----

// Through sums of sums, broadcasts and reshapes: the square and the scaled dot
// (XLA turns a dot over one element into a multiply) are rounded; what a product
// multiplies (the dot here) is not added, so it stays as it is. Every use of a cut
// product takes the rounded value.
// CHECK-LABEL: func.func @squared_distances(
func.func @squared_distances(%x: tensor<3x1xf64>) -> (tensor<3x3xi1>, tensor<3x3xf64>) {
  // CHECK: %[[D:.+]] = stablehlo.dot_general
  // CHECK-NEXT: %[[Q:.+]] = stablehlo.multiply %arg0, %arg0
  // CHECK-NEXT: %[[QR:.+]] = stablehlo.custom_call @dce_sink(%[[Q]])
  // CHECK-NEXT: stablehlo.reshape %[[QR]]
  // CHECK: %[[T:.+]] = stablehlo.multiply %{{.+}}, %[[D]]
  // CHECK-NEXT: %[[TR:.+]] = stablehlo.custom_call @dce_sink(%[[T]])
  // CHECK-NEXT: stablehlo.add %[[TR]]
  // CHECK: stablehlo.compare GE
  // CHECK-NOT: dce_sink
  %d = stablehlo.dot_general %x, %x, contracting_dims = [1] x [1] : (tensor<3x1xf64>, tensor<3x1xf64>) -> tensor<3x3xf64>
  %sq = stablehlo.multiply %x, %x : tensor<3x1xf64>
  %s = stablehlo.reshape %sq : (tensor<3x1xf64>) -> tensor<3xf64>
  %si = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<3xf64>) -> tensor<3x3xf64>
  %sj = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<3xf64>) -> tensor<3x3xf64>
  %m2 = stablehlo.constant dense<-2.0> : tensor<3x3xf64>
  %t = stablehlo.multiply %m2, %d : tensor<3x3xf64>
  %u = stablehlo.add %t, %si : tensor<3x3xf64>
  %v = stablehlo.add %u, %sj : tensor<3x3xf64>
  %z = stablehlo.constant dense<0.0> : tensor<3x3xf64>
  %c = stablehlo.compare GE, %v, %z, FLOAT : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xi1>
  return %c, %v : tensor<3x3xi1>, tensor<3x3xf64>
}

// -----

// Not cut: a product compared directly (nothing is added to it), a sum of
// products no comparison reads, and integer values.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: dce_sink
func.func @left_alone(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xf32>, tensor<4xi1>) {
  %0 = stablehlo.multiply %a, %b : tensor<4xf32>
  %1 = stablehlo.compare GT, %0, %a, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = stablehlo.add %0, %b : tensor<4xf32>
  %3 = stablehlo.multiply %i, %i : tensor<4xi32>
  %4 = stablehlo.add %3, %i : tensor<4xi32>
  %5 = stablehlo.compare GT, %4, %i, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %1, %2, %5 : tensor<4xi1>, tensor<4xf32>, tensor<4xi1>
}

// -----

// Comparisons inside regions are found too.
// CHECK-LABEL: func.func @inside_a_branch(
func.func @inside_a_branch(%p: tensor<i1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // CHECK: stablehlo.if
  // CHECK: stablehlo.multiply
  // CHECK-NEXT: stablehlo.custom_call @dce_sink
  // CHECK-NEXT: stablehlo.subtract
  %r = "stablehlo.if"(%p) ({
    %0 = stablehlo.multiply %a, %b : tensor<4xf32>
    %1 = stablehlo.subtract %a, %0 : tensor<4xf32>
    %2 = stablehlo.compare EQ, %1, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    stablehlo.return %2 : tensor<4xi1>
  }, {
    %3 = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    stablehlo.return %3 : tensor<4xi1>
  }) : (tensor<i1>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

// A sum of squares (a reduction that adds) is followed to its products, and the
// factors of the products met are followed to divisions: a division by a broadcast
// gets the broadcast cut (XLA would divide by multiplying with the reciprocal).
// CHECK-LABEL: func.func @scaled_distances(
func.func @scaled_distances(%x: tensor<5x1xf64>, %l: tensor<f64>) -> tensor<5x5xi1> {
  // CHECK: %[[LB:.+]] = stablehlo.broadcast_in_dim %arg1
  // CHECK-NEXT: %[[LC:.+]] = stablehlo.custom_call @dce_sink(%[[LB]])
  // CHECK-NEXT: %[[XS:.+]] = stablehlo.divide %arg0, %[[LC]]
  // CHECK-NEXT: %[[SQ:.+]] = stablehlo.multiply %[[XS]], %[[XS]]
  // CHECK-NEXT: %[[SQC:.+]] = stablehlo.custom_call @dce_sink(%[[SQ]])
  // CHECK: stablehlo.reduce(%[[SQC]]
  // CHECK: stablehlo.compare GE
  %lb = stablehlo.broadcast_in_dim %l, dims = [] : (tensor<f64>) -> tensor<5x1xf64>
  %xs = stablehlo.divide %x, %lb : tensor<5x1xf64>
  %sq = stablehlo.multiply %xs, %xs : tensor<5x1xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<f64>
  %s = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<5x1xf64>, tensor<f64>) -> tensor<5xf64>
  %d = stablehlo.dot_general %xs, %xs, contracting_dims = [1] x [1] : (tensor<5x1xf64>, tensor<5x1xf64>) -> tensor<5x5xf64>
  %si = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<5xf64>) -> tensor<5x5xf64>
  %u = stablehlo.subtract %si, %d : tensor<5x5xf64>
  %z = stablehlo.constant dense<0.0> : tensor<5x5xf64>
  %c = stablehlo.compare GE, %u, %z, FLOAT : (tensor<5x5xf64>, tensor<5x5xf64>) -> tensor<5x5xi1>
  return %c : tensor<5x5xi1>
}
