"""ptx_lines on small PTX texts written here: chains, classes, statement heads, bad input."""

import ptx_lines

PTX = """
.visible .entry kern(
	.param .u64 p
)
{
	.loc	1 10 3
	bar.sync 	0;
	.loc	2 20 5, function_name $L__info_string0, inlined_at 1 12 3
	.loc	3 30 7, function_name $L__info_string1+4, inlined_at 2 20 5
	// begin inline asm
	{
	.reg .pred P1;
	LAB_WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 P1, [%r1], %r2;
	@P1 bra DONE;
	bra LAB_WAIT;
	DONE:
	}
	// end inline asm
	.loc	2 21 5, function_name $L__info_string0, inlined_at 1 12 3
	@%p3 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r4, %r5}], [%r6];
	{ wgmma.fence.sync.aligned; wgmma.commit_group.sync.aligned; }
	mov.u32 %r7, %r8;
	.loc	1 40 0
	cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd2, {%r1, %r2}], [%r3];
	tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, p;
	barrier.cluster.arrive;
}
	.file	1 "/x/kernel.hpp"
	.file	2 "/x/sub/../collective.hpp", 1700000000, 123
	.file	3 "/x/barrier.h"
"""


def test_chains_classes_and_files():
    """Each protocol instruction gets its class and its chain, innermost first."""
    listing = ptx_lines.read_ptx(PTX)
    assert listing.files == {1: "/x/kernel.hpp", 2: "/x/collective.hpp", 3: "/x/barrier.h"}
    got = [(i.cls, [(f.file.rsplit("/", 1)[1], f.line) for f in i.chain]) for i in listing.instructions]
    assert got == [
        ("bar_sync", [("kernel.hpp", 10)]),
        ("mbarrier_wait", [("barrier.h", 30), ("collective.hpp", 20), ("kernel.hpp", 12)]),
        ("tma_load", [("collective.hpp", 21), ("kernel.hpp", 12)]),
        ("wgmma_fence", [("collective.hpp", 21), ("kernel.hpp", 12)]),
        ("wgmma_commit", [("collective.hpp", 21), ("kernel.hpp", 12)]),
        ("tma_store", [("kernel.hpp", 40)]),
        ("umma", [("kernel.hpp", 40)]),
    ]   # barrier.cluster.arrive has no class
    assert {i.entry for i in listing.instructions} == {"kern"}
    wait = listing.instructions[1]
    assert listing.first_frame(wait, {"/x/collective.hpp"}).line == 20
    assert listing.first_frame(wait, {"/x/kernel.hpp", "/x/collective.hpp"}).line == 20
    assert listing.first_frame(wait, {"/nowhere.hpp"}) is None
    assert wait.text.startswith("mbarrier.try_wait.parity.shared::cta.b64 P1")


def test_classify_table():
    """Opcodes map to their class; lookalikes to none."""
    cases = {
        "mbarrier.arrive.expect_tx.shared::cta.b64": "mbarrier_expect_tx",
        "mbarrier.expect_tx.relaxed.cta.shared::cta.b64": "mbarrier_expect_tx",
        "mbarrier.arrive.shared::cluster.b64": "mbarrier_arrive",
        "mbarrier.test_wait.parity.shared::cta.b64": "mbarrier_wait",
        "mbarrier.init.shared::cta.b64": None,
        "cp.async.cg.shared.global": "cp_async",
        "cp.async.commit_group": "cp_async_commit",
        "cp.async.wait_group": "cp_async_wait",
        "cp.async.bulk.wait_group.read": "bulk_wait",
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group": "tma_reduce",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64": "umma_commit",
        "tcgen05.ld.sync.aligned.16x256b.x4.b32": "tmem_load",
        "cp.async.bulk.tensor.3d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint":
            "tma_load",
        "tcgen05.wait::ld.sync.aligned": "tmem_wait",
        "tcgen05.wait::st.sync.aligned": "tmem_wait",
        "tcgen05.fence::before_thread_sync": None,
        "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128": "clc_try_cancel",
        "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128": "clc_query_cancel",
        "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128": "clc_query_cancel",
        "bar.warp.sync": None,
        "bar.arrive": "bar_arrive",
        "barrier.sync.aligned": "bar_sync",
        "bra.uni": None,
        "elect.sync": "elect",
    }
    assert {op: ptx_lines.classify(op) for op in cases} == cases


