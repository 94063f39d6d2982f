// Kernel-only translation unit (our code): CUTLASS example 88's Hopper FMHA forward kernel as the
// example's FmhaBuilder makes it for its cooperative fp16 128x128x128 run (no mask fusion
// DefaultFusion), plus a host function that launches cutlass::device_kernel<Kernel> so nvcc
// emits it. Needs -I<cutlass>/examples/88_hopper_fmha. Compiled to PTX only by
// tests/test_compiled_truth.py (sm_90a); never run.
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"
#include "collective/fmha_fusion.hpp"
#include "kernel/fmha_kernel_builder.hpp"

namespace klv {
using namespace cute;
using Element = cutlass::half_t;
using StrideQ = cute::tuple<int, _1, cute::tuple<int, int>>;
using StrideK = cute::tuple<int, _1, cute::tuple<int, int>>;
using StrideV = cute::tuple<int, _1, cute::tuple<int, int>>;
using TileShape = Shape<_128, _128, _128>;
using Kernel = typename cutlass::fmha::kernel::FmhaBuilder<
    Element, float, float, TileShape, StrideQ, StrideK, StrideV,
    cutlass::fmha::collective::DefaultFusion,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative>::Kernel;
}  // namespace klv

// The launch that makes nvcc emit the kernel; the parameters are never filled in (PTX only).
void klv_launch(typename klv::Kernel::Params const& params, cudaStream_t stream) {
  using K = klv::Kernel;
  cutlass::device_kernel<K><<<K::get_grid_shape(params), K::get_block_shape(),
                              K::SharedStorageSize, stream>>>(params);
}
