// RUN: hlograph-opt %s -p 'hlograph-cut-fusion{max-depth=2}' --split-input-file | filecheck %s
// RUN: hlograph-opt %s -p hlograph-cut-fusion --split-input-file | filecheck %s --check-prefix=DEFAULT

// A chain is cut where an op reaches the depth and its value is safe to carry
// between kernels (an add here): the identity custom call aliases its operand,
// and later ops use it. The last value only goes to the return: not cut.
// CHECK-LABEL: func.func @chain_cut_at_adds(
// DEFAULT-LABEL: func.func @chain_cut_at_adds(
// DEFAULT-NOT: dce_sink
func.func @chain_cut_at_adds(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: %[[S:.+]] = stablehlo.sine %arg0
  // CHECK-NEXT: %[[A:.+]] = stablehlo.add %[[S]], %arg1
  // CHECK-NEXT: %[[C1:.+]] = stablehlo.custom_call @dce_sink(%[[A]])
  // CHECK-SAME: output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]
  // CHECK-SAME: (tensor<8xf32>) -> tensor<8xf32>
  // CHECK-NEXT: %[[K:.+]] = stablehlo.cosine %[[C1]]
  // CHECK-NEXT: %[[B:.+]] = stablehlo.add %[[K]], %arg1
  // CHECK-NEXT: %[[C2:.+]] = stablehlo.custom_call @dce_sink(%[[B]])
  // CHECK-NEXT: %[[T:.+]] = stablehlo.sine %[[C2]]
  // CHECK-NEXT: %[[R:.+]] = stablehlo.add %[[T]], %arg1
  // CHECK-NEXT: return %[[R]]
  %0 = stablehlo.sine %x : tensor<8xf32>
  %1 = stablehlo.add %0, %y : tensor<8xf32>
  %2 = stablehlo.cosine %1 : tensor<8xf32>
  %3 = stablehlo.add %2, %y : tensor<8xf32>
  %4 = stablehlo.sine %3 : tensor<8xf32>
  %5 = stablehlo.add %4, %y : tensor<8xf32>
  return %5 : tensor<8xf32>
}

// -----

// Products, exponentials and negated products are never cut (XLA contracts a
// multiply into the add that uses it): the chain goes on deeper to the add.
// CHECK-LABEL: func.func @no_cut_after_a_multiply(
func.func @no_cut_after_a_multiply(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: stablehlo.multiply
  // CHECK-NEXT: stablehlo.exponential
  // CHECK-NEXT: stablehlo.multiply
  // CHECK-NEXT: %[[N:.+]] = stablehlo.negate
  // CHECK-NEXT: %[[A:.+]] = stablehlo.add %[[N]], %arg1
  // CHECK-NEXT: %[[C:.+]] = stablehlo.custom_call @dce_sink(%[[A]])
  // CHECK-NEXT: stablehlo.tanh %[[C]]
  // CHECK-NOT: dce_sink
  %0 = stablehlo.multiply %x, %y : tensor<8xf32>
  %1 = stablehlo.exponential %0 : tensor<8xf32>
  %2 = stablehlo.multiply %1, %y : tensor<8xf32>
  %3 = stablehlo.negate %2 : tensor<8xf32>
  %4 = stablehlo.add %3, %y : tensor<8xf32>
  %5 = stablehlo.tanh %4 : tensor<8xf32>
  return %5 : tensor<8xf32>
}

// -----

