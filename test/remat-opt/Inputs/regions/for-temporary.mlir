// A loop (as JAX's scan lowers) with a temporary in its body.
func.func @step(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<16xf32>
  %x = linalg.add ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> tensor<16xf32> {
    %t0 = tensor.empty() : tensor<16xf32>
    %t = linalg.mul ins(%acc, %a : tensor<16xf32>, tensor<16xf32>) outs(%t0 : tensor<16xf32>) -> tensor<16xf32>
    %n = linalg.add ins(%acc, %t : tensor<16xf32>, tensor<16xf32>) outs(%acc : tensor<16xf32>) -> tensor<16xf32>
    scf.yield %n : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
