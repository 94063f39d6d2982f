/* Waveform page: the result's view description (KernelSchedule MODELS[...].view) read as kind names,
 * docs, wait reasons, chains, labels and fill keys; viewHolder.current is the current result's view.
 * Pure and DOM-free: a global KVWaveKinds in the page, module.exports in Node. ASCII only.
 */
var KVWaveKinds = (function () {
  "use strict";

  // Kind names and docs, wait reasons, legend, verdict lines: the result's view description
  // (KernelSchedule's MODELS[...].view); this page never branches on a model's name.
  var viewHolder = {current: null};
  /** The view's entry for kind (view: the current result's unless given). */
  function viewKind(kind, view) {
    var v = view || viewHolder.current;
    return v && v.kinds && v.kinds[kind] ? v.kinds[kind] : null;
  }
  function kindName(kind) { var k = viewKind(kind); return k ? k.name : String(kind).toUpperCase(); }
  function kindDoc(kind) { var k = viewKind(kind); return k ? k.doc : ""; }
  // Following: a kind with chain "k" is on a k-tile's (KV block's) path, "tile" on an output
  // tile's math; rank orders kinds along a chain at equal steps (all from the view).
  function onKChain(kind, view) { var k = viewKind(kind, view); return !!(k && k.chain === "k"); }
  function onTileChain(kind, view) { var k = viewKind(kind, view); return !!(k && (k.tile === true)); }
  function chainRank(kind) { var k = viewKind(kind); return k && typeof k.rank === "number" ? k.rank : 99; }
  function reasonDoc(reason) {
    var list = viewHolder.current && viewHolder.current.waitReasons ? viewHolder.current.waitReasons : [];
    for (var i = 0; i < list.length; i++) if (list[i].reason === reason) return list[i].doc;
    return "";
  }

  /** "o.k" for a block with tile and k, "o" with a tile only, "" otherwise. */
  function tileText(b) {
    if (b.tile === null || b.tile === undefined) return "";
    return (b.k === null || b.k === undefined) ? String(b.tile) : b.tile + "." + b.k;
  }

  /** Label candidates for a block, longest first; the drawer uses the first that fits. */
  function labelCandidates(b) {
    var ok = tileText(b);
    if (b.operand && (b.kind === "issue" || b.kind === "filling" || b.kind === "full")) {
      // Attention load blocks name their operand: "K 0.3", "FILLING V 0.3".
      var opOk = b.operand + (ok ? " " + ok : "");
      if (b.kind === "issue") return [opOk, b.operand];
      var word = b.kind === "filling" ? "FILLING" : "FULL";
      return [word + " " + opOk, opOk, b.operand];
    }
    switch (b.kind) {
      case "issue": return ok ? [ok] : ["I"];
      case "filling": return ok ? ["FILLING " + ok, "FILLING", "FILL", "F"] : ["FILLING", "F"];
      case "full": return ok ? ["FULL " + ok, "FULL", "F"] : ["FULL", "F"];
      case "wgmma": return ok ? ["WGMMA " + ok, ok] : ["WGMMA", "M"];
      case "transpose": return ok ? ["T " + ok, "T"] : ["T"];
      case "gemm0": return ok ? ["GEMM0 " + ok, "G0 " + ok, "G0"] : ["GEMM0", "G0"];
      case "softmax": return ok ? ["SOFTMAX " + ok, "SM " + ok, "SM"] : ["SOFTMAX", "SM"];
      case "gemm1": return ok ? ["GEMM1 " + ok, "G1 " + ok, "G1"] : ["GEMM1", "G1"];
      case "epilogue": return ["EPI " + (b.tile === null || b.tile === undefined ? "" : b.tile), "E"];
      case "wait": return b.reason ? ["WAIT " + b.reason, "WAIT", "W"] : ["WAIT", "W"];
      default: return ok ? [kindName(b.kind) + " " + ok, kindName(b.kind)] : [kindName(b.kind)];
    }
  }

  /** Theme fill key of a block: the view's fills for its kind; two fills alternate by output tile. */
  function fillKey(b) {
    var k = viewHolder.current && viewHolder.current.legend ? viewHolder.current.legendByKind[b.kind] : null;
    if (k && k.fills.length > 1) return k.fills[(b.tile || 0) % k.fills.length];
    return k && k.fills.length ? k.fills[0] : b.kind;
  }

  /**
   * Ids of the blocks that following {tile, k} highlights. With k: the k-tile's issue / FILLING /
   * FULL / WGMMA (GEMM), or the KV block's K and V (Vt) loads, GEMM0, softmax and GEMM1 on every WG
   * (attention). With k null: the output tile's math and epilogue, plus its Q load (attention).
   * One pass over result columns c (ascending ids), kinds tested by code against view (default:
   * the current result's).
   */
  function chainIds(c, tile, k, view) {
    var ids = [];
    if (tile === null || tile === undefined || c.n === 0) return ids;
    var wholeTile = k === null || k === undefined;
    var kOn = c.kinds.map(function (kind) { return onKChain(kind, view); });
    var tileOn = c.kinds.map(function (kind) { return onTileChain(kind, view); });
    var q = c.operands.indexOf("Q") + 1;  // operand code of "Q" (0: none)
    var tileCol = c.tile, kind = c.kind, kCol = c.k, operand = c.operand;
    for (var id = 0; id < c.n; id++) {
      if (tileCol[id] !== tile) continue;
      var kc = kind[id];
      if (wholeTile ? (tileOn[kc] || (q > 0 && operand[id] === q && kOn[kc])) : (kCol[id] === k && kOn[kc])) ids.push(id);
    }
    return ids;
  }

  return {viewHolder: viewHolder, viewKind: viewKind, kindName: kindName, kindDoc: kindDoc, onKChain: onKChain, onTileChain: onTileChain, chainRank: chainRank, reasonDoc: reasonDoc, tileText: tileText, labelCandidates: labelCandidates, fillKey: fillKey, chainIds: chainIds};
})();
if (typeof module !== "undefined" && module.exports) module.exports = KVWaveKinds;