// A product used on both sides of a cut is cut where it is defined, so that no
// kernel multiplies it again: every add reads it as it did.
// CHECK-LABEL: func.func @shared_product_materialized(
func.func @shared_product_materialized(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: %[[M:.+]] = stablehlo.multiply %arg0, %arg1
  // CHECK-NEXT: %[[MC:.+]] = stablehlo.custom_call @dce_sink(%[[M]])
  // CHECK-NEXT: %[[S:.+]] = stablehlo.sine %arg0
  // CHECK-NEXT: %[[A:.+]] = stablehlo.add %[[S]], %[[MC]]
  // CHECK-NEXT: %[[AC:.+]] = stablehlo.custom_call @dce_sink(%[[A]])
  // CHECK-NEXT: %[[K:.+]] = stablehlo.cosine %[[AC]]
  // CHECK-NEXT: %[[B:.+]] = stablehlo.add %[[K]], %[[MC]]
  // CHECK-NEXT: return %[[B]]
  %m = stablehlo.multiply %x, %y : tensor<8xf32>
  %0 = stablehlo.sine %x : tensor<8xf32>
  %1 = stablehlo.add %0, %m : tensor<8xf32>
  %2 = stablehlo.cosine %1 : tensor<8xf32>
  %3 = stablehlo.add %2, %m : tensor<8xf32>
  return %3 : tensor<8xf32>
}

// -----

// A product is a fusion boundary: a value only it uses is not cut (it reads it
// from memory anyway), and the depth starts again after it. Integer values are
// always safe to cut.
// CHECK-LABEL: func.func @boundaries_and_integers(
func.func @boundaries_and_integers(%w: tensor<8x8xf32>, %x: tensor<8xf32>, %i: tensor<8xi32>) -> (tensor<8xf32>, tensor<8xi32>) {
  // CHECK: stablehlo.sine %arg1
  // CHECK-NEXT: %[[A:.+]] = stablehlo.add
  // CHECK-NEXT: %[[D:.+]] = stablehlo.dot_general %arg0, %[[A]]
  // CHECK-NEXT: stablehlo.sine %[[D]]
  // CHECK-NEXT: stablehlo.add
  // CHECK-NEXT: custom_call @dce_sink
  // CHECK: %[[I:.+]] = stablehlo.add %arg2, %arg2 : tensor<8xi32>
  // CHECK-NEXT: %[[M:.+]] = stablehlo.multiply %[[I]], %[[I]] : tensor<8xi32>
  // CHECK-NEXT: %[[MC:.+]] = stablehlo.custom_call @dce_sink(%[[M]]) {{.*}} : (tensor<8xi32>) -> tensor<8xi32>
  // CHECK-NEXT: stablehlo.multiply %[[MC]], %arg2
  %0 = stablehlo.sine %x : tensor<8xf32>
  %1 = stablehlo.add %0, %x : tensor<8xf32>
  %2 = stablehlo.dot_general %w, %1, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = stablehlo.sine %2 : tensor<8xf32>
  %4 = stablehlo.add %3, %x : tensor<8xf32>
  %5 = stablehlo.cosine %4 : tensor<8xf32>
  %6 = stablehlo.add %i, %i : tensor<8xi32>
  %7 = stablehlo.multiply %6, %6 : tensor<8xi32>
  %8 = stablehlo.multiply %7, %i : tensor<8xi32>
  return %5, %8 : tensor<8xf32>, tensor<8xi32>
}

// -----

// XLA inlines calls: a call adds its callee's chain to its operands'. The
// callee is cut on its own; a call that would take a chain past the depth gets
// its operands cut first.
// CHECK-LABEL: func.func private @callee(
// CHECK: stablehlo.add
// CHECK-NEXT: custom_call @dce_sink
// CHECK-LABEL: func.func @caller(
func.func private @callee(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.sine %a : tensor<4xf32>
  %1 = stablehlo.add %0, %a : tensor<4xf32>
  %2 = stablehlo.cosine %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[A:.+]] = stablehlo.add %arg0, %arg0
  // CHECK-NEXT: %[[C:.+]] = stablehlo.custom_call @dce_sink(%[[A]])
  // CHECK-NEXT: call @callee(%[[C]])
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  %1 = func.call @callee(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Unknown dims are not cut.
// CHECK-LABEL: func.func @dynamic_shapes_left_alone(
func.func @dynamic_shapes_left_alone(%x: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK-NOT: dce_sink
  %0 = stablehlo.add %x, %x : tensor<?xf32>
  %1 = stablehlo.add %0, %x : tensor<?xf32>
  %2 = stablehlo.add %1, %x : tensor<?xf32>
  %3 = stablehlo.sine %2 : tensor<?xf32>
  return %3 : tensor<?xf32>
}
