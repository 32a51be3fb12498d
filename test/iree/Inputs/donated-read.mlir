// An optimizer step in the form remat-iree plans: %m's update is returned and
// also read by %w's update; %w's update only by the return.
func.func @step(%w: tensor<64x64xf32> {iree.abi.output = 0 : index}, %m: tensor<64x64xf32> {iree.abi.output = 1 : index}, %g: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %e = tensor.empty() : tensor<64x64xf32>
  %m2 = linalg.add ins(%m, %g : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %w2 = linalg.sub ins(%w, %m2 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %w2, %m2 : tensor<64x64xf32>, tensor<64x64xf32>
}
