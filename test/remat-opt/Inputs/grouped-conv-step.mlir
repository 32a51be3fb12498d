// A grouped convolution's training step (torch.nn.Conv2d(4, 4, 3, groups=2) after a 3x3 conv, mean, cross
// entropy; 2x3x5x5), exported by remat-export with remat's grouped-convolution backward (python/remat/torch.py):
// linalg.fill writes one expand_shape of a tensor.empty twice (%130: test/remat-opt/shared-empty-view.test).
// step: training step exported by remat.torch.export_step (torch-mlir, linalg on tensors); manifest: step.manifest.json
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
#map7 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#map8 = affine_map<(d0, d1) -> (d0, d1)>
#map9 = affine_map<(d0, d1) -> (d0)>
#map10 = affine_map<(d0, d1) -> (d0, 0)>
#map11 = affine_map<(d0) -> (d0)>
#map12 = affine_map<(d0) -> ()>
#map13 = affine_map<() -> ()>
#map14 = affine_map<(d0, d1) -> ()>
#map15 = affine_map<(d0) -> (d0, 0)>
#map16 = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#map17 = affine_map<(d0, d1, d2, d3) -> (d1)>
#map18 = affine_map<(d0, d1, d2, d3) -> ()>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>, tensor<2x3x5x5xf32>, tensor<2xi64>) -> (tensor<f32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>), sym_name = "step"}> ({
  ^bb0(%arg0: tensor<4x3x3x3xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4x2x3x3xf32>, %arg3: tensor<4xf32>, %arg4: tensor<2x3x5x5xf32>, %arg5: tensor<2xi64>):
    %0 = "arith.constant"() <{value = dense<0.000000e+00> : tensor<2x4xf32>}> : () -> tensor<2x4xf32>
    %1 = "arith.constant"() <{value = 4 : index}> : () -> index
    %2 = "arith.constant"() <{value = 0xFF800000 : f32}> : () -> f32
    %3 = "arith.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %4 = "arith.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %5 = "arith.constant"() <{value = 2.500000e+01 : f32}> : () -> f32
    %6 = "arith.constant"() <{value = -100 : i64}> : () -> i64
    %7 = "arith.constant"() <{value = 2 : index}> : () -> index
    %8 = "arith.constant"() <{value = 0 : i64}> : () -> i64
    %9 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %10 = "arith.constant"() <{value = 0 : index}> : () -> index
    %11 = "arith.constant"() <{value = -1.000000e+00 : f32}> : () -> f32
    %12 = "arith.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
    %13 = "tensor.pad"(%arg4) <{operandSegmentSizes = array<i32: 1, 0, 0>, static_high = array<i64: 0, 0, 1, 1>, static_low = array<i64: 0, 0, 1, 1>}> ({
    ^bb0(%arg193: index, %arg194: index, %arg195: index, %arg196: index):
      "tensor.yield"(%9) : (f32) -> ()
    }) : (tensor<2x3x5x5xf32>) -> tensor<2x3x7x7xf32>
    %14 = "tensor.empty"() : () -> tensor<2x4x5x5xf32>
    %15 = "linalg.broadcast"(%arg1, %14) <{dimensions = array<i64: 0, 2, 3>}> ({
    ^bb0(%arg191: f32, %arg192: f32):
      "linalg.yield"(%arg191) : (f32) -> ()
    }) : (tensor<4xf32>, tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
    %16 = "linalg.conv_2d_nchw_fchw"(%13, %arg0, %15) <{dilations = dense<1> : vector<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<1> : vector<2xi64>}> ({
    ^bb0(%arg188: f32, %arg189: f32, %arg190: f32):
      %238 = "arith.mulf"(%arg188, %arg189) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %239 = "arith.addf"(%arg190, %238) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%239) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map, #map1, #map2]} : (tensor<2x3x7x7xf32>, tensor<4x3x3x3xf32>, tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
    %17 = "tensor.empty"() : () -> tensor<2x4x5x5xf32>
    %18 = "linalg.generic"(%16, %17) <{indexing_maps = [#map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg186: f32, %arg187: f32):
      %236 = "arith.cmpf"(%arg186, %9) <{fastmath = #arith.fastmath<none>, predicate = 9 : i64}> : (f32, f32) -> i1
      %237 = "arith.select"(%236, %arg186, %9) : (i1, f32, f32) -> f32
      "linalg.yield"(%237) : (f32) -> ()
    }) : (tensor<2x4x5x5xf32>, tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
    %19 = "tensor.pad"(%18) <{operandSegmentSizes = array<i32: 1, 0, 0>, static_high = array<i64: 0, 0, 1, 1>, static_low = array<i64: 0, 0, 1, 1>}> ({
    ^bb0(%arg182: index, %arg183: index, %arg184: index, %arg185: index):
      "tensor.yield"(%9) : (f32) -> ()
    }) : (tensor<2x4x5x5xf32>) -> tensor<2x4x7x7xf32>
    %20 = "tensor.empty"() : () -> tensor<2x4x5x5xf32>
    %21 = "linalg.broadcast"(%arg3, %20) <{dimensions = array<i64: 0, 2, 3>}> ({
    ^bb0(%arg180: f32, %arg181: f32):
      "linalg.yield"(%arg180) : (f32) -> ()
    }) : (tensor<4xf32>, tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
    %22 = "tensor.expand_shape"(%19) <{reassociation = [[0], [1, 2], [3], [4]], static_output_shape = array<i64: 2, 2, 2, 7, 7>}> : (tensor<2x4x7x7xf32>) -> tensor<2x2x2x7x7xf32>
    %23 = "tensor.expand_shape"(%arg2) <{reassociation = [[0, 1], [2], [3], [4]], static_output_shape = array<i64: 2, 2, 2, 3, 3>}> : (tensor<4x2x3x3xf32>) -> tensor<2x2x2x3x3xf32>
    %24 = "tensor.expand_shape"(%21) <{reassociation = [[0], [1, 2], [3], [4]], static_output_shape = array<i64: 2, 2, 2, 5, 5>}> : (tensor<2x4x5x5xf32>) -> tensor<2x2x2x5x5xf32>
    %25 = "linalg.conv_2d_ngchw_gfchw"(%22, %23, %24) <{dilations = dense<1> : vector<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<1> : vector<2xi64>}> ({
    ^bb0(%arg177: f32, %arg178: f32, %arg179: f32):
      %234 = "arith.mulf"(%arg177, %arg178) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %235 = "arith.addf"(%arg179, %234) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%235) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map4, #map5, #map6]} : (tensor<2x2x2x7x7xf32>, tensor<2x2x2x3x3xf32>, tensor<2x2x2x5x5xf32>) -> tensor<2x2x2x5x5xf32>
    %26 = "tensor.collapse_shape"(%25) <{reassociation = [[0], [1, 2], [3], [4]]}> : (tensor<2x2x2x5x5xf32>) -> tensor<2x4x5x5xf32>
    %27 = "tensor.empty"() : () -> tensor<2x4xf32>
    %28 = "linalg.fill"(%9, %27) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg175: f32, %arg176: f32):
      "linalg.yield"(%arg175) : (f32) -> ()
    }) : (f32, tensor<2x4xf32>) -> tensor<2x4xf32>
    %29 = "linalg.generic"(%26, %28) <{indexing_maps = [#map3, #map7], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg173: f32, %arg174: f32):
      %233 = "arith.addf"(%arg173, %arg174) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%233) : (f32) -> ()
    }) : (tensor<2x4x5x5xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %30 = "tensor.empty"() : () -> tensor<2x4xf32>
    %31 = "linalg.generic"(%29, %30) <{indexing_maps = [#map8, #map8], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg171: f32, %arg172: f32):
      %232 = "arith.divf"(%arg171, %5) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%232) : (f32) -> ()
    }) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %32 = "tensor.empty"() : () -> tensor<2xi64>
    %33 = "linalg.fill"(%8, %32) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg169: i64, %arg170: i64):
      "linalg.yield"(%arg169) : (i64) -> ()
    }) : (i64, tensor<2xi64>) -> tensor<2xi64>
    %34 = "tensor.empty"() : () -> tensor<2xf32>
    %35 = "linalg.fill"(%2, %34) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg167: f32, %arg168: f32):
      "linalg.yield"(%arg167) : (f32) -> ()
    }) : (f32, tensor<2xf32>) -> tensor<2xf32>
    %36:2 = "linalg.generic"(%31, %35, %33) <{indexing_maps = [#map8, #map9, #map9], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 2>}> ({
    ^bb0(%arg164: f32, %arg165: f32, %arg166: i64):
      %227 = "linalg.index"() <{dim = 1 : i64}> : () -> index
      %228 = "arith.index_cast"(%227) : (index) -> i64
      %229 = "arith.maximumf"(%arg164, %arg165) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %230 = "arith.cmpf"(%arg164, %arg165) <{fastmath = #arith.fastmath<none>, predicate = 2 : i64}> : (f32, f32) -> i1
      %231 = "arith.select"(%230, %228, %arg166) : (i1, i64, i64) -> i64
      "linalg.yield"(%229, %231) : (f32, i64) -> ()
    }) : (tensor<2x4xf32>, tensor<2xf32>, tensor<2xi64>) -> (tensor<2xf32>, tensor<2xi64>)
    %37 = "tensor.expand_shape"(%36#0) <{reassociation = [[0, 1]], static_output_shape = array<i64: 2, 1>}> : (tensor<2xf32>) -> tensor<2x1xf32>
    %38 = "tensor.empty"() : () -> tensor<2x4xf32>
    %39 = "linalg.generic"(%31, %37, %38) <{indexing_maps = [#map8, #map10, #map8], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg161: f32, %arg162: f32, %arg163: f32):
      %226 = "arith.subf"(%arg161, %arg162) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%226) : (f32) -> ()
    }) : (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %40 = "tensor.empty"() : () -> tensor<2x4xf32>
    %41 = "linalg.generic"(%39, %40) <{indexing_maps = [#map8, #map8], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg159: f32, %arg160: f32):
      %225 = "math.exp"(%arg159) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%225) : (f32) -> ()
    }) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %42 = "tensor.empty"() : () -> tensor<2x1xf32>
    %43 = "linalg.fill"(%9, %42) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg157: f32, %arg158: f32):
      "linalg.yield"(%arg157) : (f32) -> ()
    }) : (f32, tensor<2x1xf32>) -> tensor<2x1xf32>
    %44 = "linalg.generic"(%41, %43) <{indexing_maps = [#map8, #map10], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg155: f32, %arg156: f32):
      %224 = "arith.addf"(%arg155, %arg156) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%224) : (f32) -> ()
    }) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
    %45 = "tensor.empty"() : () -> tensor<2x1xf32>
    %46 = "linalg.generic"(%44, %45) <{indexing_maps = [#map8, #map8], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg153: f32, %arg154: f32):
      %223 = "math.log"(%arg153) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%223) : (f32) -> ()
    }) : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
    %47 = "tensor.empty"() : () -> tensor<2x4xf32>
    %48 = "linalg.generic"(%39, %46, %47) <{indexing_maps = [#map8, #map10, #map8], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg150: f32, %arg151: f32, %arg152: f32):
      %222 = "arith.subf"(%arg150, %arg151) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%222) : (f32) -> ()
    }) : (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %49 = "tensor.empty"() : () -> tensor<2xi1>
    %50 = "linalg.generic"(%arg5, %49) <{indexing_maps = [#map11, #map11], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg148: i64, %arg149: i1):
      %221 = "arith.cmpi"(%arg148, %6) <{predicate = 1 : i64}> : (i64, i64) -> i1
      "linalg.yield"(%221) : (i1) -> ()
    }) : (tensor<2xi64>, tensor<2xi1>) -> tensor<2xi1>
    %51 = "tensor.empty"() : () -> tensor<2xi64>
    %52 = "linalg.generic"(%50, %arg5, %12, %51) <{indexing_maps = [#map11, #map11, #map12, #map11], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 3, 1>}> ({
    ^bb0(%arg144: i1, %arg145: i64, %arg146: i64, %arg147: i64):
      %220 = "arith.select"(%arg144, %arg145, %arg146) : (i1, i64, i64) -> i64
      "linalg.yield"(%220) : (i64) -> ()
    }) : (tensor<2xi1>, tensor<2xi64>, tensor<i64>, tensor<2xi64>) -> tensor<2xi64>
    %53 = "tensor.expand_shape"(%52) <{reassociation = [[0, 1]], static_output_shape = array<i64: 2, 1>}> : (tensor<2xi64>) -> tensor<2x1xi64>
    %54 = "tensor.empty"() : () -> tensor<2x1xf32>
    %55 = "linalg.fill"(%9, %54) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg142: f32, %arg143: f32):
      "linalg.yield"(%arg142) : (f32) -> ()
    }) : (f32, tensor<2x1xf32>) -> tensor<2x1xf32>
    %56 = "linalg.generic"(%53, %55) <{indexing_maps = [#map8, #map8], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg140: i64, %arg141: f32):
      %215 = "linalg.index"() <{dim = 0 : i64}> : () -> index
      %216 = "arith.index_cast"(%arg140) : (i64) -> index
      %217 = "arith.cmpi"(%216, %1) <{predicate = 2 : i64}> : (index, index) -> i1
      "cf.assert"(%217) <{msg = "index must be smaller than dim size"}> : (i1) -> ()
      %218 = "arith.cmpi"(%arg140, %8) <{predicate = 5 : i64}> : (i64, i64) -> i1
      "cf.assert"(%218) <{msg = "index must be larger or equal to 0"}> : (i1) -> ()
      %219 = "tensor.extract"(%48, %215, %216) : (tensor<2x4xf32>, index, index) -> f32
      "linalg.yield"(%219) : (f32) -> ()
    }) : (tensor<2x1xi64>, tensor<2x1xf32>) -> tensor<2x1xf32>
    %57 = "tensor.collapse_shape"(%56) <{reassociation = [[0, 1]]}> : (tensor<2x1xf32>) -> tensor<2xf32>
    %58 = "tensor.empty"() : () -> tensor<2xf32>
    %59 = "linalg.generic"(%57, %58) <{indexing_maps = [#map11, #map11], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg138: f32, %arg139: f32):
      %214 = "arith.negf"(%arg138) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%214) : (f32) -> ()
    }) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %60 = "tensor.empty"() : () -> tensor<2xf32>
    %61 = "linalg.generic"(%50, %59, %3, %60) <{indexing_maps = [#map11, #map11, #map12, #map11], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 3, 1>}> ({
    ^bb0(%arg134: i1, %arg135: f32, %arg136: f32, %arg137: f32):
      %213 = "arith.select"(%arg134, %arg135, %arg136) : (i1, f32, f32) -> f32
      "linalg.yield"(%213) : (f32) -> ()
    }) : (tensor<2xi1>, tensor<2xf32>, tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    %62 = "tensor.empty"() : () -> tensor<i64>
    %63 = "linalg.fill"(%8, %62) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg132: i64, %arg133: i64):
      "linalg.yield"(%arg132) : (i64) -> ()
    }) : (i64, tensor<i64>) -> tensor<i64>
    %64 = "linalg.generic"(%50, %63) <{indexing_maps = [#map11, #map12], iterator_types = [#linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg130: i1, %arg131: i64):
      %211 = "arith.extui"(%arg130) : (i1) -> i64
      %212 = "arith.addi"(%211, %arg131) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
      "linalg.yield"(%212) : (i64) -> ()
    }) : (tensor<2xi1>, tensor<i64>) -> tensor<i64>
    %65 = "tensor.empty"() : () -> tensor<f32>
    %66 = "linalg.generic"(%64, %65) <{indexing_maps = [#map13, #map13], iterator_types = [], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg128: i64, %arg129: f32):
      %210 = "arith.sitofp"(%arg128) : (i64) -> f32
      "linalg.yield"(%210) : (f32) -> ()
    }) : (tensor<i64>, tensor<f32>) -> tensor<f32>
    %67 = "tensor.empty"() : () -> tensor<f32>
    %68 = "linalg.fill"(%9, %67) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg126: f32, %arg127: f32):
      "linalg.yield"(%arg126) : (f32) -> ()
    }) : (f32, tensor<f32>) -> tensor<f32>
    %69 = "linalg.generic"(%61, %68) <{indexing_maps = [#map11, #map12], iterator_types = [#linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg124: f32, %arg125: f32):
      %209 = "arith.addf"(%arg124, %arg125) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%209) : (f32) -> ()
    }) : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    %70 = "tensor.empty"() : () -> tensor<f32>
    %71 = "linalg.generic"(%69, %66, %70) <{indexing_maps = [#map13, #map13, #map13], iterator_types = [], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg121: f32, %arg122: f32, %arg123: f32):
      %208 = "arith.divf"(%arg121, %arg122) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%208) : (f32) -> ()
    }) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %72 = "tensor.empty"() : () -> tensor<f32>
    %73 = "linalg.generic"(%4, %66, %72) <{indexing_maps = [#map13, #map13, #map13], iterator_types = [], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg118: f32, %arg119: f32, %arg120: f32):
      %207 = "arith.divf"(%arg118, %arg119) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%207) : (f32) -> ()
    }) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %74 = "tensor.expand_shape"(%arg5) <{reassociation = [[0, 1]], static_output_shape = array<i64: 2, 1>}> : (tensor<2xi64>) -> tensor<2x1xi64>
    %75 = "tensor.empty"() : () -> tensor<2x1xi1>
    %76 = "linalg.generic"(%74, %75) <{indexing_maps = [#map8, #map8], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg116: i64, %arg117: i1):
      %206 = "arith.cmpi"(%arg116, %6) <{predicate = 1 : i64}> : (i64, i64) -> i1
      "linalg.yield"(%206) : (i1) -> ()
    }) : (tensor<2x1xi64>, tensor<2x1xi1>) -> tensor<2x1xi1>
    %77 = "tensor.empty"() : () -> tensor<2x1xi64>
    %78 = "linalg.generic"(%76, %74, %12, %77) <{indexing_maps = [#map8, #map8, #map14, #map8], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 3, 1>}> ({
    ^bb0(%arg112: i1, %arg113: i64, %arg114: i64, %arg115: i64):
      %205 = "arith.select"(%arg112, %arg113, %arg114) : (i1, i64, i64) -> i64
      "linalg.yield"(%205) : (i64) -> ()
    }) : (tensor<2x1xi1>, tensor<2x1xi64>, tensor<i64>, tensor<2x1xi64>) -> tensor<2x1xi64>
    %79 = "tensor.empty"() : () -> tensor<2xf32>
    %80 = "linalg.fill"(%9, %79) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg110: f32, %arg111: f32):
      "linalg.yield"(%arg110) : (f32) -> ()
    }) : (f32, tensor<2xf32>) -> tensor<2xf32>
    %81 = "tensor.empty"() : () -> tensor<2x1xi64>
    %82 = "linalg.fill"(%8, %81) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg108: i64, %arg109: i64):
      "linalg.yield"(%arg108) : (i64) -> ()
    }) : (i64, tensor<2x1xi64>) -> tensor<2x1xi64>
    %83 = "tensor.empty"() : () -> tensor<2x1xi64>
    %84 = "linalg.fill"(%8, %83) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg106: i64, %arg107: i64):
      "linalg.yield"(%arg106) : (i64) -> ()
    }) : (i64, tensor<2x1xi64>) -> tensor<2x1xi64>
    %85:3 = "linalg.generic"(%84, %82, %80) <{indexing_maps = [#map15, #map15, #map11], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 0, 3>}> ({
    ^bb0(%arg103: i64, %arg104: i64, %arg105: f32):
      %201 = "linalg.index"() <{dim = 0 : i64}> : () -> index
      %202 = "arith.remsi"(%201, %7) : (index, index) -> index
      %203 = "tensor.extract"(%78, %202, %10) : (tensor<2x1xi64>, index, index) -> i64
      %204 = "arith.index_cast"(%202) : (index) -> i64
      "linalg.yield"(%204, %203, %11) : (i64, i64, f32) -> ()
    }) : (tensor<2x1xi64>, tensor<2x1xi64>, tensor<2xf32>) -> (tensor<2x1xi64>, tensor<2x1xi64>, tensor<2xf32>)
    %86 = "tensor.empty"() : () -> tensor<2x2xi64>
    %87 = "linalg.fill"(%8, %86) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg101: i64, %arg102: i64):
      "linalg.yield"(%arg101) : (i64) -> ()
    }) : (i64, tensor<2x2xi64>) -> tensor<2x2xi64>
    %88 = "tensor.insert_slice"(%85#0, %87) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 2, 1>, static_strides = array<i64: 1, 1>}> : (tensor<2x1xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
    %89 = "tensor.insert_slice"(%85#1, %88) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, static_offsets = array<i64: 0, 1>, static_sizes = array<i64: 2, 1>, static_strides = array<i64: 1, 1>}> : (tensor<2x1xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
    %90 = "tm_tensor.scatter"(%85#2, %89, %0) <{dimension_map = array<i64: 0, 1>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
    ^bb0(%arg99: f32, %arg100: f32):
      "tm_tensor.yield"(%arg99) : (f32) -> ()
    }) : (tensor<2xf32>, tensor<2x2xi64>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %91 = "tensor.empty"() : () -> tensor<2x1xf32>
    %92 = "linalg.generic"(%76, %73, %3, %91) <{indexing_maps = [#map8, #map14, #map14, #map8], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 3, 1>}> ({
    ^bb0(%arg95: i1, %arg96: f32, %arg97: f32, %arg98: f32):
      %200 = "arith.select"(%arg95, %arg96, %arg97) : (i1, f32, f32) -> f32
      "linalg.yield"(%200) : (f32) -> ()
    }) : (tensor<2x1xi1>, tensor<f32>, tensor<f32>, tensor<2x1xf32>) -> tensor<2x1xf32>
    %93 = "tensor.empty"() : () -> tensor<2x4xf32>
    %94 = "linalg.generic"(%90, %92, %93) <{indexing_maps = [#map8, #map10, #map8], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg92: f32, %arg93: f32, %arg94: f32):
      %199 = "arith.mulf"(%arg92, %arg93) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%199) : (f32) -> ()
    }) : (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %95 = "tensor.empty"() : () -> tensor<2x4xf32>
    %96 = "linalg.generic"(%48, %95) <{indexing_maps = [#map8, #map8], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg90: f32, %arg91: f32):
      %198 = "math.exp"(%arg90) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%198) : (f32) -> ()
    }) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %97 = "tensor.empty"() : () -> tensor<2x1xf32>
    %98 = "linalg.fill"(%9, %97) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg88: f32, %arg89: f32):
      "linalg.yield"(%arg88) : (f32) -> ()
    }) : (f32, tensor<2x1xf32>) -> tensor<2x1xf32>
    %99 = "linalg.generic"(%94, %98) <{indexing_maps = [#map8, #map10], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg86: f32, %arg87: f32):
      %197 = "arith.addf"(%arg86, %arg87) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%197) : (f32) -> ()
    }) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
    %100 = "tensor.empty"() : () -> tensor<2x4xf32>
    %101 = "linalg.generic"(%96, %99, %100) <{indexing_maps = [#map8, #map10, #map8], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg83: f32, %arg84: f32, %arg85: f32):
      %196 = "arith.mulf"(%arg83, %arg84) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%196) : (f32) -> ()
    }) : (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %102 = "tensor.empty"() : () -> tensor<2x4xf32>
    %103 = "linalg.generic"(%94, %101, %102) <{indexing_maps = [#map8, #map8, #map8], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg80: f32, %arg81: f32, %arg82: f32):
      %195 = "arith.subf"(%arg80, %arg81) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%195) : (f32) -> ()
    }) : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %104 = "tensor.empty"() : () -> tensor<2x4x5x5xf32>
    %105 = "linalg.generic"(%103, %104) <{indexing_maps = [#map7, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg78: f32, %arg79: f32):
      "linalg.yield"(%arg78) : (f32) -> ()
    }) : (tensor<2x4xf32>, tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
    %106 = "tensor.empty"() : () -> tensor<2x4x5x5xf32>
    %107 = "linalg.generic"(%105, %106) <{indexing_maps = [#map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg76: f32, %arg77: f32):
      %194 = "arith.divf"(%arg76, %5) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%194) : (f32) -> ()
    }) : (tensor<2x4x5x5xf32>, tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
    %108 = "tensor.pad"(%107) <{operandSegmentSizes = array<i32: 1, 0, 0>, static_high = array<i64: 0, 0, 1, 1>, static_low = array<i64: 0, 0, 1, 1>}> ({
    ^bb0(%arg72: index, %arg73: index, %arg74: index, %arg75: index):
      "tensor.yield"(%9) : (f32) -> ()
    }) : (tensor<2x4x5x5xf32>) -> tensor<2x4x7x7xf32>
    %109 = "tensor.empty"() : () -> tensor<2x2x2x3x3xf32>
    %110 = "linalg.transpose"(%23, %109) <{permutation = array<i64: 0, 2, 1, 3, 4>}> ({
    ^bb0(%arg70: f32, %arg71: f32):
      "linalg.yield"(%arg70) : (f32) -> ()
    }) : (tensor<2x2x2x3x3xf32>, tensor<2x2x2x3x3xf32>) -> tensor<2x2x2x3x3xf32>
    %111 = "tensor.collapse_shape"(%110) <{reassociation = [[0, 1], [2], [3], [4]]}> : (tensor<2x2x2x3x3xf32>) -> tensor<4x2x3x3xf32>
    %112 = "tensor.empty"() : () -> tensor<4x2x3x3xf32>
    %113 = "linalg.fill"(%9, %112) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg68: f32, %arg69: f32):
      "linalg.yield"(%arg68) : (f32) -> ()
    }) : (f32, tensor<4x2x3x3xf32>) -> tensor<4x2x3x3xf32>
    %114 = "linalg.generic"(%111, %113) <{indexing_maps = [#map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg66: f32, %arg67: f32):
      %187 = "linalg.index"() <{dim = 0 : i64}> : () -> index
      %188 = "linalg.index"() <{dim = 1 : i64}> : () -> index
      %189 = "linalg.index"() <{dim = 2 : i64}> : () -> index
      %190 = "linalg.index"() <{dim = 3 : i64}> : () -> index
      %191 = "arith.subi"(%7, %189) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %192 = "arith.subi"(%7, %190) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %193 = "tensor.extract"(%111, %187, %188, %191, %192) : (tensor<4x2x3x3xf32>, index, index, index, index) -> f32
      "linalg.yield"(%193) : (f32) -> ()
    }) : (tensor<4x2x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<4x2x3x3xf32>
    %115 = "tensor.expand_shape"(%108) <{reassociation = [[0], [1, 2], [3], [4]], static_output_shape = array<i64: 2, 2, 2, 7, 7>}> : (tensor<2x4x7x7xf32>) -> tensor<2x2x2x7x7xf32>
    %116 = "tensor.expand_shape"(%114) <{reassociation = [[0, 1], [2], [3], [4]], static_output_shape = array<i64: 2, 2, 2, 3, 3>}> : (tensor<4x2x3x3xf32>) -> tensor<2x2x2x3x3xf32>
    %117 = "tensor.empty"() : () -> tensor<2x4x5x5xf32>
    %118 = "tensor.expand_shape"(%117) <{reassociation = [[0], [1, 2], [3], [4]], static_output_shape = array<i64: 2, 2, 2, 5, 5>}> : (tensor<2x4x5x5xf32>) -> tensor<2x2x2x5x5xf32>
    %119 = "linalg.fill"(%9, %118) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg64: f32, %arg65: f32):
      "linalg.yield"(%arg64) : (f32) -> ()
    }) : (f32, tensor<2x2x2x5x5xf32>) -> tensor<2x2x2x5x5xf32>
    %120 = "linalg.conv_2d_ngchw_gfchw"(%115, %116, %119) <{dilations = dense<1> : vector<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<1> : vector<2xi64>}> ({
    ^bb0(%arg61: f32, %arg62: f32, %arg63: f32):
      %185 = "arith.mulf"(%arg61, %arg62) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %186 = "arith.addf"(%arg63, %185) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%186) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map4, #map5, #map6]} : (tensor<2x2x2x7x7xf32>, tensor<2x2x2x3x3xf32>, tensor<2x2x2x5x5xf32>) -> tensor<2x2x2x5x5xf32>
    %121 = "tensor.collapse_shape"(%120) <{reassociation = [[0], [1, 2], [3], [4]]}> : (tensor<2x2x2x5x5xf32>) -> tensor<2x4x5x5xf32>
    %122 = "tensor.extract_slice"(%18) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0, 0>, static_sizes = array<i64: 2, 2, 5, 5>, static_strides = array<i64: 1, 2, 1, 1>}> : (tensor<2x4x5x5xf32>) -> tensor<2x2x5x5xf32>
    %123 = "tensor.collapse_shape"(%122) <{reassociation = [[0, 1], [2], [3]]}> : (tensor<2x2x5x5xf32>) -> tensor<4x5x5xf32>
    %124 = "tensor.expand_shape"(%123) <{reassociation = [[0, 1], [2], [3]], static_output_shape = array<i64: 1, 4, 5, 5>}> : (tensor<4x5x5xf32>) -> tensor<1x4x5x5xf32>
    %125 = "tensor.collapse_shape"(%107) <{reassociation = [[0, 1], [2], [3]]}> : (tensor<2x4x5x5xf32>) -> tensor<8x5x5xf32>
    %126 = "tensor.pad"(%124) <{operandSegmentSizes = array<i32: 1, 0, 0>, static_high = array<i64: 0, 0, 1, 1>, static_low = array<i64: 0, 0, 1, 1>}> ({
    ^bb0(%arg57: index, %arg58: index, %arg59: index, %arg60: index):
      "tensor.yield"(%9) : (f32) -> ()
    }) : (tensor<1x4x5x5xf32>) -> tensor<1x4x7x7xf32>
    %127 = "tensor.expand_shape"(%126) <{reassociation = [[0], [1, 2], [3], [4]], static_output_shape = array<i64: 1, 4, 1, 7, 7>}> : (tensor<1x4x7x7xf32>) -> tensor<1x4x1x7x7xf32>
    %128 = "tensor.expand_shape"(%125) <{reassociation = [[0, 1], [2, 3], [4]], static_output_shape = array<i64: 4, 2, 1, 5, 5>}> : (tensor<8x5x5xf32>) -> tensor<4x2x1x5x5xf32>
    %129 = "tensor.empty"() : () -> tensor<1x8x3x3xf32>
    %130 = "tensor.expand_shape"(%129) <{reassociation = [[0], [1, 2], [3], [4]], static_output_shape = array<i64: 1, 4, 2, 3, 3>}> : (tensor<1x8x3x3xf32>) -> tensor<1x4x2x3x3xf32>
    %131 = "linalg.fill"(%9, %130) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg55: f32, %arg56: f32):
      "linalg.yield"(%arg55) : (f32) -> ()
    }) : (f32, tensor<1x4x2x3x3xf32>) -> tensor<1x4x2x3x3xf32>
    %132 = "linalg.conv_2d_ngchw_gfchw"(%127, %128, %131) <{dilations = dense<1> : vector<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<1> : vector<2xi64>}> ({
    ^bb0(%arg52: f32, %arg53: f32, %arg54: f32):
      %183 = "arith.mulf"(%arg52, %arg53) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %184 = "arith.addf"(%arg54, %183) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%184) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map4, #map5, #map6]} : (tensor<1x4x1x7x7xf32>, tensor<4x2x1x5x5xf32>, tensor<1x4x2x3x3xf32>) -> tensor<1x4x2x3x3xf32>
    %133 = "tensor.collapse_shape"(%132) <{reassociation = [[0, 1, 2], [3], [4]]}> : (tensor<1x4x2x3x3xf32>) -> tensor<8x3x3xf32>
    %134 = "tensor.expand_shape"(%133) <{reassociation = [[0, 1], [2], [3]], static_output_shape = array<i64: 2, 4, 3, 3>}> : (tensor<8x3x3xf32>) -> tensor<2x4x3x3xf32>
    %135 = "tensor.empty"() : () -> tensor<4x3x3xf32>
    %136 = "linalg.fill"(%9, %135) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg50: f32, %arg51: f32):
      "linalg.yield"(%arg50) : (f32) -> ()
    }) : (f32, tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
    %137 = "linalg.generic"(%134, %136) <{indexing_maps = [#map3, #map16], iterator_types = [#linalg.iterator_type<reduction>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg48: f32, %arg49: f32):
      %182 = "arith.addf"(%arg48, %arg49) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%182) : (f32) -> ()
    }) : (tensor<2x4x3x3xf32>, tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
    %138 = "tensor.expand_shape"(%137) <{reassociation = [[0], [1, 2], [3]], static_output_shape = array<i64: 4, 1, 3, 3>}> : (tensor<4x3x3xf32>) -> tensor<4x1x3x3xf32>
    %139 = "tensor.extract_slice"(%18) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 1, 0, 0>, static_sizes = array<i64: 2, 2, 5, 5>, static_strides = array<i64: 1, 2, 1, 1>}> : (tensor<2x4x5x5xf32>) -> tensor<2x2x5x5xf32>
    %140 = "tensor.collapse_shape"(%139) <{reassociation = [[0, 1], [2], [3]]}> : (tensor<2x2x5x5xf32>) -> tensor<4x5x5xf32>
    %141 = "tensor.expand_shape"(%140) <{reassociation = [[0, 1], [2], [3]], static_output_shape = array<i64: 1, 4, 5, 5>}> : (tensor<4x5x5xf32>) -> tensor<1x4x5x5xf32>
    %142 = "tensor.pad"(%141) <{operandSegmentSizes = array<i32: 1, 0, 0>, static_high = array<i64: 0, 0, 1, 1>, static_low = array<i64: 0, 0, 1, 1>}> ({
    ^bb0(%arg44: index, %arg45: index, %arg46: index, %arg47: index):
      "tensor.yield"(%9) : (f32) -> ()
    }) : (tensor<1x4x5x5xf32>) -> tensor<1x4x7x7xf32>
    %143 = "tensor.expand_shape"(%142) <{reassociation = [[0], [1, 2], [3], [4]], static_output_shape = array<i64: 1, 4, 1, 7, 7>}> : (tensor<1x4x7x7xf32>) -> tensor<1x4x1x7x7xf32>
    %144 = "linalg.fill"(%9, %130) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg42: f32, %arg43: f32):
      "linalg.yield"(%arg42) : (f32) -> ()
    }) : (f32, tensor<1x4x2x3x3xf32>) -> tensor<1x4x2x3x3xf32>
    %145 = "linalg.conv_2d_ngchw_gfchw"(%143, %128, %144) <{dilations = dense<1> : vector<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<1> : vector<2xi64>}> ({
    ^bb0(%arg39: f32, %arg40: f32, %arg41: f32):
      %180 = "arith.mulf"(%arg39, %arg40) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %181 = "arith.addf"(%arg41, %180) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%181) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map4, #map5, #map6]} : (tensor<1x4x1x7x7xf32>, tensor<4x2x1x5x5xf32>, tensor<1x4x2x3x3xf32>) -> tensor<1x4x2x3x3xf32>
    %146 = "tensor.collapse_shape"(%145) <{reassociation = [[0, 1, 2], [3], [4]]}> : (tensor<1x4x2x3x3xf32>) -> tensor<8x3x3xf32>
    %147 = "tensor.expand_shape"(%146) <{reassociation = [[0, 1], [2], [3]], static_output_shape = array<i64: 2, 4, 3, 3>}> : (tensor<8x3x3xf32>) -> tensor<2x4x3x3xf32>
    %148 = "tensor.empty"() : () -> tensor<4x3x3xf32>
    %149 = "linalg.fill"(%9, %148) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg37: f32, %arg38: f32):
      "linalg.yield"(%arg37) : (f32) -> ()
    }) : (f32, tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
    %150 = "linalg.generic"(%147, %149) <{indexing_maps = [#map3, #map16], iterator_types = [#linalg.iterator_type<reduction>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg35: f32, %arg36: f32):
      %179 = "arith.addf"(%arg35, %arg36) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%179) : (f32) -> ()
    }) : (tensor<2x4x3x3xf32>, tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
    %151 = "tensor.expand_shape"(%150) <{reassociation = [[0], [1, 2], [3]], static_output_shape = array<i64: 4, 1, 3, 3>}> : (tensor<4x3x3xf32>) -> tensor<4x1x3x3xf32>
    %152 = "tensor.concat"(%138, %151) <{dim = 1 : i64}> : (tensor<4x1x3x3xf32>, tensor<4x1x3x3xf32>) -> tensor<4x2x3x3xf32>
    %153 = "tensor.empty"() : () -> tensor<4xf32>
    %154 = "linalg.fill"(%9, %153) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg33: f32, %arg34: f32):
      "linalg.yield"(%arg33) : (f32) -> ()
    }) : (f32, tensor<4xf32>) -> tensor<4xf32>
    %155 = "linalg.generic"(%107, %154) <{indexing_maps = [#map3, #map17], iterator_types = [#linalg.iterator_type<reduction>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg31: f32, %arg32: f32):
      %178 = "arith.addf"(%arg31, %arg32) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%178) : (f32) -> ()
    }) : (tensor<2x4x5x5xf32>, tensor<4xf32>) -> tensor<4xf32>
    %156 = "tensor.empty"() : () -> tensor<2x4x5x5xi1>
    %157 = "linalg.generic"(%18, %156) <{indexing_maps = [#map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg29: f32, %arg30: i1):
      %177 = "arith.cmpf"(%arg29, %9) <{fastmath = #arith.fastmath<none>, predicate = 5 : i64}> : (f32, f32) -> i1
      "linalg.yield"(%177) : (i1) -> ()
    }) : (tensor<2x4x5x5xf32>, tensor<2x4x5x5xi1>) -> tensor<2x4x5x5xi1>
    %158 = "tensor.empty"() : () -> tensor<2x4x5x5xf32>
    %159 = "linalg.generic"(%157, %3, %121, %158) <{indexing_maps = [#map3, #map18, #map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 3, 1>}> ({
    ^bb0(%arg25: i1, %arg26: f32, %arg27: f32, %arg28: f32):
      %176 = "arith.select"(%arg25, %arg26, %arg27) : (i1, f32, f32) -> f32
      "linalg.yield"(%176) : (f32) -> ()
    }) : (tensor<2x4x5x5xi1>, tensor<f32>, tensor<2x4x5x5xf32>, tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
    %160 = "tensor.empty"() : () -> tensor<3x2x5x5xf32>
    %161 = "linalg.transpose"(%arg4, %160) <{permutation = array<i64: 1, 0, 2, 3>}> ({
    ^bb0(%arg23: f32, %arg24: f32):
      "linalg.yield"(%arg23) : (f32) -> ()
    }) : (tensor<2x3x5x5xf32>, tensor<3x2x5x5xf32>) -> tensor<3x2x5x5xf32>
    %162 = "tensor.empty"() : () -> tensor<4x2x5x5xf32>
    %163 = "linalg.transpose"(%159, %162) <{permutation = array<i64: 1, 0, 2, 3>}> ({
    ^bb0(%arg21: f32, %arg22: f32):
      "linalg.yield"(%arg21) : (f32) -> ()
    }) : (tensor<2x4x5x5xf32>, tensor<4x2x5x5xf32>) -> tensor<4x2x5x5xf32>
    %164 = "tensor.pad"(%161) <{operandSegmentSizes = array<i32: 1, 0, 0>, static_high = array<i64: 0, 0, 1, 1>, static_low = array<i64: 0, 0, 1, 1>}> ({
    ^bb0(%arg17: index, %arg18: index, %arg19: index, %arg20: index):
      "tensor.yield"(%9) : (f32) -> ()
    }) : (tensor<3x2x5x5xf32>) -> tensor<3x2x7x7xf32>
    %165 = "tensor.empty"() : () -> tensor<3x4x3x3xf32>
    %166 = "linalg.fill"(%9, %165) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg15: f32, %arg16: f32):
      "linalg.yield"(%arg15) : (f32) -> ()
    }) : (f32, tensor<3x4x3x3xf32>) -> tensor<3x4x3x3xf32>
    %167 = "linalg.conv_2d_nchw_fchw"(%164, %163, %166) <{dilations = dense<1> : vector<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<1> : vector<2xi64>}> ({
    ^bb0(%arg12: f32, %arg13: f32, %arg14: f32):
      %174 = "arith.mulf"(%arg12, %arg13) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %175 = "arith.addf"(%arg14, %174) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%175) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map, #map1, #map2]} : (tensor<3x2x7x7xf32>, tensor<4x2x5x5xf32>, tensor<3x4x3x3xf32>) -> tensor<3x4x3x3xf32>
    %168 = "tensor.empty"() : () -> tensor<4x3x3x3xf32>
    %169 = "linalg.transpose"(%167, %168) <{permutation = array<i64: 1, 0, 2, 3>}> ({
    ^bb0(%arg10: f32, %arg11: f32):
      "linalg.yield"(%arg10) : (f32) -> ()
    }) : (tensor<3x4x3x3xf32>, tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
    %170 = "tensor.empty"() : () -> tensor<4xf32>
    %171 = "linalg.fill"(%9, %170) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg8: f32, %arg9: f32):
      "linalg.yield"(%arg8) : (f32) -> ()
    }) : (f32, tensor<4xf32>) -> tensor<4xf32>
    %172 = "linalg.generic"(%159, %171) <{indexing_maps = [#map3, #map17], iterator_types = [#linalg.iterator_type<reduction>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg6: f32, %arg7: f32):
      %173 = "arith.addf"(%arg6, %arg7) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%173) : (f32) -> ()
    }) : (tensor<2x4x5x5xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%71, %169, %172, %152, %155) : (tensor<f32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
