// Kernel-only translation unit (our code): CUTLASS example 77's Blackwell FMHA forward kernel,
// Sm100FmhaFwdKernelTmaWarpspecialized over its mainloop and epilogue collectives, with the same
// types as the example's persistent fp16 256x128x128 causal-free run, plus a host function that
// launches cutlass::device_kernel<Kernel> so nvcc emits it. Needs -I<cutlass>/examples/77_blackwell_fmha.
// Compiled to PTX only by tests/test_compiled_truth.py (sm_100a); never run.
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"
#include "collective/fmha_fusion.hpp"
#include "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp"
#include "collective/sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp"
#include "kernel/fmha_options.hpp"
#include "kernel/fmha_tile_scheduler.hpp"
#include "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp"

namespace klv {
using namespace cute;
using Element = cutlass::half_t;
using ProblemShape = cute::tuple<int, int, int, cute::tuple<cute::tuple<int, int>, int>>;
using StrideQ = cute::tuple<int, _1, cute::tuple<cute::tuple<int, int>, int>>;
using StrideK = cute::tuple<int, _1, cute::tuple<cute::tuple<_0, int>, int>>;
using StrideO = StrideQ;
using StrideLSE = cute::tuple<_1, cute::tuple<cute::tuple<int, int>, int>>;
using TileShape = Shape<_256, _128, _128>;
using Mainloop = cutlass::fmha::collective::Sm100FmhaFwdMainloopTmaWarpspecialized<
    Element, float, float, TileShape, StrideQ, StrideK, StrideK, cutlass::fmha::collective::NoMask>;
using Epilogue = cutlass::fmha::collective::Sm100FmhaFwdEpilogueTmaWarpspecialized<
    cutlass::half_t, float, typename Mainloop::TileShapePV, StrideO, StrideLSE>;
using Kernel = cutlass::fmha::kernel::Sm100FmhaFwdKernelTmaWarpspecialized<
    ProblemShape, Mainloop, Epilogue, cutlass::fmha::kernel::PersistentTileScheduler>;
}  // namespace klv

// The launch that makes nvcc emit the kernel; the parameters are never filled in (PTX only).
void klv_launch(typename klv::Kernel::Params const& params, cudaStream_t stream) {
  using K = klv::Kernel;
  cutlass::device_kernel<K><<<K::get_grid_shape(params), K::get_block_shape(),
                              K::SharedStorageSize, stream>>>(params);
}
