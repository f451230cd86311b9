// RUN: hlograph-opt %s -p 'hlograph-roll-loops{min-ops=6 body-ops=4}' --split-input-file | filecheck %s
// RUN: hlograph-opt %s -p hlograph-roll-loops --split-input-file | filecheck %s --check-prefix=DEFAULT

// Five repetitions of (sine, cosine, add): the loop carries the add (whose value
// may cross a kernel boundary) and takes the shared product as an invariant,
// cut where it is defined so that no kernel multiplies it again. One
// repetition an iteration (body-ops=4 holds one of three ops), five iterations,
// and the last repetition's value is the loop's.
// CHECK-LABEL: func.func @chain(
// DEFAULT-LABEL: func.func @chain(
// DEFAULT-NOT: stablehlo.while
func.func @chain(%x: tensor<8xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: %[[M:.+]] = stablehlo.multiply %arg0, %arg1
  // CHECK-NEXT: %[[MC:.+]] = stablehlo.custom_call @dce_sink(%[[M]])
  // CHECK-NEXT: %[[ZERO:.+]] = stablehlo.constant dense<0> : tensor<i32>
  // CHECK-NEXT: %[[W:.+]]:3 = stablehlo.while(%[[I:.+]] = %[[ZERO]], %[[V:.+]] = %arg0, %[[K:.+]] = %[[MC]])
  // CHECK-SAME: : tensor<i32>, tensor<8xf32>, tensor<8xf32>
  // CHECK: %[[N:.+]] = stablehlo.constant dense<5> : tensor<i32>
  // CHECK-NEXT: stablehlo.compare LT, %[[I]], %[[N]], SIGNED
  // CHECK: } do {
  // CHECK-NEXT: %[[S:.+]] = stablehlo.sine %[[V]]
  // CHECK-NEXT: %[[O:.+]] = stablehlo.cosine %[[S]]
  // CHECK-NEXT: %[[A:.+]] = stablehlo.add %[[O]], %[[K]]
  // CHECK-NEXT: %[[ONE:.+]] = stablehlo.constant dense<1> : tensor<i32>
  // CHECK-NEXT: %[[J:.+]] = stablehlo.add %[[I]], %[[ONE]]
  // CHECK-NEXT: stablehlo.return %[[J]], %[[A]], %[[K]]
  // CHECK: return %[[W]]#1
  %xc = stablehlo.multiply %x, %c : tensor<8xf32>
  %0 = stablehlo.sine %x : tensor<8xf32>
  %1 = stablehlo.cosine %0 : tensor<8xf32>
  %2 = stablehlo.add %1, %xc : tensor<8xf32>
  %3 = stablehlo.sine %2 : tensor<8xf32>
  %4 = stablehlo.cosine %3 : tensor<8xf32>
  %5 = stablehlo.add %4, %xc : tensor<8xf32>
  %6 = stablehlo.sine %5 : tensor<8xf32>
  %7 = stablehlo.cosine %6 : tensor<8xf32>
  %8 = stablehlo.add %7, %xc : tensor<8xf32>
  %9 = stablehlo.sine %8 : tensor<8xf32>
  %10 = stablehlo.cosine %9 : tensor<8xf32>
  %11 = stablehlo.add %10, %xc : tensor<8xf32>
  %12 = stablehlo.sine %11 : tensor<8xf32>
  %13 = stablehlo.cosine %12 : tensor<8xf32>
  %14 = stablehlo.add %13, %xc : tensor<8xf32>
  return %14 : tensor<8xf32>
}

// -----

