"""Compiled truth: every protocol instruction nvcc emits for a real CUTLASS kernel, followed
through its -lineinfo inline chain to the collective or kernel-layer line it came from, is an op
of a compatible kind in parse_cutlass's parse of that file (docs/compiled-truth.md).

The translation units are ours (tests/compiled/*.cu); tests/compiled/ptx_cache.py compiles them
with nvcc (cached by a hash of the inputs, outside the repository) and ptx_lines.py reads the PTX.
Lines the parser misses today are listed in EXPECTED_MISSING with the reason; the test fails when
a listed line is parsed after all (remove it) as much as when an unlisted line is missed.
FlashAttention-3's forward kernel (tests/compiled/fa3_fwd.cu) is checked the same way when
FLASH_ATTENTION_PATH names a checkout (FA3_EXPECTED_MISSING), and skipped with the reason otherwise.
"""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "compiled"))

import parse_cutlass  # noqa: E402
import ptx_cache  # noqa: E402
import ptx_lines  # noqa: E402

KERNEL = "include/cutlass/gemm/kernel/"
MAINLOOP = "include/cutlass/gemm/collective/"
EPILOGUE = "include/cutlass/epilogue/collective/"
FMHA77 = "examples/77_blackwell_fmha/"
FMHA88 = "examples/88_hopper_fmha/"
# FlashAttention-3 (paths under $FLASH_ATTENTION_PATH; the unit is built only when it is given)
FA3_KERNEL = "hopper/flash_fwd_kernel_sm90.h"
FA3_MAINLOOP = "hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp"
FA3_EPILOGUE = "hopper/epilogue_fwd.hpp"
FA3_SKIP = ("FlashAttention-3 sources not given; run the FA3 translation unit with a flash-attention "
            "checkout: FLASH_ATTENTION_PATH=/path/to/flash-attention .venv/bin/python -m pytest "
            "tests/test_compiled_truth.py")

# The files checked per translation unit (paths under the CUTLASS source root, or the
# FlashAttention checkout for the FA3 units, root_of): the kernel layer,
# the mainloop collective (the file viz.py is given) and the epilogue collective. Each must occur
# in the PTX's .file table, so a TU that stops instantiating the named file fails.
CHECKED_FILES = {
    "sm90_gemm_pingpong": (KERNEL + "sm90_gemm_tma_warpspecialized_pingpong.hpp",
                           MAINLOOP + "sm90_mma_tma_gmma_ss_warpspecialized.hpp",
                           EPILOGUE + "sm90_epilogue_tma_warpspecialized.hpp"),
    "sm90_gemm_cooperative": (KERNEL + "sm90_gemm_tma_warpspecialized_cooperative.hpp",
                              MAINLOOP + "sm90_mma_tma_gmma_ss_warpspecialized.hpp",
                              EPILOGUE + "sm90_epilogue_tma_warpspecialized.hpp"),
    "sm90_gemm_warpspecialized": (KERNEL + "sm90_gemm_tma_warpspecialized.hpp",
                                  MAINLOOP + "sm90_mma_tma_gmma_ss_warpspecialized.hpp",
                                  EPILOGUE + "sm90_epilogue_tma_warpspecialized.hpp"),
    "sm90_gemm_cpasync": (KERNEL + "sm90_gemm_warpspecialized.hpp",
                          MAINLOOP + "sm90_mma_multistage_gmma_ss_warpspecialized.hpp"),
    "sm100_gemm_1sm": (KERNEL + "sm100_gemm_tma_warpspecialized.hpp",
                       MAINLOOP + "sm100_mma_warpspecialized.hpp",
                       EPILOGUE + "sm100_epilogue_tma_warpspecialized.hpp"),
    "sm100_gemm_2sm": (KERNEL + "sm100_gemm_tma_warpspecialized.hpp",
                       MAINLOOP + "sm100_mma_warpspecialized.hpp",
                       EPILOGUE + "sm100_epilogue_tma_warpspecialized.hpp"),
    "sm100_gemm_blockscaled": (KERNEL + "sm100_gemm_tma_warpspecialized.hpp",
                               MAINLOOP + "sm100_blockscaled_mma_warpspecialized.hpp",
                               EPILOGUE + "sm100_epilogue_tma_warpspecialized.hpp"),
    "sm90_fmha_fwd": (FMHA88 + "kernel/fmha_kernel_tma_warpspecialized.hpp",
                      FMHA88 + "collective/fmha_collective_tma_warpspecialized.hpp"),
    "sm100_fmha_fwd": (FMHA77 + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp",
                       FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp",
                       FMHA77 + "collective/sm100_fmha_load_tma_warpspecialized.hpp",
                       FMHA77 + "collective/sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp"),
    # checked the way tests/test_parser_fa3.py reads FA3: the mainloop and the kernel layer (and
    # the epilogue collective), each file's parse on its own
    "fa3_fwd": (FA3_KERNEL, FA3_MAINLOOP, FA3_EPILOGUE),
}

