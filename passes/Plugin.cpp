//===- Plugin.cpp - remat as an mlir-opt pass plugin ----------------------===//
//
// mlir-opt --load-pass-plugin=libRematPlugin.so registers, on func.func,
//   remat-estimate{dim-bound=N}                    (rematAnnotateEstimate)
//   remat{budget=SIZE planner=NAME profile=NAME keep-order keep-destinations
//         fuse-elementwise}                        (rematRunPass)
//   remat-expand-scatters                          (rematExpandScattersInFunction)
//   remat-split-broadcasts                         (rematSplitBroadcasts)
//   remat-fuse-donated-results                     (rematFuseDonatedResults)
//   remat-slice-producers                          (rematSliceProducers)
// Options need C++ (Pass::Option), so this shim is C++; the work is done by
// the C functions of remat/Passes.h. See docs/plugin.md.
//
//===----------------------------------------------------------------------===//
#include <mutex>
#include <string>

#ifndef REMAT_PLUGIN_VERSION
#error "REMAT_PLUGIN_VERSION comes from the CMake project version (passes/CMakeLists.txt)"
#endif

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "remat/Lower.h"
#include "remat/Passes.h"

namespace {

/// rematGraphCreate silences the context's diagnostics while it runs MLIR's
/// analyses on its scratch clone; with threads, another function's error
/// emitted meanwhile would be lost. Both passes run one function at a time
/// (recursive: a thread waiting on a nested pass manager may pick up
/// another function's pass).
std::recursive_mutex &serial() {
  static std::recursive_mutex mutex;
  return mutex;
}

/// Shared by both passes: the dialects the nested pipelines create ops of must
/// be loaded before the (multithreaded) pass manager starts, and cloning the
/// enclosing module is only safe when no other thread is rewriting it.
template <typename Derived> struct RematPassBase : mlir::PassWrapper<Derived, mlir::OperationPass<mlir::func::FuncOp>> {
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::arith::ArithDialect, mlir::bufferization::BufferizationDialect, mlir::func::FuncDialect,
                    mlir::linalg::LinalgDialect, mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                    mlir::tensor::TensorDialect>();
  }
  /// The estimate of a function that references other symbols clones the
  /// enclosing module; with multithreading, other functions' bodies may be
  /// rewritten meanwhile. Declarations have no body to rewrite.
  bool mayRun(mlir::func::FuncOp func) {
    if (!func.getContext()->isMultithreadingEnabled() || !rematEstimateReadsModule(wrap(func.getOperation())))
      return true;
    bool otherBodies = llvm::any_of(func->getBlock()->getOperations(), [&](mlir::Operation &op) {
      return &op != func.getOperation() &&
             llvm::any_of(op.getRegions(), [](mlir::Region &region) { return !region.empty(); });
    });
    if (!otherBodies)
      return true;
    func.emitError() << this->getArgument() << ": @" << func.getSymName()
                     << " references other symbols, so its estimate reads the whole module; run mlir-opt with "
                        "--mlir-disable-threading";
    return false;
  }
};

struct EstimatePass : RematPassBase<EstimatePass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EstimatePass)
  llvm::StringRef getArgument() const override { return "remat-estimate"; }
  llvm::StringRef getDescription() const override {
    return "Annotate each function with remat's memory estimate (remat.peak_bytes, ...)";
  }
  EstimatePass() = default;
  EstimatePass(const EstimatePass &other) : RematPassBase<EstimatePass>(other) {}
  void runOnOperation() override {
    std::lock_guard<std::recursive_mutex> guard(serial());
    if (dimBound < 0) {
      getOperation().emitError() << "remat-estimate: dim-bound must not be negative, got "
                                 << static_cast<int64_t>(dimBound.getValue());
      return signalPassFailure();
    }
    RematGraphOptions options{}; // every other field off, maxOps at its default
    options.dynamicDimBound = dimBound.getValue();
    if (!mayRun(getOperation()) ||
        mlirLogicalResultIsFailure(rematAnnotateEstimateWithOptions(wrap(getOperation()), &options)))
      signalPassFailure();
  }
  Option<int64_t> dimBound{*this, "dim-bound",
                           llvm::cl::desc("Upper bound for dynamic dimensions (0: dynamic shapes are an error)"),
                           llvm::cl::init(0)};
};

