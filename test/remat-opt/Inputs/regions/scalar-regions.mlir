// Region ops that touch no tensor allocate nothing: modelled, the estimate
// is the measured peak.
func.func @step(%c: i1, %a: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<16xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %x = linalg.add ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %f0) -> f32 {
    %one = arith.constant 1.0 : f32
    %n = arith.addf %acc, %one : f32
    scf.yield %n : f32
  }
  %w = scf.if %c -> f32 {
    scf.yield %s : f32
  } else {
    scf.yield %f0 : f32
  }
  %e2 = tensor.empty() : tensor<16xf32>
  %y = linalg.mul ins(%x, %a : tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  return %y, %w : tensor<16xf32>, f32
}