# The op kinds of parse_cutlass a PTX instruction class may come from. A source line usually
# yields several classes (a TMA pipeline's producer_acquire is an mbarrier.try_wait and an
# mbarrier.arrive.expect_tx), so the table is per class.
WAIT_OPS = frozenset({
    "consumer_wait", "consumer_try_wait", "consumer_test_wait", "producer_acquire",
    "producer_try_acquire", "producer_acquire_bytes", "producer_tail", "order_wait", "barrier_wait",
    # the tile scheduler's calls wait on and release the CLC / scheduler pipeline inside
    # sm100_tile_scheduler.hpp (not a checked file), so the instruction's first frame in the
    # kernel layer is the scheduler call
    "fetch_next_work", "clc_query",
})
ARRIVE_OPS = frozenset({
    "producer_commit", "producer_commit_local", "producer_arrive", "consumer_release",
    "consumer_release_from_umma", "order_arrive", "barrier_arrive", "umma_arrive",
    "fetch_next_work", "clc_query",
})
COMPATIBLE = {
    "mbarrier_wait": WAIT_OPS,
    "mbarrier_arrive": ARRIVE_OPS,
    # a TMA pipeline's producer_acquire arrives with the expected byte count
    "mbarrier_expect_tx": frozenset({"producer_acquire", "producer_acquire_bytes",
                                     "producer_expect_transaction", "fetch_next_work", "clc_query"}),
    "tma_load": frozenset({"tma_load"}),
    "bulk_load": frozenset({"tma_load"}),
    "tma_store": frozenset({"tma_store", "bulk_reduce"}),
    "tma_reduce": frozenset({"tma_store", "bulk_reduce"}),
    "bulk_store": frozenset({"tma_store", "bulk_reduce"}),
    # PipelineTmaStore: producer_commit is tma_store_arrive, producer_acquire / producer_tail
    # are tma_store_wait
    "bulk_commit": frozenset({"tma_store_arrive", "producer_commit"}),
    "bulk_wait": frozenset({"tma_store_wait", "producer_acquire", "producer_tail"}),
    "cp_async": frozenset({"cp_async"}),
    "cp_async_commit": frozenset({"producer_commit"}),
    "cp_async_wait": frozenset({"consumer_wait"}),
    "cp_async_mbarrier_arrive": frozenset({"producer_commit"}),
    "wgmma": frozenset({"mma"}),
    "wgmma_fence": frozenset({"warpgroup_arrive"}),
    "wgmma_commit": frozenset({"warpgroup_commit"}),   # no such op kind today: see EXPECTED_MISSING
    "wgmma_wait": frozenset({"warpgroup_wait"}),
    "umma": frozenset({"mma"}),
    # the UMMA pipelines' consumer_release / producer_commit are tcgen05.commit (umma_arrive)
    "umma_commit": frozenset({"umma_arrive", "consumer_release", "consumer_release_from_umma",
                              "producer_commit"}),
    "tmem_load": frozenset({"tmem_load"}),
    "tmem_store": frozenset({"tmem_store"}),
    "tmem_copy": frozenset({"tmem_copy"}),
    "tmem_alloc": frozenset({"tmem_alloc"}),
    "clc_try_cancel": frozenset({"clc_query", "fetch_next_work"}),
    # the response's decode (is_canceled, get_first_ctaid) inside the scheduler's fetch_next_work
    # (sm100_tile_scheduler.hpp, not a checked file): the first kernel-layer frame is that call
    "clc_query_cancel": frozenset({"fetch_next_work", "clc_query"}),
    # tcgen05.wait::ld / ::st: no op kind (TMEM_WAIT), every compiled line is in EXPECTED_MISSING
    "tmem_wait": frozenset(),
    "bar_sync": frozenset({"named_barrier_sync"}),
    "bar_arrive": frozenset({"named_barrier_arrive"}),
}
# Classes the reader reports but this check skips, with the reason.
NOT_CHECKED = {
    "elect": "elect.sync picks the issuing thread (also inside pipeline constructors); the parse "
             "models issue per role, so it has no op kind",
    "tma_prefetch": "a cache hint, not a protocol step",
}
# Kernel-layer calls into the mainloop collective: parse_file(mainloop, kernel_layer) takes
# those calls' ops from the collective, whose own lines are checked in its file.
DELEGATING_RECEIVERS = frozenset({"mainloop", "collective_mainloop"})

EPI_CALL = ("kernel-layer op not parsed yet (issue 19/24): a call into the epilogue collective; "
            "the parse records the call (kernel_layer.calls) but not the epilogue's protocol steps")
WG_COMMIT = ("warpgroup_commit_batch() (wgmma.commit_group) is not an op kind: the parser folds a "
             "batch's commit into its mma (issue 24)")
TMEM_ALLOC = "kernel-layer op not parsed yet (issue 19/24): TMEM allocation (tcgen05.alloc / relinquish / dealloc)"
PIPE_INIT = ("kernel-layer op not parsed yet (issue 19/24): pipeline_init_arrive_relaxed / "
             "pipeline_init_wait, a CTA barrier (bar.sync) when the cluster is one CTA")
SYNC_THREADS = "kernel-layer op not parsed yet (issue 19/24): __syncthreads() after the pipelines' set-up"
DEALLOC_BARRIER = ("kernel-layer op not parsed yet (issue 19/24): the 2-SM kernel's "
                   "tmem_deallocation_result_barrier (a ClusterBarrier between the peer CTAs)")
