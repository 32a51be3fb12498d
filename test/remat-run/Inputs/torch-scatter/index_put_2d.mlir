// torch.index_put(x, (i, j), v, accumulate=True): torch 2.15.0+cu132, torch-mlir linalg-on-tensors, generic form (torch-scatter/make.py)
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<6x7xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xf32>) -> tensor<6x7xf32>, sym_name = "index_put_2d"}> ({
  ^bb0(%arg0: tensor<6x7xf32>, %arg1: tensor<4xi64>, %arg2: tensor<4xi64>, %arg3: tensor<4xf32>):
    %0 = "tensor.expand_shape"(%arg1) <{reassociation = [[0, 1]], static_output_shape = array<i64: 4, 1>}> : (tensor<4xi64>) -> tensor<4x1xi64>
    %1 = "tensor.expand_shape"(%arg2) <{reassociation = [[0, 1]], static_output_shape = array<i64: 4, 1>}> : (tensor<4xi64>) -> tensor<4x1xi64>
    %2 = "tensor.concat"(%0, %1) <{dim = 1 : i64}> : (tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x2xi64>
    %3 = "tensor.expand_shape"(%arg3) <{reassociation = [[0, 1, 2]], static_output_shape = array<i64: 4, 1, 1>}> : (tensor<4xf32>) -> tensor<4x1x1xf32>
    %4 = "tm_tensor.scatter"(%3, %2, %arg0) <{dimension_map = array<i64: 0, 1>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
    ^bb0(%arg4: f32, %arg5: f32):
      %5 = "arith.addf"(%arg5, %arg4) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "tm_tensor.yield"(%5) : (f32) -> ()
    }) : (tensor<4x1x1xf32>, tensor<4x2xi64>, tensor<6x7xf32>) -> tensor<6x7xf32>
    "func.return"(%4) : (tensor<6x7xf32>) -> ()
  }) : () -> ()
}) : () -> ()
