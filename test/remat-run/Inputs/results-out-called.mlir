// @step is called by @twice as well as by its C interface: it keeps its
// struct return; @twice, called only by its C interface, does not
// (test/remat-run/results-out.test).
func.func @step(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %x, %x : tensor<4xf32>, tensor<4xf32>
}
func.func @twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a, %b = func.call @step(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