S2T_COPY = ("collective op not parsed (issue 24): copy(tiled_copy_s2t_SF*, ...), the scale factors' "
            "shared-to-TMEM copy (tcgen05.cp), is no op kind")
LOAD_CALL = ("collective op not parsed (issue 24): the FMHA mainloop's load() delegates to the Load "
             "collective (sm100_fmha_load_tma_warpspecialized.hpp, checked in its own file); the "
             "mainloop's parse does not follow the call, so its acquire / expect_tx have no op here")
ORDER_S = ("collective op not parsed (issue 24): order_s.wait() / order_s.arrive(), an "
           "OrderBarrier whose name lacks 'order_barrier' (RE_ORDER_OP)")
TMEM_STORE = ("collective op not parsed (issue 24): copy(tiled_tmem_store*, ...) (tcgen05.st, and the "
              "tcgen05.ld of the correction's rescale) is no op kind; only t2r / tmem_load copies are")
FA3_GEMM_HELPER = ("collective op not parsed whole (issue 24): flash::gemm<zero_init, wg_wait>(...) (FA3's "
                   "utils.h) issues warpgroup_arrive (wgmma.fence), the WGMMAs and warpgroup_commit_batch "
                   "inside; the parse records the call as one mma op, so its fence and commit have no op")
FA3_Q_EXPECT_TX = ("collective op parsed without its transaction count (issue 24): "
                   "barrier_Q.arrive_and_expect_tx(bytes) is one mbarrier.arrive.expect_tx; the parse has "
                   "it as barrier_arrive, which does not say that the arrive sets the expected bytes")
FA3_NAMED_SYNC = ("collective op not parsed (issue 24): flash::named_barrier_sync(...) (FA3's "
                  "named_barrier.hpp wrapper of NamedBarrier::sync) is no named-barrier op; only "
                  "cutlass::arch::NamedBarrier::sync / arrive are")
TMEM_WAIT = ("collective op not parsed (issue 24): cutlass::arch::fence_view_async_tmem_load() / "
             "_store() (tcgen05.wait::ld / ::st: the warp waits until its TMEM loads / stores are "
             "done, right before it releases the stage that TMEM belongs to: the epilogue's "
             "acc_pipeline, 77's pipeline_s / pipeline_o) is no op kind; the parse has the copy "
             "(tmem_load) and the release, not the wait between them")
HELPER_ACQUIRE = ("collective op not parsed (issue 24): a CollectiveLoadTma helper's step() acquires the "
                  "stage inside fmha_collective_load.hpp; the parse records the step as a tma_load only, "
                  "not its producer_acquire (mbarrier.try_wait + arrive.expect_tx)")

