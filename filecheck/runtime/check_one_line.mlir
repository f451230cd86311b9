// RUN: hlograph-run %s | filecheck %s
// RUN: hlograph-run -O2 %s | filecheck %s

// check.* ops anywhere on a line: a module written on one line.
// CHECK: check_one_line.mlir: 2 checks passed
func.func @main() { %a = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64> %b = stablehlo.add %a, %a : tensor<3xi64> check.expect_eq_const %b, dense<[-4, 0, 4]> : tensor<3xi64> check.expect_eq %a, %a : tensor<3xi64> func.return }
