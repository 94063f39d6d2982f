// Shared body of the GEMM translation units in this folder (our code, no CUTLASS text). A TU
// defines the KLV_* macros below, then includes this file: it builds the mainloop and epilogue
// with CUTLASS's CollectiveBuilder, wraps them in GemmUniversal, and defines a host function that
// launches cutlass::device_kernel<GemmKernel>, which is what makes nvcc emit the kernel. The TUs
// are compiled to PTX only (-ptx -lineinfo) by tests/test_compiled_truth.py and never run.
//
//   KLV_ARCH             cutlass::arch::Sm90 / Sm100
//   KLV_OPCLASS          cutlass::arch::OpClassTensorOp / OpClassBlockScaledTensorOp
//   KLV_ELEMENT_A, _B    operand types (bf16, or nv_float4_t<float_e2m1_t> for block-scaled)
//   KLV_TILE, KLV_CLUSTER  MMA tile and cluster shapes
//   KLV_KERNEL_SCHEDULE, KLV_EPILOGUE_SCHEDULE  the dispatch tags that pick the collectives
#pragma once
#include "cutlass/cutlass.h"
#include "cute/tensor.hpp"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/device_kernel.h"

namespace klv {

using namespace cute;

using ElementA = KLV_ELEMENT_A;
using ElementB = KLV_ELEMENT_B;
using ElementC = cutlass::bfloat16_t;
using ElementAccumulator = float;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::ColumnMajor;
#ifndef KLV_ALIGN_A
#define KLV_ALIGN_A (128 / cutlass::sizeof_bits<ElementA>::value)
#define KLV_ALIGN_B (128 / cutlass::sizeof_bits<ElementB>::value)
#endif
constexpr int kAlignA = KLV_ALIGN_A;
constexpr int kAlignB = KLV_ALIGN_B;
constexpr int kAlignC = 128 / cutlass::sizeof_bits<ElementC>::value;

using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    KLV_ARCH, cutlass::arch::OpClassTensorOp,
    KLV_TILE, KLV_CLUSTER,
    cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAccumulator, ElementAccumulator,
    ElementC, LayoutC, kAlignC,
    ElementC, LayoutC, kAlignC,
    KLV_EPILOGUE_SCHEDULE>::CollectiveOp;

using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    KLV_ARCH, KLV_OPCLASS,
    ElementA, LayoutA, kAlignA,
    ElementB, LayoutB, kAlignB,
    ElementAccumulator,
    KLV_TILE, KLV_CLUSTER,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>,
    KLV_KERNEL_SCHEDULE>::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, CollectiveMainloop, CollectiveEpilogue>;

}  // namespace klv

// The launch that makes nvcc emit the kernel; the parameters are never filled in (PTX only).
void klv_launch(typename klv::GemmKernel::Params const& params, cudaStream_t stream) {
  using K = klv::GemmKernel;
  cutlass::device_kernel<K><<<K::get_grid_shape(params), K::get_block_shape(),
                              K::SharedStorageSize, stream>>>(params);
}
