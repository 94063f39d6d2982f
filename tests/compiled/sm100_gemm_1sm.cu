// SM100 1-SM UMMA warp-specialized BF16 GEMM (sm100_gemm_tma_warpspecialized.hpp + sm100_mma_warpspecialized.hpp) -- see gemm_common.cuh. Compiled by tests/test_compiled_truth.py for sm_100a.
#define KLV_ARCH cutlass::arch::Sm100
#define KLV_OPCLASS cutlass::arch::OpClassTensorOp
#define KLV_ELEMENT_A cutlass::bfloat16_t
#define KLV_ELEMENT_B cutlass::bfloat16_t
#define KLV_TILE cute::Shape<cute::_128, cute::_128, cute::_64>
#define KLV_CLUSTER cute::Shape<cute::_1, cute::_1, cute::_1>
#define KLV_KERNEL_SCHEDULE cutlass::gemm::KernelTmaWarpSpecialized1SmSm100
#define KLV_EPILOGUE_SCHEDULE cutlass::epilogue::TmaWarpSpecialized1Sm
#include "gemm_common.cuh"
