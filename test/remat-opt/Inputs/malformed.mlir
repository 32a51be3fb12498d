// A function whose body uses an undefined value.
func.func @broken(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  return %undefined : tensor<4xf32>
}
