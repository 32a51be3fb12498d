func.func private @helper(tensor<16xf32>) -> tensor<16xf32>
func.func @leftovers(%a: tensor<16xf32>, %p: i1) -> (tensor<16xf32>, f32) {
  %t = "torch_c.from_builtin_tensor"(%a) : (tensor<16xf32>) -> tensor<16xf32>
  %c = func.call @helper(%t) : (tensor<16xf32>) -> tensor<16xf32>
  %r = scf.if %p -> f32 {
    %one = arith.constant 1.0 : f32
    scf.yield %one : f32
  } else {
    %two = arith.constant 2.0 : f32
    scf.yield %two : f32
  }
  return %c, %r : tensor<16xf32>, f32
}
