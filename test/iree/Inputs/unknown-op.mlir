// An op of IREE's flow dialect in custom form: MLIR 22 cannot parse it.
func.func @step(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = flow.tensor.barrier %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
