// A step returning a scalar read from a tensor of more than 512 elements: on the
// GPU path the host would have to read device memory, and the buffer is too
// large to copy whole to the host's stack (bad-input.test).
func.func @step(%s: tensor<1024xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %k = tensor.extract %s[%c0] : tensor<1024xf32>
  return %k : f32
}
