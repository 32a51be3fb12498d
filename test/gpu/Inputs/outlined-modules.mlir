// Kernels as gpu-kernel-outlining leaves them, one gpu.module each, written
// by hand for test/gpu/merge-modules.test: @step_kernel and @step_kernel_0
// hold the same copy of @__constant_4xf32, @step_kernel_1 a different one
// under the same name; @remat_kernels is already a top-level symbol.
// @step_kernel_2 is @step_kernel again and @step_kernel_4 @step_kernel_1
// again (dropped, their launches follow); @step_kernel_3 has
// @step_kernel_1's kernel text but @step_kernel's constant (kept), and
// @step_kernel_5 @step_kernel's constant and code but a different kernel
// attribute (kept).
module attributes {gpu.container_module} {
  func.func private @remat_kernels()
  func.func @step(%out: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @step_kernel::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<4xf32>)
    gpu.launch_func @step_kernel_0::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<4xf32>)
    gpu.launch_func @step_kernel_1::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<4xf32>)
    gpu.launch_func @step_kernel_2::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<4xf32>)
    gpu.launch_func @step_kernel_3::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<4xf32>)
    gpu.launch_func @step_kernel_4::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<4xf32>)
    gpu.launch_func @step_kernel_5::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<4xf32>)
    return
  }
  gpu.module @step_kernel {
    memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
    gpu.func @step_kernel(%arg0: memref<4xf32>) kernel {
      %g = memref.get_global @__constant_4xf32 : memref<4xf32>
      %c0 = arith.constant 0 : index
      %v = memref.load %g[%c0] : memref<4xf32>
      memref.store %v, %arg0[%c0] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @step_kernel_0 {
    memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
    gpu.func @step_kernel(%arg0: memref<4xf32>) kernel {
      %g = memref.get_global @__constant_4xf32 : memref<4xf32>
      %c1 = arith.constant 1 : index
      %v = memref.load %g[%c1] : memref<4xf32>
      memref.store %v, %arg0[%c1] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @step_kernel_1 {
    memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[5.0, 6.0, 7.0, 8.0]>
    gpu.func @step_kernel(%arg0: memref<4xf32>) kernel {
      %g = memref.get_global @__constant_4xf32 : memref<4xf32>
      %c2 = arith.constant 2 : index
      %v = memref.load %g[%c2] : memref<4xf32>
      memref.store %v, %arg0[%c2] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @step_kernel_2 {
    memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
    gpu.func @step_kernel(%arg0: memref<4xf32>) kernel {
      %g = memref.get_global @__constant_4xf32 : memref<4xf32>
      %c0 = arith.constant 0 : index
      %v = memref.load %g[%c0] : memref<4xf32>
      memref.store %v, %arg0[%c0] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @step_kernel_3 {
    memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
    gpu.func @step_kernel(%arg0: memref<4xf32>) kernel {
      %g = memref.get_global @__constant_4xf32 : memref<4xf32>
      %c2 = arith.constant 2 : index
      %v = memref.load %g[%c2] : memref<4xf32>
      memref.store %v, %arg0[%c2] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @step_kernel_4 {
    memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[5.0, 6.0, 7.0, 8.0]>
    gpu.func @step_kernel(%arg0: memref<4xf32>) kernel {
      %g = memref.get_global @__constant_4xf32 : memref<4xf32>
      %c2 = arith.constant 2 : index
      %v = memref.load %g[%c2] : memref<4xf32>
      memref.store %v, %arg0[%c2] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @step_kernel_5 {
    memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
    gpu.func @step_kernel(%arg0: memref<4xf32>) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
      %g = memref.get_global @__constant_4xf32 : memref<4xf32>
      %c0 = arith.constant 0 : index
      %v = memref.load %g[%c0] : memref<4xf32>
      memref.store %v, %arg0[%c0] : memref<4xf32>
      gpu.return
    }
  }
}
