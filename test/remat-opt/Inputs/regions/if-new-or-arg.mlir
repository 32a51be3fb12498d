// One branch yields a tensor the step computes, the other an argument: MLIR's
// ownership-based deallocation clones in the branch that yields the argument.
func.func @step(%c: i1, %a: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %x = linalg.add ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r = scf.if %c -> tensor<16xf32> {
    scf.yield %x : tensor<16xf32>
  } else {
    scf.yield %a : tensor<16xf32>
  }
  %e3 = tensor.empty() : tensor<16xf32>
  %z = linalg.mul ins(%r, %x : tensor<16xf32>, tensor<16xf32>) outs(%e3 : tensor<16xf32>) -> tensor<16xf32>
  return %z, %r : tensor<16xf32>, tensor<16xf32>
}
