// A value kept live across an scf.for (accumulating in place) that a plan
// recomputes after the loop: the plan's peak is the measured one.
func.func @step(%a: tensor<256xf32>, %b: tensor<256xf32>) -> tensor<256xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e0 = tensor.empty() : tensor<256xf32>
  %x = linalg.add ins(%a, %b : tensor<256xf32>, tensor<256xf32>) outs(%e0 : tensor<256xf32>) -> tensor<256xf32>
  %e1 = tensor.empty() : tensor<256xf32>
  %init = linalg.mul ins(%a, %b : tensor<256xf32>, tensor<256xf32>) outs(%e1 : tensor<256xf32>) -> tensor<256xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<256xf32> {
    %n = linalg.add ins(%acc, %a : tensor<256xf32>, tensor<256xf32>) outs(%acc : tensor<256xf32>) -> tensor<256xf32>
    scf.yield %n : tensor<256xf32>
  }
  %e2 = tensor.empty() : tensor<256xf32>
  %t = linalg.mul ins(%r, %r : tensor<256xf32>, tensor<256xf32>) outs(%e2 : tensor<256xf32>) -> tensor<256xf32>
  %out = linalg.add ins(%t, %x : tensor<256xf32>, tensor<256xf32>) outs(%t : tensor<256xf32>) -> tensor<256xf32>
  return %out : tensor<256xf32>
}
