// Kernel-only translation unit (our code): FlashAttention-3's SM90 forward kernel
// (hopper/flash_fwd_kernel_sm90.h with hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp and
// hopper/epilogue_fwd.hpp) for the build examples/fa3_fwd.json describes: BF16, head dimension
// 128 (kHeadDimV = 128), not causal, not local, no softcap, no varlen / paged KV / AppendKV / Qv /
// PackGQA / Split, V row-major, one CTA per cluster. The types are the ones
// hopper/flash_fwd_launch_template.h's run_flash_fwd makes for those template arguments, and the
// host function launches cutlass::device_kernel<AttnKernel> so nvcc emits the kernel.
// Needs -I$FLASH_ATTENTION_PATH/hopper and FA3's defines (tests/compiled/ptx_cache.py's FA3 unit).
// Compiled to PTX only by tests/test_compiled_truth.py (sm_90a); never run.
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"

#include "tile_size.h"
#include "tile_scheduler.hpp"
#include "flash_fwd_kernel_sm90.h"
#include "mainloop_fwd_sm90_tma_gmma_ws.hpp"
#include "epilogue_fwd.hpp"

namespace klv {
using namespace cute;

// run_flash_fwd's template arguments for this build (run_mha_fwd_'s switches all false; ClusterM
// is 1 on its CLUSTER_SWITCH's false branch, the launch without a cluster).
constexpr int kHeadDim = 128;
constexpr int kHeadDimV = 128;
constexpr int ClusterM = 1;
using Element = cutlass::bfloat16_t;
using ElementOut = cutlass::bfloat16_t;   // T_out = T when not FP8
constexpr bool Is_causal = false, Is_local = false, Has_softcap = false, Varlen = false;
constexpr bool PagedKVNonTMA = false, AppendKV = false, HasQv = false, PackGQA = false;
constexpr bool Split = false, V_colmajor = false;
constexpr bool FP8_TransposeV = false;    // Is_FP8 && !V_colmajor

// The tile rule run_flash_fwd reads (tile_size_fwd_sm90: 128 x 176, MmaPV_is_RS, IntraWGOverlap).
constexpr std::tuple<int, int, bool, bool> kBlockMN_RS_IntraWGOverlap = tile_size_fwd_sm90(
    kHeadDim, kHeadDimV, Is_causal, Is_local, sizeof(Element), V_colmajor, PagedKVNonTMA, Has_softcap);
constexpr int kBlockM = std::get<0>(kBlockMN_RS_IntraWGOverlap);
constexpr int kBlockN = std::get<1>(kBlockMN_RS_IntraWGOverlap);
constexpr bool MmaPV_is_RS = std::get<2>(kBlockMN_RS_IntraWGOverlap);
constexpr bool IntraWGOverlap = std::get<3>(kBlockMN_RS_IntraWGOverlap);
constexpr int kStages = 2;                // Arch >= 90 ? 2 : ...

using TileShape_MNK = cute::Shape<Int<kBlockM>, Int<kBlockN>, Int<kHeadDim>>;
using TileShape_MNK_PV = cute::Shape<Int<kBlockM>, Int<kHeadDimV>, Int<kBlockN>>;
using ClusterShape = cute::Shape<Int<ClusterM>, _1, _1>;
using CollectiveMainloop = flash::CollectiveMainloopFwdSm90<
    kStages, ClusterShape, TileShape_MNK, kHeadDimV, Element, float, cutlass::arch::Sm90,
    Is_causal, Is_local, Has_softcap, Varlen, PagedKVNonTMA, AppendKV, HasQv, MmaPV_is_RS,
    IntraWGOverlap, PackGQA, Split, V_colmajor>;
using CollectiveEpilogue = flash::CollectiveEpilogueFwd<
    TileShape_MNK_PV, ClusterShape, ElementOut, cutlass::arch::Sm90,
    CollectiveMainloop::NumMmaThreads, Varlen, PackGQA, Split, FP8_TransposeV>;
// Not causal, not local, not varlen, not Split: the static persistent scheduler.
using Scheduler = flash::StaticPersistentTileScheduler<Split>;
using AttnKernel = flash::enable_sm90<flash::FlashAttnFwdSm90<CollectiveMainloop, CollectiveEpilogue, Scheduler>>;

static_assert(kBlockM == 128 && kBlockN == 176 && MmaPV_is_RS && IntraWGOverlap,
              "tile_size_fwd_sm90 no longer gives BF16 head dim 128 the 128 x 176 tile");
}  // namespace klv

// The launch that makes nvcc emit the kernel; the parameters are never filled in (PTX only).
void klv_launch(typename klv::AttnKernel::Params const& params, cudaStream_t stream) {
  using K = klv::AttnKernel;
  cutlass::device_kernel<K><<<K::get_grid_shape(params), K::get_block_shape(),
                              K::SharedStorageSize, stream>>>(params);
}
