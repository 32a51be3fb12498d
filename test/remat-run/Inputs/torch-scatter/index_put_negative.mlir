// torch.index_put(x, (i,), v, accumulate=True), negative i: torch 2.15.0+cu132, torch-mlir linalg-on-tensors, generic form (torch-scatter/make.py)
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<6x3xf32>, tensor<5xi64>, tensor<5x3xf32>) -> tensor<6x3xf32>, sym_name = "index_put_negative"}> ({
  ^bb0(%arg0: tensor<6x3xf32>, %arg1: tensor<5xi64>, %arg2: tensor<5x3xf32>):
    %0 = "tensor.expand_shape"(%arg1) <{reassociation = [[0, 1]], static_output_shape = array<i64: 5, 1>}> : (tensor<5xi64>) -> tensor<5x1xi64>
    %1 = "tensor.expand_shape"(%arg2) <{reassociation = [[0], [1, 2]], static_output_shape = array<i64: 5, 1, 3>}> : (tensor<5x3xf32>) -> tensor<5x1x3xf32>
    %2 = "tm_tensor.scatter"(%1, %0, %arg0) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
    ^bb0(%arg3: f32, %arg4: f32):
      %3 = "arith.addf"(%arg4, %arg3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "tm_tensor.yield"(%3) : (f32) -> ()
    }) : (tensor<5x1x3xf32>, tensor<5x1xi64>, tensor<6x3xf32>) -> tensor<6x3xf32>
    "func.return"(%2) : (tensor<6x3xf32>) -> ()
  }) : () -> ()
}) : () -> ()
