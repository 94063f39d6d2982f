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
        "tcgen05.wait::ld.sync.aligned": None,
        "bar.arrive": "bar_arrive",
        "barrier.sync.aligned": "bar_sync",
        "bra.uni": None,
        "elect.sync": "elect",
    }
    assert {op: ptx_lines.classify(op) for op in cases} == cases


def test_cycles_and_garbage_never_hang():
    """A cycle in the inlined_at links ends the chain; lines of noise are skipped."""
    text = ("\t.loc 1 5 1, function_name $a, inlined_at 1 6 1\n"
            "\t.loc 1 6 1, function_name $b, inlined_at 1 5 1\n"
            "\tbar.sync 0;\n" + "@@ ;;; .loc x y\n{{}}\n" * 50 + "\t.file 1 \"/k.h\"\n")
    listing = ptx_lines.read_ptx(text)
    [ins] = listing.instructions
    assert [(f.line) for f in ins.chain] == [6, 5]
    assert ptx_lines.read_ptx("").instructions == []
