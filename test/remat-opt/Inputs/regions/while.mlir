// A while loop (as JAX's while_loop lowers) carrying a tensor.
func.func @step(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<16xf32>
  %x = linalg.add ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r:2 = scf.while (%i = %c0, %acc = %x) : (index, tensor<16xf32>) -> (index, tensor<16xf32>) {
    %p = arith.cmpi slt, %i, %c4 : index
    scf.condition(%p) %i, %acc : index, tensor<16xf32>
  } do {
  ^bb0(%j: index, %acc2: tensor<16xf32>):
    %n = linalg.add ins(%acc2, %a : tensor<16xf32>, tensor<16xf32>) outs(%acc2 : tensor<16xf32>) -> tensor<16xf32>
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %n : index, tensor<16xf32>
  }
  return %r#1 : tensor<16xf32>
}