# (file, line, instruction classes, text the source line holds, reason): compiled protocol lines
# today's parse has no compatible op for. Line numbers are CUTLASS 4.2's (pinned in pyproject).
EXPECTED_MISSING = (
    (FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", 251, ('mbarrier_expect_tx', 'mbarrier_wait', 'tma_load'),
     'load.load(blk_coord, problem_shape, para', LOAD_CALL),
    (FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", 599, ('tmem_store',),
     'copy(tiled_tmem_storev, tTMEM_STOREVrS,', TMEM_STORE),
    (FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", 622, ('mbarrier_wait',),
     'order_s.wait();', ORDER_S),
    (FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", 647, ('mbarrier_arrive',),
     'order_s.arrive();', ORDER_S),
    (FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", 653, ('tmem_store',),
     'copy(tiled_tmem_store, tTMEM_STORErS_x4(', TMEM_STORE),
    (FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", 661, ('tmem_store',),
     'copy(tiled_tmem_store, tTMEM_STORErS_x4(', TMEM_STORE),
    (FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", 663, ('tmem_wait',),
     'cutlass::arch::fence_view_async_tmem_sto', TMEM_WAIT),
    (FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", 709, ('tmem_store',),
     'copy(tiled_tmem_storev, tTMEM_STOREVrS,', TMEM_STORE),
    (FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", 919, ('tmem_store',),
     'copy(tiled_tmem_store, tTMrO_i, tTMEM_ST', TMEM_STORE),
    (FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", 1021, ('tmem_wait',),
     'cutlass::arch::fence_view_async_tmem_sto', TMEM_WAIT),
    (FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", 1039, ('tmem_wait',),
     'cutlass::arch::fence_view_async_tmem_sto', TMEM_WAIT),
    (FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", 1092, ('tmem_wait',),
     'cutlass::arch::fence_view_async_tmem_loa', TMEM_WAIT),
    (FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", 1128, ('tmem_wait',),
     'cutlass::arch::fence_view_async_tmem_loa', TMEM_WAIT),
    (FMHA77 + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp", 401, ('bar_sync',),
     '__syncthreads();', SYNC_THREADS),
    (FMHA77 + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp", 539, ('tmem_alloc',),
     'tmem_allocator.allocate(TmemAllocator::S', TMEM_ALLOC),
    (FMHA77 + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp", 612, ('bulk_commit', 'bulk_wait', 'mbarrier_arrive', 'mbarrier_wait',
                                                               'tma_store'),
     'epilogue.store(', EPI_CALL),
    (FMHA77 + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp", 625, ('tmem_alloc',),
     'tmem_allocator.free(free_stage_ptr, Tmem', TMEM_ALLOC),
    (FMHA88 + "collective/fmha_collective_tma_warpspecialized.hpp", 272, ('mbarrier_expect_tx', 'mbarrier_wait'),
     'load_q.step(q_tile_iter, load_state_q, s', HELPER_ACQUIRE),
    (FMHA88 + "collective/fmha_collective_tma_warpspecialized.hpp", 275, ('mbarrier_expect_tx', 'mbarrier_wait'),
     'load_k.template step<false>(k_tile_iter,', HELPER_ACQUIRE),
    (FMHA88 + "collective/fmha_collective_tma_warpspecialized.hpp", 278, ('mbarrier_expect_tx', 'mbarrier_wait'),
     'load_q.step(q_tile_iter, load_state_q, s', HELPER_ACQUIRE),
    (FMHA88 + "collective/fmha_collective_tma_warpspecialized.hpp", 289, ('mbarrier_expect_tx', 'mbarrier_wait'),
     'load_v.template step<true>(k_tile_iter,', HELPER_ACQUIRE),
    (FMHA88 + "collective/fmha_collective_tma_warpspecialized.hpp", 299, ('mbarrier_expect_tx', 'mbarrier_wait'),
     'load_k.template step<false>(k_tile_iter,', HELPER_ACQUIRE),
    (FMHA88 + "collective/fmha_collective_tma_warpspecialized.hpp", 300, ('mbarrier_expect_tx', 'mbarrier_wait'),
     'load_v.template step<true>(k_tile_iter,', HELPER_ACQUIRE),
    (FMHA88 + "collective/fmha_collective_tma_warpspecialized.hpp", 407, ('wgmma_commit',),
     'warpgroup_commit_batch();', WG_COMMIT),
    (FMHA88 + "collective/fmha_collective_tma_warpspecialized.hpp", 428, ('wgmma_commit',),
     'warpgroup_commit_batch();', WG_COMMIT),
    (FMHA88 + "collective/fmha_collective_tma_warpspecialized.hpp", 506, ('wgmma_commit',),
     'warpgroup_commit_batch();', WG_COMMIT),
    (FMHA88 + "collective/fmha_collective_tma_warpspecialized.hpp", 533, ('wgmma_commit',),
     'warpgroup_commit_batch();', WG_COMMIT),
    (FMHA88 + "kernel/fmha_kernel_tma_warpspecialized.hpp", 287, ('bar_sync',),
     '__syncthreads();', SYNC_THREADS),
    (FMHA88 + "kernel/fmha_kernel_tma_warpspecialized.hpp", 410, ('bar_sync', 'bulk_commit', 'bulk_wait', 'tma_store'),
     'epilogue(typename CollectiveMainloop::Ti', EPI_CALL),
    (EPILOGUE + "sm100_epilogue_tma_warpspecialized.hpp", 887, ('tmem_wait',),
     'cutlass::arch::fence_view_async_tmem_loa', TMEM_WAIT),
    (MAINLOOP + "sm100_blockscaled_mma_warpspecialized.hpp", 1061, ('tmem_copy',),
     'copy(tiled_copy_s2t_SFA, thr_tCsSFA_s2t(', S2T_COPY),
    (MAINLOOP + "sm100_blockscaled_mma_warpspecialized.hpp", 1062, ('tmem_copy',),
     'copy(tiled_copy_s2t_SFB, thr_tCsSFB_s2t(', S2T_COPY),
    (MAINLOOP + "sm90_mma_multistage_gmma_ss_warpspecialized.hpp", 425, ('wgmma_commit',),
     'warpgroup_commit_batch();', WG_COMMIT),
    (MAINLOOP + "sm90_mma_multistage_gmma_ss_warpspecialized.hpp", 468, ('wgmma_commit',),
     'warpgroup_commit_batch();', WG_COMMIT),
    (MAINLOOP + "sm90_mma_tma_gmma_ss_warpspecialized.hpp", 500, ('wgmma_commit',),
     'warpgroup_commit_batch();', WG_COMMIT),
    (MAINLOOP + "sm90_mma_tma_gmma_ss_warpspecialized.hpp", 544, ('wgmma_commit',),
     'warpgroup_commit_batch();', WG_COMMIT),
    (KERNEL + "sm100_gemm_tma_warpspecialized.hpp", 579, ('bar_sync',),
     'pipeline_init_arrive_relaxed(cluster_siz', PIPE_INIT),
    (KERNEL + "sm100_gemm_tma_warpspecialized.hpp", 614, ('bar_sync',),
     'pipeline_init_wait(cluster_size);', PIPE_INIT),
    (KERNEL + "sm100_gemm_tma_warpspecialized.hpp", 727, ('tmem_alloc',),
     'tmem_allocator.allocate(TmemAllocator::S', TMEM_ALLOC),
    (KERNEL + "sm100_gemm_tma_warpspecialized.hpp", 783, ('tmem_alloc',),
     'tmem_allocator.release_allocation_lock()', TMEM_ALLOC),
    (KERNEL + "sm100_gemm_tma_warpspecialized.hpp", 793, ('mbarrier_arrive',),
     'tmem_deallocation_result_barrier.arrive(', DEALLOC_BARRIER),
    (KERNEL + "sm100_gemm_tma_warpspecialized.hpp", 794, ('mbarrier_wait',),
     'tmem_deallocation_result_barrier.wait(de', DEALLOC_BARRIER),
    (KERNEL + "sm100_gemm_tma_warpspecialized.hpp", 795, ('mbarrier_arrive',),
     'tmem_deallocation_result_barrier.arrive(', DEALLOC_BARRIER),
    (KERNEL + "sm100_gemm_tma_warpspecialized.hpp", 803, ('tmem_alloc',),
     'tmem_allocator.free(tmem_base_ptr, TmemA', TMEM_ALLOC),
    (KERNEL + "sm100_gemm_tma_warpspecialized.hpp", 837, ('mbarrier_arrive', 'mbarrier_expect_tx', 'mbarrier_wait',
                                                       'tma_load'),
     'epi_load_pipe_producer_state = collectiv', EPI_CALL),
    (KERNEL + "sm100_gemm_tma_warpspecialized.hpp", 862, ('mbarrier_wait',),
     'collective_epilogue.load_tail(', EPI_CALL),
    (KERNEL + "sm100_gemm_tma_warpspecialized.hpp", 911, ('bar_sync', 'bulk_commit', 'bulk_wait', 'mbarrier_arrive', 'mbarrier_wait',
                                                       'tma_store', 'tmem_load', 'tmem_wait'),
     'auto [load_state_next, store_state_next,', EPI_CALL),
    (KERNEL + "sm100_gemm_tma_warpspecialized.hpp", 949, ('bulk_wait', 'mbarrier_arrive'),
     'collective_epilogue.store_tail(', EPI_CALL),
    (KERNEL + "sm90_gemm_tma_warpspecialized.hpp", 370, ('bar_sync',),
     '__syncthreads();', SYNC_THREADS),
    (KERNEL + "sm90_gemm_tma_warpspecialized.hpp", 454, ('mbarrier_arrive', 'mbarrier_expect_tx', 'mbarrier_wait', 'tma_load'),
     'epi_load_pipe_producer_state = collectiv', EPI_CALL),
    (KERNEL + "sm90_gemm_tma_warpspecialized.hpp", 464, ('mbarrier_wait',),
     'collective_epilogue.load_tail(epi_load_p', EPI_CALL),
    (KERNEL + "sm90_gemm_tma_warpspecialized.hpp", 495, ('bar_sync', 'bulk_commit', 'bulk_wait', 'mbarrier_arrive', 'mbarrier_wait', 'tma_store'),
     'collective_epilogue.store(', EPI_CALL),
    (KERNEL + "sm90_gemm_tma_warpspecialized.hpp", 509, ('bulk_wait', 'mbarrier_arrive'),
     'collective_epilogue.store_tail(', EPI_CALL),
    (KERNEL + "sm90_gemm_tma_warpspecialized_cooperative.hpp", 722, ('mbarrier_arrive', 'mbarrier_expect_tx', 'mbarrier_wait',
                                                                   'tma_load'),
     'collective_epilogue.load(', EPI_CALL),
    (KERNEL + "sm90_gemm_tma_warpspecialized_cooperative.hpp", 749, ('mbarrier_wait',),
     'collective_epilogue.load_tail(epi_load_p', EPI_CALL),
    (KERNEL + "sm90_gemm_tma_warpspecialized_cooperative.hpp", 813, ('bar_sync', 'bulk_commit', 'bulk_wait', 'mbarrier_arrive', 'mbarrier_wait',
                                                                   'tma_store'),
     'collective_epilogue.store(', EPI_CALL),
    (KERNEL + "sm90_gemm_tma_warpspecialized_cooperative.hpp", 846, ('bulk_wait', 'mbarrier_arrive'),
     'collective_epilogue.store_tail(', EPI_CALL),
    (KERNEL + "sm90_gemm_tma_warpspecialized_pingpong.hpp", 518, ('bar_sync',),
     '__syncthreads();', SYNC_THREADS),
    (KERNEL + "sm90_gemm_tma_warpspecialized_pingpong.hpp", 760, ('mbarrier_arrive', 'mbarrier_expect_tx', 'mbarrier_wait', 'tma_load'),
     'collective_epilogue.load(', EPI_CALL),
    (KERNEL + "sm90_gemm_tma_warpspecialized_pingpong.hpp", 790, ('mbarrier_wait',),
     'collective_epilogue.load_tail(epi_load_p', EPI_CALL),
    (KERNEL + "sm90_gemm_tma_warpspecialized_pingpong.hpp", 886, ('bar_sync', 'bulk_commit', 'bulk_wait', 'mbarrier_arrive', 'mbarrier_wait', 'tma_store'),
     'collective_epilogue.store(', EPI_CALL),
    (KERNEL + "sm90_gemm_tma_warpspecialized_pingpong.hpp", 904, ('bulk_wait', 'mbarrier_arrive'),
     'collective_epilogue.store_tail(', EPI_CALL),
    (KERNEL + "sm90_gemm_warpspecialized.hpp", 333, ('bar_sync',),
     '__syncthreads();', SYNC_THREADS),
)
# FA3's gaps (FlashAttention 0251105a, the revision examples/fa3_fwd.json was parsed from), listed
# and checked the same way, but only when FLASH_ATTENTION_PATH is given.
FA3_EXPECTED_MISSING = (
    (FA3_EPILOGUE, 249, ('bar_sync',),
     'flash::named_barrier_sync(NumEpilogueThre', FA3_NAMED_SYNC),
    (FA3_KERNEL, 303, ('bar_sync',),
     '__syncthreads();', SYNC_THREADS),
    (FA3_KERNEL, 444, ('bar_arrive', 'bar_sync', 'bulk_commit', 'bulk_wait', 'mbarrier_arrive', 'tma_store'),
     'epilogue.store(params.epilogue, tOrO, so', EPI_CALL),
    (FA3_MAINLOOP, 819, ('mbarrier_expect_tx',),
     'barrier_Q.arrive_and_expect_tx(TmaTrans', FA3_Q_EXPECT_TX),
    (FA3_MAINLOOP, 1141, ('wgmma_commit', 'wgmma_fence'),
     'flash::gemm</*zero_init=*/true, /*wg_wai', FA3_GEMM_HELPER),
    (FA3_MAINLOOP, 1177, ('wgmma_commit', 'wgmma_fence'),
     'flash::gemm</*zero_init=*/true, /*wg_wai', FA3_GEMM_HELPER),
    (FA3_MAINLOOP, 1182, ('wgmma_commit', 'wgmma_fence'),
     'flash::gemm</*zero_init=*/false, /*wg_wa', FA3_GEMM_HELPER),
    (FA3_MAINLOOP, 1240, ('wgmma_commit', 'wgmma_fence'),
     'flash::gemm</*zero_init=*/false, /*wg_wa', FA3_GEMM_HELPER),
)
FA3_UNIT_NAMES = frozenset(u.name for u in ptx_cache.FA3_UNITS)


