// RoBERTa's position ids: torch.cumsum(ids.ne(1).int(), 1): torch 2.15.0+cu132, torch-mlir linalg-on-tensors, generic form (torch-scan/make.py)
#map = affine_map<(d0, d1) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<3x7xi64>) -> tensor<3x7xi64>, sym_name = "position_ids"}> ({
  ^bb0(%arg0: tensor<3x7xi64>):
    %0 = "arith.constant"() <{value = 0 : i64}> : () -> i64
    %1 = "arith.constant"() <{value = 1 : i64}> : () -> i64
    %2 = "tensor.empty"() : () -> tensor<3x7xi1>
    %3 = "linalg.generic"(%arg0, %2) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg20: i64, %arg21: i1):
      %23 = "arith.cmpi"(%arg20, %1) <{predicate = 1 : i64}> : (i64, i64) -> i1
      "linalg.yield"(%23) : (i1) -> ()
    }) : (tensor<3x7xi64>, tensor<3x7xi1>) -> tensor<3x7xi1>
    %4 = "tensor.empty"() : () -> tensor<3x7xi32>
    %5 = "linalg.generic"(%3, %4) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg18: i1, %arg19: i32):
      %22 = "arith.extui"(%arg18) : (i1) -> i32
      "linalg.yield"(%22) : (i32) -> ()
    }) : (tensor<3x7xi1>, tensor<3x7xi32>) -> tensor<3x7xi32>
    %6 = "tensor.empty"() : () -> tensor<3x7xi64>
    %7 = "linalg.generic"(%5, %6) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg16: i32, %arg17: i64):
      %21 = "arith.extsi"(%arg16) : (i32) -> i64
      "linalg.yield"(%21) : (i64) -> ()
    }) : (tensor<3x7xi32>, tensor<3x7xi64>) -> tensor<3x7xi64>
    %8 = "linalg.fill"(%0, %6) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg14: i64, %arg15: i64):
      "linalg.yield"(%arg14) : (i64) -> ()
    }) : (i64, tensor<3x7xi64>) -> tensor<3x7xi64>
    %9 = "tensor.empty"() : () -> tensor<3xi64>
    %10 = "linalg.fill"(%0, %9) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg12: i64, %arg13: i64):
      "linalg.yield"(%arg12) : (i64) -> ()
    }) : (i64, tensor<3xi64>) -> tensor<3xi64>
    %11:2 = "tm_tensor.scan"(%7, %8, %10) <{dimension = 1 : i64, inclusive = true, operandSegmentSizes = array<i32: 1, 2>}> ({
    ^bb0(%arg10: i64, %arg11: i64):
      %20 = "arith.addi"(%arg10, %arg11) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
      "tm_tensor.yield"(%20) : (i64) -> ()
    }) : (tensor<3x7xi64>, tensor<3x7xi64>, tensor<3xi64>) -> (tensor<3x7xi64>, tensor<3xi64>)
    %12 = "linalg.generic"(%11#0, %4) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg8: i64, %arg9: i32):
      %19 = "arith.trunci"(%arg8) <{overflowFlags = #arith.overflow<none>}> : (i64) -> i32
      "linalg.yield"(%19) : (i32) -> ()
    }) : (tensor<3x7xi64>, tensor<3x7xi32>) -> tensor<3x7xi32>
    %13 = "linalg.generic"(%12, %5, %4) <{indexing_maps = [#map, #map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg5: i32, %arg6: i32, %arg7: i32):
      %18 = "arith.muli"(%arg5, %arg6) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
      "linalg.yield"(%18) : (i32) -> ()
    }) : (tensor<3x7xi32>, tensor<3x7xi32>, tensor<3x7xi32>) -> tensor<3x7xi32>
    %14 = "linalg.generic"(%13, %6) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg3: i32, %arg4: i64):
      %17 = "arith.extsi"(%arg3) : (i32) -> i64
      "linalg.yield"(%17) : (i64) -> ()
    }) : (tensor<3x7xi32>, tensor<3x7xi64>) -> tensor<3x7xi64>
    %15 = "linalg.generic"(%14, %6) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg1: i64, %arg2: i64):
      %16 = "arith.addi"(%arg1, %1) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
      "linalg.yield"(%16) : (i64) -> ()
    }) : (tensor<3x7xi64>, tensor<3x7xi64>) -> tensor<3x7xi64>
    "func.return"(%15) : (tensor<3x7xi64>) -> ()
  }) : () -> ()
}) : () -> ()
