// SM100 block-scaled NVFP4 GEMM (sm100_blockscaled_mma_warpspecialized.hpp) -- see gemm_common.cuh. Compiled by tests/test_compiled_truth.py for sm_100a.
#define KLV_ARCH cutlass::arch::Sm100
#define KLV_OPCLASS cutlass::arch::OpClassBlockScaledTensorOp
#define KLV_ELEMENT_A cutlass::nv_float4_t<cutlass::float_e2m1_t>
#define KLV_ELEMENT_B cutlass::nv_float4_t<cutlass::float_e2m1_t>
#define KLV_TILE cute::Shape<cute::_128, cute::_128, cute::_256>
#define KLV_CLUSTER cute::Shape<cute::_1, cute::_1, cute::_1>
#define KLV_KERNEL_SCHEDULE cutlass::gemm::KernelTmaWarpSpecialized1SmNvf4Sm100
#define KLV_EPILOGUE_SCHEDULE cutlass::epilogue::TmaWarpSpecialized1Sm
#define KLV_ALIGN_A 32
#define KLV_ALIGN_B 32
#include "gemm_common.cuh"