def test_links_that_look_cyclic_and_garbage_never_hang():
    """inlined_at links that name each other's locations resolve to earlier .locs only (the first
    call site, never seen before, is a frame without parent); lines of noise are skipped."""
    text = ("\t.loc 1 5 1, function_name $a, inlined_at 1 6 1\n"
            "\t.loc 1 6 1, function_name $b, inlined_at 1 5 1\n"
            "\tbar.sync 0;\n" + "@@ ;;; .loc x y\n{{}}\n" * 50 + "\t.file 1 \"/k.h\"\n")
    listing = ptx_lines.read_ptx(text)
    [ins] = listing.instructions
    assert [(f.line) for f in ins.chain] == [6, 5, 6]
    assert ptx_lines.read_ptx("").instructions == []


def test_a_self_inlined_location_is_cut_at_the_depth_bound():
    """A run of .locs each inlined at its own location makes the longest possible chain: it is
    cut at MAX_CHAIN_DEPTH."""
    text = "\t.loc 1 1 1, function_name $f, inlined_at 1 1 1\n" * 1000 + "\tbar.sync 0;\n"
    [ins] = ptx_lines.read_ptx(text).instructions
    assert len(ins.chain) == ptx_lines.MAX_CHAIN_DEPTH


def test_recursion_repeats_a_location_with_its_own_call_site():
    """cute's copy() -> Copy_Atom::call() -> copy(): one run holds the same location (here 2 5 1)
    twice, each inlined at its own call site. The chain reaches the collective (file 1); a reader
    that links a location to its latest .loc's call site sees a cycle and stops short of it."""
    text = """
	.loc	1 100 3, function_name $k, inlined_at 9 1 1
	.loc	2 5 1, function_name $copy_a, inlined_at 1 100 3
	.loc	3 7 1, function_name $call_a, inlined_at 2 5 1
	.loc	2 9 1, function_name $copy_b, inlined_at 3 7 1
	.loc	2 5 1, function_name $copy_c, inlined_at 2 9 1
	.loc	4 1 1, function_name $tma, inlined_at 2 5 1
	cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd2, {%r1, %r2}], [%r3];
"""
    [ins] = ptx_lines.read_ptx(text).instructions
    assert [(f.file, f.line) for f in ins.chain] == [
        ("<file 4>", 1), ("<file 2>", 5), ("<file 2>", 9), ("<file 3>", 7), ("<file 2>", 5),
        ("<file 1>", 100), ("<file 9>", 1)]


def test_an_innermost_only_loc_hangs_from_the_call_its_function_came_from():
    """nvcc interleaves two inlined calls that share a helper (2 5 1) and writes only the innermost
    .loc for a later instruction of the first call: it hangs from the helper frame its function
    ($ld) was inlined at before, not from the other call's (which inlined $st there)."""
    text = """
	.loc	1 10 3, function_name $k, inlined_at 9 1 1
	.loc	2 5 1, function_name $helper_ld, inlined_at 1 10 3
	.loc	3 1 1, function_name $ld, inlined_at 2 5 1
	tcgen05.ld.sync.aligned.16x256b.x4.b32 {%r1, %r2, %r3, %r4}, [%r5];
	.loc	1 20 3, function_name $k, inlined_at 9 1 1
	.loc	2 5 1, function_name $helper_st, inlined_at 1 20 3
	.loc	3 2 1, function_name $st, inlined_at 2 5 1
	tcgen05.st.sync.aligned.16x256b.x4.b32 [%r5], {%r1, %r2, %r3, %r4};
	.loc	3 1 1, function_name $ld, inlined_at 2 5 1
	tcgen05.ld.sync.aligned.16x256b.x4.b32 {%r1, %r2, %r3, %r4}, [%r5];
	.loc	3 2 1, function_name $st, inlined_at 2 5 1
	tcgen05.st.sync.aligned.16x256b.x4.b32 [%r5], {%r1, %r2, %r3, %r4};
"""
    got = [(i.cls, [f.line for f in i.chain]) for i in ptx_lines.read_ptx(text).instructions]
    assert got == [("tmem_load", [1, 5, 10, 1]), ("tmem_store", [2, 5, 20, 1]),
                   ("tmem_load", [1, 5, 10, 1]), ("tmem_store", [2, 5, 20, 1])]