struct RematPass : RematPassBase<RematPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RematPass)
  RematPass() = default;
  RematPass(const RematPass &other) : RematPassBase<RematPass>(other) {}
  llvm::StringRef getArgument() const override { return "remat"; }
  llvm::StringRef getDescription() const override { return "Rematerialize activations to fit a memory budget"; }
  void runOnOperation() override {
    std::lock_guard<std::recursive_mutex> guard(serial());
    RematPassOptions options = passOptions();
    if (!mayRun(getOperation()) || mlirLogicalResultIsFailure(rematRunPass(wrap(getOperation()), &options)))
      signalPassFailure();
  }
  RematPassOptions passOptions() const {
    return RematPassOptions{budget.getValue().c_str(), planner.getValue().c_str(),  profile.getValue().c_str(),
                            keepOrder.getValue(),      keepDestinations.getValue(), fuseElementwise.getValue()};
  }
  Option<std::string> budget{*this, "budget", llvm::cl::desc("Memory budget: bytes, KiB/MiB/GiB, KB/MB/GB or N%"),
                             llvm::cl::init("")};
  Option<std::string> planner{*this, "planner", llvm::cl::desc("none, sqrt, greedy, default, dtr or blocks"),
                              llvm::cl::init("default")};
  Option<std::string> profile{*this, "profile", llvm::cl::desc("Cost profile: h200, cpu or flops"),
                              llvm::cl::init("h200")};
  Option<bool> keepOrder{*this, "keep-order",
                         llvm::cl::desc("Plan the input's op order alone, no second plan (remat-opt --keep-order)"),
                         llvm::cl::init(false)};
  Option<bool> keepDestinations{
      *this, "keep-destinations",
      llvm::cl::desc("The second plan moves readers but writes no elementwise op into a dying input "
                     "(remat-opt --keep-destinations)"),
      llvm::cl::init(false)};
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Plan the elementwise-fused function too and keep the faster plan (remat-opt --fuse-elementwise)"),
      llvm::cl::init(false)};
};

/// torch-mlir's tm_tensor.scatter as remat lowers it (docs/plugin.md), so
/// that stock bufferization lowers (or analyses) what remat's CPU lowering
/// does. The scatters' dialect is unregistered: run mlir-opt with
/// --allow-unregistered-dialect.
struct ExpandScattersPass : mlir::PassWrapper<ExpandScattersPass, mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandScattersPass)
  llvm::StringRef getArgument() const override { return "remat-expand-scatters"; }
  llvm::StringRef getDescription() const override {
    return "Rewrite torch-mlir's tm_tensor.scatter (generic form) into scf.for loops on tensors";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::arith::ArithDialect, mlir::scf::SCFDialect, mlir::tensor::TensorDialect>();
  }
  void runOnOperation() override {
    if (mlirLogicalResultIsFailure(rematExpandScattersInFunction(wrap(getOperation()))))
      signalPassFailure();
  }
};

/// A copy of each multi-use pure broadcast per use, so that MLIR's
/// linalg-fuse-elementwise-ops (which fuses a producer into its one use
/// only) folds every copy: what remat-opt --fuse-elementwise and
/// scripts/remat-iree run before the fusion (docs/planner.md).
struct SplitBroadcastsPass : mlir::PassWrapper<SplitBroadcastsPass, mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SplitBroadcastsPass)
  llvm::StringRef getArgument() const override { return "remat-split-broadcasts"; }
  llvm::StringRef getDescription() const override {
    return "Give each use of a pure broadcast (linalg.generic) that elementwise fusion would fold its own copy";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::linalg::LinalgDialect, mlir::tensor::TensorDialect>();
  }
  void runOnOperation() override { rematSplitBroadcasts(wrap(getOperation())); }
};

struct SplitElementwiseFunctionsPass
    : mlir::PassWrapper<SplitElementwiseFunctionsPass, mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SplitElementwiseFunctionsPass)
  llvm::StringRef getArgument() const override { return "remat-split-elementwise-functions"; }
  llvm::StringRef getDescription() const override {
    return "Give each fusing use of an elementwise function of one tensor its own copy";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::linalg::LinalgDialect, mlir::tensor::TensorDialect>();
  }
  void runOnOperation() override { rematSplitElementwiseFunctions(wrap(getOperation())); }
};

/// A donated elementwise result fused into the one op that reads it, kept
/// as a result of the fused op: scripts/remat-iree's step before planning
/// (docs/iree.md).
struct FuseDonatedResultsPass : mlir::PassWrapper<FuseDonatedResultsPass, mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseDonatedResultsPass)
  llvm::StringRef getArgument() const override { return "remat-fuse-donated-results"; }
  llvm::StringRef getDescription() const override {
    return "Fuse a donated elementwise result (linalg.generic) into the op that reads it, kept as a result of the "
           "fused op";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::linalg::LinalgDialect, mlir::tensor::TensorDialect>();
  }
  void runOnOperation() override { rematFuseDonatedResults(wrap(getOperation())); }
};

/// An extract_slice moved above its producers, so that they compute only the
/// slice: scripts/remat-iree's step before planning (docs/iree.md).
struct SliceProducersPass : mlir::PassWrapper<SliceProducersPass, mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SliceProducersPass)
  llvm::StringRef getArgument() const override { return "remat-slice-producers"; }
  llvm::StringRef getDescription() const override {
    return "Move a static tensor.extract_slice above the linalg op, reshape or slice producing its source, so that "
           "it computes only the slice";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::linalg::LinalgDialect, mlir::tensor::TensorDialect>();
  }
  void runOnOperation() override { rematSliceProducers(wrap(getOperation())); }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK LLVM_ATTRIBUTE_VISIBILITY_DEFAULT ::mlir::PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "remat", REMAT_PLUGIN_VERSION, []() {
            mlir::PassRegistration<EstimatePass>();
            mlir::PassRegistration<RematPass>();
            mlir::PassRegistration<ExpandScattersPass>();
            mlir::PassRegistration<SplitBroadcastsPass>();
            mlir::PassRegistration<FuseDonatedResultsPass>();
            mlir::PassRegistration<SplitElementwiseFunctionsPass>();
            mlir::PassRegistration<SliceProducersPass>();
          }};
}
