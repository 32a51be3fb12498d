func.func @out_of_range(%a: tensor<4xf32> {iree.abi.output = 3 : index}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

func.func @wrong_type(%a: tensor<4xf32>, %b: tensor<8xf32> {tf.aliasing_output = 0 : i32}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

func.func @twice(%a: tensor<4xf32> {iree.abi.output = 0 : index}, %b: tensor<4xf32> {iree.abi.output = 0 : index}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

func.func @not_an_index(%a: tensor<4xf32> {iree.abi.output = "zero"}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

func.func @disagree(%a: tensor<4xf32> {iree.abi.output = 0 : index, tf.aliasing_output = 1 : i32}, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