def _expected_index():
    """{(file, line, cls): (snippet, reason)} of EXPECTED_MISSING."""
    out = {}
    for path, line, classes, snippet, reason in EXPECTED_MISSING + FA3_EXPECTED_MISSING:
        for cls in classes:
            key = (path, line, cls)
            assert key not in out, f"EXPECTED_MISSING lists {key} twice"
            out[key] = (snippet, reason)
    return out


def _no_nvcc(reason):
    """Skip locally; under CI fail unless KLV_NO_NVCC=1 says this machine has no nvcc on purpose."""
    if os.environ.get("CI") and not os.environ.get("KLV_NO_NVCC"):
        pytest.fail(f"{reason} (CI runs scripts/install_nvcc.sh; set KLV_NO_NVCC=1 to skip on purpose)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def compiled(cutlass_root):
    """{unit name: PTX path or CompileError}: every TU compiled (or found in the cache) once (the
    FA3 units only when FLASH_ATTENTION_PATH names a checkout)."""
    nvcc = ptx_cache.find_nvcc()
    if nvcc is None:
        _no_nvcc("no nvcc (install it with scripts/install_nvcc.sh)")
    jobs = int(os.environ.get("KLV_NVCC_JOBS", ptx_cache.DEFAULT_JOBS))
    results = ptx_cache.build_all(ptx_cache.available_units(), cutlass_root, nvcc, jobs)
    return {name: r[0] for name, r in results.items()}


def root_of(name, cutlass_root):
    """The source root a unit's CHECKED_FILES are under: the CUTLASS root or the FA checkout."""
    if name in FA3_UNIT_NAMES:
        return ptx_cache.flash_attention_root()
    return cutlass_root


def unit_params(names):
    """pytest params of unit names; an FA3 unit skips (with the reason) without a checkout."""
    fa3_missing = ptx_cache.flash_attention_root() is None
    return [pytest.param(n, marks=pytest.mark.skipif(fa3_missing and n in FA3_UNIT_NAMES, reason=FA3_SKIP))
            for n in names]


_LISTINGS = {}


def listing_of(compiled, name):
    """The PTX listing of one unit (read once per session)."""
    ptx = compiled[name]
    if isinstance(ptx, Exception):
        pytest.fail(str(ptx))
    if name not in _LISTINGS:
        _LISTINGS[name] = ptx_lines.read_ptx(Path(ptx).read_text())
    return _LISTINGS[name]


_PARSES = {}


def parse_of(path):
    """(ops, kernel-layer calls, source lines) of one CUTLASS file."""
    if path not in _PARSES:
        text = path.read_text()
        model = parse_cutlass.parse_text(text, str(path))
        ops = [o for fn in model["functions"] for o in fn["ops"]]
        calls = (model["kernel_layer"] or {}).get("calls", [])
        _PARSES[path] = (ops, calls, text.splitlines())
    return _PARSES[path]


def compiled_lines(listing, root, rel):
    """{(line, cls): [instructions]} of the listing whose first frame in `rel` is that line."""
    target = {str(root / rel)}
    out = {}
    for ins in listing.instructions:
        frame = listing.first_frame(ins, target)
        if frame is not None and frame.line > 0:
            out.setdefault((frame.line, ins.cls), []).append(ins)
    return out


def check_unit(listing, root, name):
    """(missing, covered, compiled keys): missing and covered map (file, line, cls) to a
    description; compiled is every checked (file, line, cls) the PTX holds."""
    missing, covered, seen = {}, {}, set()
    for rel in CHECKED_FILES[name]:
        ops, calls, lines = parse_of(root / rel)
        for (line, cls), inss in sorted(compiled_lines(listing, root, rel).items()):
            if cls in NOT_CHECKED:
                continue
            key = (rel, line, cls)
            seen.add(key)
            kinds = {o["op"] for o in ops if o["line"] <= line <= o["end_line"]}
            delegated = any(c["line"] <= line <= c["end_line"] and c["receiver"] in DELEGATING_RECEIVERS
                            for c in calls)
            text = lines[line - 1].strip() if line <= len(lines) else "?"
            desc = (f"{rel}:{line}: {cls} ({inss[0].opcode}, {len(inss)}x, PTX line {inss[0].ptx_line}); "
                    f"parsed ops on the line: {sorted(kinds) or 'none'}; source: {text}")
            if kinds & COMPATIBLE[cls] or delegated:
                covered[key] = desc
            else:
                missing[key] = desc
    return missing, covered, seen


def test_compatibility_table_covers_every_class():
    """Every class the reader emits is either checked against op kinds or skipped with a reason."""
    classes = {cls for cls, _ in ptx_lines.CLASS_RULES}
    assert classes == set(COMPATIBLE) | set(NOT_CHECKED)
    assert not set(COMPATIBLE) & set(NOT_CHECKED)


def _check_entries_name_their_lines(root, entries):
    """Each entry's line under root holds its text, its classes are checked ones, it has a reason."""
    for path, line, classes, snippet, reason in entries:
        lines = (root / path).read_text().splitlines()
        assert snippet in lines[line - 1], f"{path}:{line} is now {lines[line - 1].strip()!r}"
        assert set(classes) <= set(COMPATIBLE), (path, line, classes)
        assert reason


def test_expected_missing_entries_name_their_source_lines(cutlass_root):
    """Each EXPECTED_MISSING entry's line holds its text (the list is pinned to CUTLASS 4.2)."""
    _check_entries_name_their_lines(cutlass_root, EXPECTED_MISSING)


@pytest.mark.skipif(ptx_cache.flash_attention_root() is None, reason=FA3_SKIP)
def test_fa3_expected_missing_entries_name_their_source_lines():
    """Each FA3_EXPECTED_MISSING entry's line holds its text (pinned to FlashAttention 0251105a)."""
    _check_entries_name_their_lines(ptx_cache.flash_attention_root(), FA3_EXPECTED_MISSING)


@pytest.mark.parametrize("name", unit_params(u.name for u in ptx_cache.UNITS + ptx_cache.FA3_UNITS))
def test_compiled_protocol_lines_are_parsed_ops(compiled, cutlass_root, name):
    """Every compiled protocol line of the unit's checked files is a compatible parsed op, or
    listed in EXPECTED_MISSING; every listed line compiled here is still missed."""
    listing = listing_of(compiled, name)
    root = root_of(name, cutlass_root)
    files = set(listing.files.values())
    for rel in CHECKED_FILES[name]:
        assert str(root / rel) in files, f"{name}'s PTX does not come from {rel}"
    missing, covered, seen = check_unit(listing, root, name)
    assert covered, f"{name}: no compiled protocol line in the checked files"
    expected = _expected_index()
    unexpected = [desc for key, desc in sorted(missing.items()) if key not in expected]
    stale = [desc for key, desc in sorted(covered.items()) if key in expected]
    assert not unexpected, (f"{name}: compiled protocol lines the parse has no compatible op for "
                            "(parser gap, or add to EXPECTED_MISSING with the reason):\n  "
                            + "\n  ".join(unexpected))
    assert not stale, (f"{name}: EXPECTED_MISSING lines that are parsed now (remove them):\n  "
                       + "\n  ".join(stale))


def test_every_expected_missing_line_is_compiled_somewhere(compiled, cutlass_root):
    """An EXPECTED_MISSING entry that no translation unit compiles any more is stale."""
    seen = set()
    units = ptx_cache.available_units()
    for unit in units:
        seen |= check_unit(listing_of(compiled, unit.name), root_of(unit.name, cutlass_root), unit.name)[2]
    fa3_paths = {e[0] for e in FA3_EXPECTED_MISSING}
    built_fa3 = any(u.name in FA3_UNIT_NAMES for u in units)
    stale = sorted(key for key in _expected_index() if key not in seen and (built_fa3 or key[0] not in fa3_paths))
    assert not stale, f"EXPECTED_MISSING entries no TU compiles (remove them): {stale}"


# Parsed mainloop ops the instantiation compiles away, per TU: the SM90 mainloops' prologue loop
# `for (k_tile_prologue = prologue_mma_count - 1; k_tile_prologue > 0; ...)` never runs when
# K_PIPE_MMAS = 1 (the builders' default), so nvcc emits nothing for its wait, fence and MMA.
PROLOGUE_DEAD = "prologue loop compiled away: K_PIPE_MMAS = 1, so prologue_mma_count - 1 = 0"
INSTANTIATION_DEAD = {
    "sm90_gemm_pingpong": {512: PROLOGUE_DEAD, 513: PROLOGUE_DEAD, 516: PROLOGUE_DEAD, 518: PROLOGUE_DEAD},
    "sm90_gemm_cooperative": {512: PROLOGUE_DEAD, 513: PROLOGUE_DEAD, 516: PROLOGUE_DEAD, 518: PROLOGUE_DEAD},
    "sm90_gemm_warpspecialized": {512: PROLOGUE_DEAD, 513: PROLOGUE_DEAD, 516: PROLOGUE_DEAD,
                                  518: PROLOGUE_DEAD},
    "sm90_gemm_cpasync": {435: PROLOGUE_DEAD, 436: PROLOGUE_DEAD, 440: PROLOGUE_DEAD, 443: PROLOGUE_DEAD},
    "sm100_gemm_1sm": {},
}
# FA3's mainloop holds every build's branches; this build (fa3_fwd.cu: BF16, head dim 128, no
# paged KV / Qv / AppendKV, IntraWGOverlap on) compiles these away (FlashAttention 0251105a lines).
FA3_DEAD_REASONS = (
    ((758, 772), "PagedKVNonTMA = false: load_K / load_V's paged-KV cp.async branch"),
    ((781, 782, 786, 789, 790, 910), "Transpose_V = Is_FP8 && !V_colmajor = false: copy_Vt_to_V and "
                                     "the Vt pipeline's tail are FP8's"),
    ((823, 824, 1145, 1147, 1187, 1188, 1190), "HasQv = false: the Qv load, wait and GEMM"),
    ((829, 836, 844), "Use_TMA_Q = !PackGQA = true: the cp.async Q load branch"),
    ((941, 1081, 1090, 1244, 1246), "LargeHeadDimV = kHeadDimV > 256 = false"),
    ((1415, 1416, 1417, 1418, 1419, 1424, 1429, 1430, 1432, 1433, 1434, 1436, 1438),
     "LargeHeadDimV = false: mma_pv runs only in the kernel's LargeHeadDimV branch "
     "(flash_fwd_kernel_sm90.h 424)"),
    ((1111, 1118, 1123, 1125, 1506, 1507, 1512, 1513, 1526, 1616, 1643, 1659, 1663, 1671, 1672,
      1677, 1689, 1690, 1707), "AppendKV = false: mma's rotary Q branch, load_kv_new, store_kv_new"),
    ((1256, 1265, 1267, 1268, 1269, 1272, 1275, 1276, 1277, 1278, 1279, 1295, 1297, 1300, 1303,
      1304, 1336, 1338, 1342, 1344), "IntraWGOverlap = true: the `else  // No intra-WG overlap` branch"),
)
INSTANTIATION_DEAD["fa3_fwd"] = {line: reason for lines, reason in FA3_DEAD_REASONS for line in lines}
PROTOCOL_OP_KINDS = frozenset().union(*COMPATIBLE.values())


def frame_lines(listing, root, rel):
    """The lines of `rel` any instruction's chain passes through (a call of a same-file helper,
    such as FA3's warp_scheduler_barrier_sync(), compiles to the helper's instructions)."""
    target = str(root / rel)
    return {f.line for ins in listing.instructions for f in ins.chain if f.file == target and f.line > 0}


@pytest.mark.parametrize("name", unit_params(sorted(INSTANTIATION_DEAD)))
def test_parsed_mainloop_ops_compile_unless_instantiation_dead(compiled, cutlass_root, name):
    """Every protocol op the parse finds in the mainloop collective compiles to an instruction on
    its lines, except the ones INSTANTIATION_DEAD explains, which compile to none."""
    listing = listing_of(compiled, name)
    rel = CHECKED_FILES[name][1]
    root = root_of(name, cutlass_root)
    ops, _, _ = parse_of(root / rel)
    compiled_at = frame_lines(listing, root, rel)
    dead = INSTANTIATION_DEAD[name]
    not_compiled = {o["line"]: o for o in ops if o["op"] in PROTOCOL_OP_KINDS
                    and not any(o["line"] <= ln <= o["end_line"] for ln in compiled_at)}
    unexplained = [f"{rel}:{ln}: {o['op']}: {o['text']}" for ln, o in sorted(not_compiled.items())
                   if ln not in dead]
    assert not unexplained, f"{name}: parsed ops nvcc emits nothing for:\n  " + "\n  ".join(unexplained)
    alive = sorted(set(dead) - set(not_compiled))
    assert not alive, f"{name}: INSTANTIATION_DEAD lines that compile now (remove them): {alive}"
