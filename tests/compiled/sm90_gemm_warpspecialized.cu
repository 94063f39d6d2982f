// SM90 TMA warp-specialized (basic, non-persistent) BF16 GEMM (sm90_gemm_tma_warpspecialized.hpp) -- see gemm_common.cuh. Compiled by tests/test_compiled_truth.py for sm_90a.
#define KLV_ARCH cutlass::arch::Sm90
#define KLV_OPCLASS cutlass::arch::OpClassTensorOp
#define KLV_ELEMENT_A cutlass::bfloat16_t
#define KLV_ELEMENT_B cutlass::bfloat16_t
#define KLV_TILE cute::Shape<cute::_128, cute::_128, cute::_64>
#define KLV_CLUSTER cute::Shape<cute::_1, cute::_1, cute::_1>
#define KLV_KERNEL_SCHEDULE cutlass::gemm::KernelTmaWarpSpecialized
#define KLV_EPILOGUE_SCHEDULE cutlass::epilogue::TmaWarpSpecialized
#include "gemm_common.cuh"
