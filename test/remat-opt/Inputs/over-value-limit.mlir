// 2^20 x 2^20 x 2^20 x 4 bytes = 2^62: fits in 64 bits, over 2^50 per value.
func.func @step(%arg0: tensor<4xf32>) -> tensor<1048576x1048576x1048576xf32> {
  %big = tensor.empty() : tensor<1048576x1048576x1048576xf32> loc("big")
  return %big : tensor<1048576x1048576x1048576xf32>
}
