// 100000000000 x 100000000 x 4 bytes does not fit in 64 bits: the product
// once wrapped around to 3,106,511,852,580,896,768 bytes, silently.
func.func @step(%arg0: tensor<4xf32>) -> tensor<100000000000x100000000xf32> {
  %huge = tensor.empty() : tensor<100000000000x100000000xf32> loc("huge")
  return %huge : tensor<100000000000x100000000xf32>
}
