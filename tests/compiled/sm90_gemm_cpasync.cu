// SM90 multistage cp.async warp-specialized BF16 GEMM (sm90_gemm_warpspecialized.hpp + sm90_mma_multistage_gmma_ss_warpspecialized.hpp) -- see gemm_common.cuh. Compiled by tests/test_compiled_truth.py for sm_90a.
#define KLV_ARCH cutlass::arch::Sm90
#define KLV_OPCLASS cutlass::arch::OpClassTensorOp
#define KLV_ELEMENT_A cutlass::bfloat16_t
#define KLV_ELEMENT_B cutlass::bfloat16_t
#define KLV_TILE cute::Shape<cute::_128, cute::_128, cute::_64>
#define KLV_CLUSTER cute::Shape<cute::_1, cute::_1, cute::_1>
#define KLV_KERNEL_SCHEDULE cutlass::gemm::KernelCpAsyncWarpSpecialized
#define KLV_EPILOGUE_SCHEDULE cutlass::epilogue::collective::EpilogueScheduleAuto
#include "gemm_common.cuh"
