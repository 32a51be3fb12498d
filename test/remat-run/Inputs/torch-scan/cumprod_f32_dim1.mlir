// torch.cumprod(x, 1): torch 2.15.0+cu132, torch-mlir linalg-on-tensors, generic form (torch-scan/make.py)
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<3x6xf32>) -> tensor<3x6xf32>, sym_name = "cumprod_f32_dim1"}> ({
  ^bb0(%arg0: tensor<3x6xf32>):
    %0 = "arith.constant"() <{value = 1.000000e+00 : f32}> : () -> f32
    %1 = "tensor.empty"() : () -> tensor<3x6xf32>
    %2 = "linalg.fill"(%0, %1) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg5: f32, %arg6: f32):
      "linalg.yield"(%arg5) : (f32) -> ()
    }) : (f32, tensor<3x6xf32>) -> tensor<3x6xf32>
    %3 = "tensor.empty"() : () -> tensor<3xf32>
    %4 = "linalg.fill"(%0, %3) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg3: f32, %arg4: f32):
      "linalg.yield"(%arg3) : (f32) -> ()
    }) : (f32, tensor<3xf32>) -> tensor<3xf32>
    %5:2 = "tm_tensor.scan"(%arg0, %2, %4) <{dimension = 1 : i64, inclusive = true, operandSegmentSizes = array<i32: 1, 2>}> ({
    ^bb0(%arg1: f32, %arg2: f32):
      %6 = "arith.mulf"(%arg1, %arg2) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "tm_tensor.yield"(%6) : (f32) -> ()
    }) : (tensor<3x6xf32>, tensor<3x6xf32>, tensor<3xf32>) -> (tensor<3x6xf32>, tensor<3xf32>)
    "func.return"(%5#0) : (tensor<3x6xf32>) -> ()
  }) : () -> ()
}) : () -> ()
