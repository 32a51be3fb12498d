func.func private @helper(tensor<16xf32>) -> tensor<16xf32>
func.func @leftovers(%a: tensor<16xf32>, %p: i1) -> tensor<16xf32> {
  %t = "torch_c.from_builtin_tensor"(%a) : (tensor<16xf32>) -> tensor<16xf32>
  %c = func.call @helper(%t) : (tensor<16xf32>) -> tensor<16xf32>
  %r = scf.if %p -> tensor<16xf32> {
    scf.yield %c : tensor<16xf32>
  } else {
    scf.yield %a : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
