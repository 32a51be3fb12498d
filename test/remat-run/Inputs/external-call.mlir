func.func private @helper(tensor<16xf32>) -> tensor<16xf32>
func.func @step(%a: tensor<16xf32>) -> tensor<16xf32> {
  %c = func.call @helper(%a) : (tensor<16xf32>) -> tensor<16xf32>
  return %c : tensor<16xf32>
}
