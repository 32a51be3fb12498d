// torch.cumsum(x, 1): torch 2.15.0+cu132, torch-mlir linalg-on-tensors, generic form (torch-scan/make.py)
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x6xi64>) -> tensor<4x6xi64>, sym_name = "cumsum_i64_dim1"}> ({
  ^bb0(%arg0: tensor<4x6xi64>):
    %0 = "arith.constant"() <{value = 0 : i64}> : () -> i64
    %1 = "tensor.empty"() : () -> tensor<4x6xi64>
    %2 = "linalg.fill"(%0, %1) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg5: i64, %arg6: i64):
      "linalg.yield"(%arg5) : (i64) -> ()
    }) : (i64, tensor<4x6xi64>) -> tensor<4x6xi64>
    %3 = "tensor.empty"() : () -> tensor<4xi64>
    %4 = "linalg.fill"(%0, %3) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg3: i64, %arg4: i64):
      "linalg.yield"(%arg3) : (i64) -> ()
    }) : (i64, tensor<4xi64>) -> tensor<4xi64>
    %5:2 = "tm_tensor.scan"(%arg0, %2, %4) <{dimension = 1 : i64, inclusive = true, operandSegmentSizes = array<i32: 1, 2>}> ({
    ^bb0(%arg1: i64, %arg2: i64):
      %6 = "arith.addi"(%arg1, %arg2) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
      "tm_tensor.yield"(%6) : (i64) -> ()
    }) : (tensor<4x6xi64>, tensor<4x6xi64>, tensor<4xi64>) -> (tensor<4x6xi64>, tensor<4xi64>)
    "func.return"(%5#0) : (tensor<4x6xi64>) -> ()
  }) : () -> ()
}) : () -> ()
