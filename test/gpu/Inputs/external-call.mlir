// A step that hands a tensor to a function defined elsewhere: its body would
// read device memory on the host.
func.func private @log_tensor(tensor<4xf32>) -> tensor<4xf32>
func.func @step(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = func.call @log_tensor(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
