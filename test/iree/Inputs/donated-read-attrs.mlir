// Donation attributes beside others: only the donation of the result read elsewhere goes.
func.func @f(%a: tensor<4xf32> {iree.abi.output = 0 : index, foo.bar}, %b: tensor<4xf32> {foo.baz, iree.abi.output = 1 : index}) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = arith.addf %a, %b : tensor<4xf32>
  %1 = arith.mulf %0, %0 : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