// Two repetitions an iteration, two iterations; the fifth repetition stays
// after the loop, which feeds it, and the return uses its values. Integer
// values are safe to carry whatever computes them.
// CHECK-LABEL: func.func @tail_and_integers(
func.func @tail_and_integers(%x: tensor<4xi32>, %y: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  // CHECK: %[[W:.+]]:3 = stablehlo.while(%[[I:.+]] = %{{.+}}, %[[V:.+]] = %arg0, %[[Y:.+]] = %arg1)
  // CHECK: stablehlo.constant dense<2> : tensor<i32>
  // CHECK: } do {
  // CHECK-NEXT: %[[M1:.+]] = stablehlo.multiply %[[V]], %[[Y]]
  // CHECK-NEXT: %[[A1:.+]] = stablehlo.add %[[M1]], %[[Y]]
  // CHECK-NEXT: %[[M2:.+]] = stablehlo.multiply %[[A1]], %[[Y]]
  // CHECK-NEXT: %[[A2:.+]] = stablehlo.add %[[M2]], %[[Y]]
  // CHECK: stablehlo.return %{{.+}}, %[[A2]], %[[Y]]
  // CHECK: %[[M:.+]] = stablehlo.multiply %[[W]]#1, %arg1
  // CHECK-NEXT: %[[A:.+]] = stablehlo.add %[[M]], %arg1
  // CHECK-NEXT: return %[[A]], %[[M]]
  %0 = stablehlo.multiply %x, %y : tensor<4xi32>
  %1 = stablehlo.add %0, %y : tensor<4xi32>
  %2 = stablehlo.multiply %1, %y : tensor<4xi32>
  %3 = stablehlo.add %2, %y : tensor<4xi32>
  %4 = stablehlo.multiply %3, %y : tensor<4xi32>
  %5 = stablehlo.add %4, %y : tensor<4xi32>
  %6 = stablehlo.multiply %5, %y : tensor<4xi32>
  %7 = stablehlo.add %6, %y : tensor<4xi32>
  %8 = stablehlo.multiply %7, %y : tensor<4xi32>
  %9 = stablehlo.add %8, %y : tensor<4xi32>
  return %9, %8 : tensor<4xi32>, tensor<4xi32>
}

// -----

// A repetition of (add, subtract) that uses both values of the one before: the
// loop carries two values, starting from the arguments.
// CHECK-LABEL: func.func @two_carried(
func.func @two_carried(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[W:.+]]:3 = stablehlo.while(%[[I:.+]] = %{{.+}}, %[[P:.+]] = %arg0, %[[Q:.+]] = %arg1)
  // CHECK: } do {
  // CHECK-NEXT: %[[A1:.+]] = stablehlo.add %[[P]], %[[Q]]
  // CHECK-NEXT: %[[S1:.+]] = stablehlo.subtract %[[A1]], %[[P]]
  // CHECK-NEXT: %[[A2:.+]] = stablehlo.add %[[A1]], %[[S1]]
  // CHECK-NEXT: %[[S2:.+]] = stablehlo.subtract %[[A2]], %[[A1]]
  // CHECK: stablehlo.return %{{.+}}, %[[A2]], %[[S2]]
  // CHECK: %[[A:.+]] = stablehlo.add %[[W]]#1, %[[W]]#2
  // CHECK-NEXT: %[[S:.+]] = stablehlo.subtract %[[A]], %[[W]]#1
  // CHECK-NEXT: return %[[S]]
  %0 = stablehlo.add %x, %y : tensor<4xf32>
  %1 = stablehlo.subtract %0, %x : tensor<4xf32>
  %2 = stablehlo.add %0, %1 : tensor<4xf32>
  %3 = stablehlo.subtract %2, %0 : tensor<4xf32>
  %4 = stablehlo.add %2, %3 : tensor<4xf32>
  %5 = stablehlo.subtract %4, %2 : tensor<4xf32>
  %6 = stablehlo.add %4, %5 : tensor<4xf32>
  %7 = stablehlo.subtract %6, %4 : tensor<4xf32>
  %8 = stablehlo.add %6, %7 : tensor<4xf32>
  %9 = stablehlo.subtract %8, %6 : tensor<4xf32>
  return %9 : tensor<4xf32>
}

// -----

// A float product would be carried from one iteration to the next (XLA contracts
// it into the next multiply-add otherwise): not rolled.
// CHECK-LABEL: func.func @products_not_carried(
func.func @products_not_carried(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NOT: stablehlo.while
  // CHECK-COUNT-7: stablehlo.multiply
  %0 = stablehlo.multiply %x, %y : tensor<4xf32>
  %1 = stablehlo.multiply %0, %y : tensor<4xf32>
  %2 = stablehlo.multiply %1, %y : tensor<4xf32>
  %3 = stablehlo.multiply %2, %y : tensor<4xf32>
  %4 = stablehlo.multiply %3, %y : tensor<4xf32>
  %5 = stablehlo.multiply %4, %y : tensor<4xf32>
  %6 = stablehlo.multiply %5, %y : tensor<4xf32>
  return %6 : tensor<4xf32>
}

// -----

// A value of a repetition before the last is used after the run (the return):
// those repetitions cannot go into a loop, and what is left is too short.
// CHECK-LABEL: func.func @value_used_after_the_run(
func.func @value_used_after_the_run(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NOT: stablehlo.while
  %0 = stablehlo.add %x, %y : tensor<4xf32>
  %1 = stablehlo.add %0, %y : tensor<4xf32>
  %2 = stablehlo.add %1, %y : tensor<4xf32>
  %3 = stablehlo.add %2, %y : tensor<4xf32>
  %4 = stablehlo.add %3, %y : tensor<4xf32>
  %5 = stablehlo.add %4, %y : tensor<4xf32>
  %6 = stablehlo.add %5, %y : tensor<4xf32>
  %7 = stablehlo.add %6, %y : tensor<4xf32>
  return %7, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Ops with different attributes are not counterparts; a run around them.
// CHECK-LABEL: func.func @attributes_differ(
func.func @attributes_differ(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
  // CHECK-NOT: stablehlo.while
  %0 = stablehlo.compare LT, %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = stablehlo.compare GT, %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = stablehlo.compare LE, %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %3 = stablehlo.compare GE, %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %4 = stablehlo.compare EQ, %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %5 = stablehlo.compare NE, %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %6 = stablehlo.and %0, %1 : tensor<4xi1>
  %7 = stablehlo.and %6, %2 : tensor<4xi1>
  %8 = stablehlo.and %7, %3 : tensor<4xi1>
  %9 = stablehlo.and %8, %4 : tensor<4xi1>
  %10 = stablehlo.and %9, %5 : tensor<4xi1>
  return %10 : tensor<4xi1>
}

// -----

// Six layers of tanh(x @ w) whose products do 32x32x32 work (at least
// xla.pjrt.LOOP_ROLL_DOT_WORK): one layer an iteration whatever body-ops says,
// so the loop's body holds one product.
// CHECK-LABEL: func.func @products_one_layer_an_iteration(
  // CHECK: stablehlo.while
  // CHECK: } do {
  // CHECK-NEXT: stablehlo.tanh
  // CHECK-NEXT: stablehlo.dot_general
  // CHECK-NEXT: stablehlo.constant dense<1>
  // CHECK: stablehlo.return
func.func @products_one_layer_an_iteration(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %d0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %t0 = stablehlo.tanh %d0 : tensor<32x32xf32>
  %d1 = stablehlo.dot_general %t0, %w, contracting_dims = [1] x [0] : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %t1 = stablehlo.tanh %d1 : tensor<32x32xf32>
  %d2 = stablehlo.dot_general %t1, %w, contracting_dims = [1] x [0] : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %t2 = stablehlo.tanh %d2 : tensor<32x32xf32>
  %d3 = stablehlo.dot_general %t2, %w, contracting_dims = [1] x [0] : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %t3 = stablehlo.tanh %d3 : tensor<32x32xf32>
  %d4 = stablehlo.dot_general %t3, %w, contracting_dims = [1] x [0] : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %t4 = stablehlo.tanh %d4 : tensor<32x32xf32>
  %d5 = stablehlo.dot_general %t4, %w, contracting_dims = [1] x [0] : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %t5 = stablehlo.tanh %d5 : tensor<32x32xf32>
  return %t5 : tensor<32x32xf32>
}

// -----

// The same layers on 4x4 matrices: the products are cheap, so body-ops decides
// (two layers of two ops an iteration).
// CHECK-LABEL: func.func @small_products_by_body_ops(
  // CHECK: stablehlo.while
  // CHECK: } do {
  // CHECK-NEXT: stablehlo.tanh
  // CHECK-NEXT: stablehlo.dot_general
  // CHECK-NEXT: stablehlo.tanh
  // CHECK-NEXT: stablehlo.dot_general
  // CHECK-NEXT: stablehlo.constant dense<1>
func.func @small_products_by_body_ops(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %d0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %t0 = stablehlo.tanh %d0 : tensor<4x4xf32>
  %d1 = stablehlo.dot_general %t0, %w, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %t1 = stablehlo.tanh %d1 : tensor<4x4xf32>
  %d2 = stablehlo.dot_general %t1, %w, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %t2 = stablehlo.tanh %d2 : tensor<4x4xf32>
  %d3 = stablehlo.dot_general %t2, %w, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %t3 = stablehlo.tanh %d3 : tensor<4x4xf32>
  %d4 = stablehlo.dot_general %t3, %w, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %t4 = stablehlo.tanh %d4 : tensor<4x4xf32>
  %d5 = stablehlo.dot_general %t4, %w, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %t5 = stablehlo.tanh %d5 : tensor<4x4xf32>
  return %t5 : tensor<4x4xf32>
}
