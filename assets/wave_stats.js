/* Waveform page: reading helpers: wait hatching and legend layout of the SVG / PNG export, statistics
 * over a range, search queries and matches, pinned-run deltas and source links.
 * Pure and DOM-free: a global KVWaveStats in the page, module.exports in Node. ASCII only.
 */
var KVWaveStats = (function (KVWaveConst, KVWaveIndex) {
  "use strict";
  var LEGEND_ITEM_GAP_PX = KVWaveConst.LEGEND_ITEM_GAP_PX,
      WAIT_HATCH_LINE_PX = KVWaveConst.WAIT_HATCH_LINE_PX,
      WAIT_HATCH_TILE_PX = KVWaveConst.WAIT_HATCH_TILE_PX, laneIndexOf = KVWaveIndex.laneIndexOf,
      visibleRange = KVWaveIndex.visibleRange;

  /**
   * SVG path data of the wait hatching inside the rectangle (x, y, w, h): for each line
   * x + y = n * WAIT_HATCH_TILE_PX that crosses it, the band of WAIT_HATCH_LINE_PX around the line
   * clipped to the rectangle (a convex polygon: the rectangle cut by the band's two half-planes).
   * Exact to the rectangle's edges, as the canvas pattern is; no pattern element is needed.
   */
  function hatchBands(x, y, w, h) {
    if (!(w > 0 && h > 0)) return "";
    var half = WAIT_HATCH_LINE_PX / 2 * Math.SQRT2;  // half the band's width along x + y
    var tile = WAIT_HATCH_TILE_PX, out = [];
    var cut = function (poly, keep) {  // Sutherland-Hodgman against keep(p) >= 0
      var res = [];
      for (var i = 0; i < poly.length; i++) {
        var a = poly[i], b = poly[(i + 1) % poly.length], ka = keep(a), kb = keep(b);
        if (ka >= 0) res.push(a);
        if ((ka >= 0) !== (kb >= 0)) { var t = ka / (ka - kb); res.push([a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]); }
      }
      return res;
    };
    var rect = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]];
    for (var n = Math.ceil((x + y - half) / tile); n * tile <= x + w + y + h + half; n++) {
      var c = n * tile;
      var poly = cut(cut(rect, function (p) { return p[0] + p[1] - (c - half); }), function (p) { return c + half - p[0] - p[1]; });
      if (poly.length < 3) continue;
      out.push("M" + poly.map(function (p) { return p[0].toFixed(1) + " " + p[1].toFixed(1); }).join("L") + "z");
    }
    return out.join("");
  }

  /**
   * Where the SVG / PNG legend puts its items: left to right from x0, a new row whenever the next
   * item would pass x1 (an item wider than a whole row gets a row of its own). widths: each
   * item's width in px. Returns {at: [{x, row}], rows}.
   */
  function legendLayout(widths, x0, x1) {
    var at = [], row = 0, x = x0;
    widths.forEach(function (w) {
      if (x > x0 && x + w > x1) { row++; x = x0; }
      at.push({x: x, row: row});
      x += w + LEGEND_ITEM_GAP_PX;
    });
    return {at: at, rows: widths.length ? row + 1 : 0};
  }

  // ---- Reading a schedule (issue 23): statistics over a range, search, a pinned run ------------
  // Kinds whose blocks occupy the tensor core (GEMM WGMMA, attention GEMM0 / GEMM1, Blackwell
  // UMMA): the verdict's tensorCoreBusySteps counts the steps they cover, and rangeStats counts
  // the same steps inside a range (tests/js/reading.test.js checks the whole run against it).
  var TENSOR_CORE_KINDS = ["wgmma", "gemm0", "gemm1", "umma"];

  /**
   * Statistics of result columns c over steps [t0, t1): per lane, busy steps (covered by a block
   * that is not a wait, overlaps counted once), wait steps by reason and the blocks of each kind
   * that overlap the range (a zero-length block counts when it lies inside); over all lanes, the
   * steps the tensor core is busy (TENSOR_CORE_KINDS, overlaps across lanes counted once).
   * laneIndexes[li]: laneIndexOf(c, li) (made when absent). Binary search per lane, then only
   * the blocks that touch the range are read, from the typed columns (no block objects).
   */
  function rangeStats(c, t0, t1, laneIndexes) {
    var lo = Math.min(t0, t1), hi = Math.max(t0, t1), span = hi - lo;
    var waitCode = c.kinds.indexOf("wait");
    var tensorKind = c.kinds.map(function (kind) { return TENSOR_CORE_KINDS.indexOf(kind) >= 0; });
    var lanes = [], tensorLists = [];
    for (var li = 0; li < c.lanes.length; li++) {
      var index = laneIndexes && laneIndexes[li] ? laneIndexes[li] : laneIndexOf(c, li);
      var range = visibleRange(index, lo, hi), starts = index.starts, ends = index.ends;
      var row = {lane: c.lanes[li], busy: 0, wait: 0, waits: {}, counts: {}, blocks: 0};
      var cover = -Infinity, tcS = [], tcE = [], tcCover = -Infinity;
      // Counted by code in typed arrays (no string keys in the loop), named at the end.
      var kindCount = new Float64Array(c.kinds.length), reasonSteps = new Float64Array(c.reasons.length);
      for (var i = range[0]; i < range[1]; i++) {
        var s = starts[i], e = ends[i];
        var inside = e > s ? (s < hi && e > lo) : (s >= lo && s < hi);
        if (!inside) continue;
        var id = index.lo + i, kc = c.kind[id];
        var a = s > lo ? s : lo, b = e < hi ? e : hi;
        row.blocks++;
        kindCount[kc]++;
        if (kc === waitCode) {
          row.wait += b - a;
          reasonSteps[c.reason[id]] += b - a;
          continue;
        }
        var from = a > cover ? a : cover;
        if (b > from) row.busy += b - from;
        if (b > cover) cover = b;
        if (tensorKind[kc] && b > a) {
          // This lane's tensor-core intervals, merged (sorted by start already).
          if (tcS.length && a <= tcCover) { tcE[tcE.length - 1] = Math.max(tcCover, b); tcCover = tcE[tcE.length - 1]; }
          else { tcS.push(a); tcE.push(b); tcCover = b; }
        }
      }
      for (var k = 0; k < kindCount.length; k++) if (kindCount[k]) row.counts[c.kinds[k]] = kindCount[k];
      for (var w = 0; w < reasonSteps.length; w++) if (reasonSteps[w]) row.waits[c.reasons[w] || "?"] = reasonSteps[w];
      if (tcS.length) tensorLists.push({s: tcS, e: tcE, at: 0});
      lanes.push(row);
    }
    // Union of every lane's tensor-core intervals: a merge by start over the few lanes that have any.
    var tensorBusy = 0, tcEnd = -Infinity;
    for (;;) {
      var best = null;
      for (var j = 0; j < tensorLists.length; j++) {
        var l = tensorLists[j];
        if (l.at < l.s.length && (best === null || l.s[l.at] < best.s[best.at])) best = l;
      }
      if (best === null) break;
      var ss = best.s[best.at], ee = best.e[best.at];
      best.at++;
      if (ee > Math.max(ss, tcEnd)) tensorBusy += ee - Math.max(ss, tcEnd);
      tcEnd = Math.max(tcEnd, ee);
    }
    return {t0: lo, t1: hi, span: span, lanes: lanes, tensorBusy: tensorBusy, tensorUtil: span > 0 ? tensorBusy / span : null};
  }

  // Search words that only read well ("next WAIT tma", "find wgmma 1.2"): ignored.
  var SEARCH_FILLER_WORDS = ["next", "find", "go", "to"];
  // The short names block labels use (labelCandidates) for a kind, as search words.
  var SEARCH_KIND_ALIASES = {epi: "epilogue", g0: "gemm0", g1: "gemm1", sm: "softmax", t: "transpose", i: "issue"};
  var SEARCH_PREFIX_MIN = 3;   // a shorter word must name a kind exactly, not by its start
  var RE_TILE_K = /^(\d{1,9})\.(\d{1,9})$/, RE_TILE = /^(\d{1,9})$/;

  /**
   * Parse a search query against a vocabulary {kinds: [{kind, name}], reasons: [..], operands:
   * [..], lanes: [{id, label}]} (the result's columns and view). Words (any order, case-insensitive
   * except an operand written as it is, "K", "V"): a kind's name, id, label abbreviation (EPI, G0,
   * SOFTMAX) or its first SEARCH_PREFIX_MIN+ letters (gemm: GEMM0 and GEMM1); multi-word names
   * ("TMA issue") as phrases; `o.k` (output tile o, k-tile / KV block k) or `o` (output tile);
   * a wait reason (with "wait" in the query a reason wins over a kind of the same name:
   * attention's `epilogue`); an operand; a lane (a substring of its id or name). Values of one
   * sort are alternatives (gemm0 gemm1), sorts must all hold. Returns {kinds, reasons, operands,
   * lanes, tiles: [{tile, k}], words, error} (null: that sort is not constrained); error names
   * the first word that means nothing.
   */
  function parseQuery(text, vocab) {
    var q = {kinds: null, reasons: null, operands: null, lanes: null, tiles: null, words: [], error: null, empty: true};
    var rest = " " + String(text || "").replace(/\s+/g, " ").trim() + " ";
    function add(field, value) {
      q[field] = q[field] || [];
      if (q[field].indexOf(value) < 0) q[field].push(value);
      q.empty = false;
    }
    var kinds = vocab.kinds || [], reasons = vocab.reasons || [], operands = vocab.operands || [], lanes = vocab.lanes || [];
    // Multi-word kind names first, longest first, so "TMA issue" is not "tma" (a wait reason) + "issue".
    kinds.filter(function (k) { return /\s/.test(k.name); }).sort(function (a, b) { return b.name.length - a.name.length; })
      .forEach(function (k) {
        var low = rest.toLowerCase(), phrase = " " + k.name.toLowerCase() + " ", at = low.indexOf(phrase);
        while (at >= 0) {
          add("kinds", k.kind);
          q.words.push(k.name + ": kind");
          rest = rest.slice(0, at) + " " + rest.slice(at + phrase.length - 1);
          low = rest.toLowerCase();
          at = low.indexOf(phrase);
        }
      });
    var words = rest.trim() ? rest.trim().split(" ") : [];
    var hasWait = words.some(function (w) { return w.toLowerCase() === "wait"; });
    function kindsNamed(low) {
      var exact = kinds.filter(function (k) { return k.kind.toLowerCase() === low || k.name.toLowerCase() === low; });
      if (exact.length) return exact;
      var alias = SEARCH_KIND_ALIASES[low];
      var aliased = kinds.filter(function (k) { return k.kind === alias; });
      if (aliased.length) return aliased;
      if (low.length < SEARCH_PREFIX_MIN) return [];
      return kinds.filter(function (k) { return k.kind.toLowerCase().indexOf(low) === 0 || k.name.toLowerCase().indexOf(low) === 0; });
    }
    for (var i = 0; i < words.length; i++) {
      var w = words[i], low = w.toLowerCase(), m;
      if (SEARCH_FILLER_WORDS.indexOf(low) >= 0) continue;
      if ((m = RE_TILE_K.exec(w))) { add("tiles", {tile: Number(m[1]), k: Number(m[2])}); q.words.push(w + ": tile " + m[1] + ", " + (vocab.unit || "k-tile") + " " + m[2]); continue; }
      if ((m = RE_TILE.exec(w))) { add("tiles", {tile: Number(m[1]), k: null}); q.words.push(w + ": output tile"); continue; }
      if (operands.indexOf(w) >= 0) { add("operands", w); q.words.push(w + ": operand"); continue; }
      var reason = reasons.filter(function (r) { return String(r).toLowerCase() === low; })[0];
      if (reason !== undefined && hasWait) { add("reasons", reason); q.words.push(w + ": wait reason"); continue; }
      var named = kindsNamed(low);
      if (named.length) { named.forEach(function (k) { add("kinds", k.kind); }); q.words.push(w + ": kind " + named.map(function (k) { return k.name; }).join(" or ")); continue; }
      if (reason !== undefined) { add("reasons", reason); q.words.push(w + ": wait reason"); continue; }
      var op = operands.filter(function (o) { return String(o).toLowerCase() === low; })[0];
      if (op !== undefined) { add("operands", op); q.words.push(w + ": operand"); continue; }
      var onLanes = lanes.filter(function (ln) { return ln.id.toLowerCase().indexOf(low) >= 0 || String(ln.label).toLowerCase().replace(/\s+/g, "").indexOf(low) >= 0; });
      if (onLanes.length) { onLanes.forEach(function (ln) { add("lanes", ln.id); }); q.words.push(w + ": lane"); continue; }
      q.error = "\u201c" + w.slice(0, 40) + "\u201d names no kind, wait reason, operand, lane or tile (o.k)";
      return q;
    }
    return q;
  }

  /**
   * Ids of the blocks of columns c that query q (parseQuery) matches, in time order (start, then
   * lane order): one pass over the typed columns, then a merge of the lanes' lists (each is
   * sorted by start already). Returns {ids: Int32Array, perLane: [Int32Array per lane, ascending ids]}.
   */
  function searchBlocks(c, q) {
    var none = {ids: new Int32Array(0), perLane: c.lanes.map(function () { return new Int32Array(0); })};
    if (!q || q.error || q.empty) return none;
    function allowed(list, values, offset) {
      if (!values) return null;
      var ok = new Uint8Array(list.length + offset);
      list.forEach(function (v, i) { if (values.indexOf(v) >= 0) ok[i + offset] = 1; });
      return ok;
    }
    var kindOk = allowed(c.kinds, q.kinds, 0), reasonOk = allowed(c.reasons, q.reasons, 0);
    var operandOk = allowed(c.operands, q.operands, 1), laneOk = allowed(c.lanes, q.lanes, 0);
    var tiles = q.tiles, tileCol = c.tile, kCol = c.k;
    var perLane = [], total = 0;
    for (var li = 0; li < c.lanes.length; li++) {
      var out = [];
      if (!laneOk || laneOk[li]) {
        for (var id = c.laneStart[li]; id < c.laneStart[li + 1]; id++) {
          if (kindOk && !kindOk[c.kind[id]]) continue;
          if (reasonOk && !reasonOk[c.reason[id]]) continue;
          if (operandOk && !operandOk[c.operand[id]]) continue;
          if (tiles) {
            var hit = false;
            for (var t = 0; t < tiles.length && !hit; t++) hit = tileCol[id] === tiles[t].tile && (tiles[t].k === null || kCol[id] === tiles[t].k);
            if (!hit) continue;
          }
          out.push(id);
        }
      }
      perLane.push(Int32Array.from(out));
      total += out.length;
    }
    // Merge by start (ties: lane order), reading each lane's next match only.
    var ids = new Int32Array(total), at = new Int32Array(perLane.length), start = c.start;
    for (var n = 0; n < total; n++) {
      var best = -1;
      for (var l = 0; l < perLane.length; l++) {
        if (at[l] < perLane[l].length && (best < 0 || start[perLane[l][at[l]]] < start[perLane[best][at[best]]])) best = l;
      }
      ids[n] = perLane[best][at[best]++];
    }
    return {ids: ids, perLane: perLane};
  }

  /**
   * The match to go to from match position pos (dir +1: Enter, -1: Shift+Enter), wrapping at
   * either end; with no position yet (a new query), the first match starting at or after step t
   * (dir +1) or the last one starting before it (dir -1). ids: searchBlocks' ids; start: c.start.
   * Returns a position, or -1 when there are no matches.
   */
  function stepMatch(ids, start, pos, t, dir) {
    var n = ids.length;
    if (!n) return -1;
    if (pos >= 0 && pos < n) return (pos + (dir > 0 ? 1 : n - 1)) % n;
    var from = typeof t === "number" && isFinite(t) ? t : 0, lo = 0, hi = n;
    while (lo < hi) { var mid = (lo + hi) >>> 1; if (start[ids[mid]] < from) lo = mid + 1; else hi = mid; }
    if (dir > 0) return lo < n ? lo : 0;
    return lo > 0 ? lo - 1 : n - 1;
  }

  /**
   * Differences between a pinned verdict and the live one: {total: [pinned, live], lanes:
   * [{lane, pinned, live, reasons: [[reason, pinned, live]]}]} over the lanes and reasons of
   * either (a lane missing on one side counts 0 there). order: reasons listed first (the view's).
   */
  function verdictDelta(pinned, live, order) {
    var lanes = Object.keys(pinned.waits || {}).concat(Object.keys(live.waits || {}))
      .filter(function (l, i, all) { return all.indexOf(l) === i; }).sort();
    return {total: [pinned.total, live.total], lanes: lanes.map(function (lane) {
      var a = (pinned.waits || {})[lane] || {}, b = (live.waits || {})[lane] || {};
      var reasons = (order || []).concat(Object.keys(a), Object.keys(b))
        .filter(function (r, i, all) { return r !== "total" && all.indexOf(r) === i && ((a[r] || 0) || (b[r] || 0)); });
      return {lane: lane, pinned: a.total || 0, live: b.total || 0, reasons: reasons.map(function (r) { return [r, a[r] || 0, b[r] || 0]; })};
    })};
  }

  /**
   * The link of a source line (viz.py --source-link): "file" gives file:///ABS (browsers open the
   * file, not a line), "vscode" gives vscode://file/ABS:LINE; any other scheme, or no path: null.
   * absPath: the file's absolute path as viz.py resolved it (backslashes become slashes).
   */
  function sourceHref(scheme, absPath, line) {
    if (!absPath || (scheme !== "file" && scheme !== "vscode")) return null;
    var p = String(absPath).replace(/\\/g, "/");
    if (p.charAt(0) !== "/") p = "/" + p;
    var enc = encodeURI(p).replace(/#/g, "%23").replace(/\?/g, "%3F");
    if (scheme === "file") return "file://" + enc;
    return "vscode://file" + enc + (typeof line === "number" && line > 0 ? ":" + line : "");
  }

  return {hatchBands: hatchBands, legendLayout: legendLayout, TENSOR_CORE_KINDS: TENSOR_CORE_KINDS, rangeStats: rangeStats, SEARCH_FILLER_WORDS: SEARCH_FILLER_WORDS, SEARCH_KIND_ALIASES: SEARCH_KIND_ALIASES, SEARCH_PREFIX_MIN: SEARCH_PREFIX_MIN, RE_TILE_K: RE_TILE_K, RE_TILE: RE_TILE, parseQuery: parseQuery, searchBlocks: searchBlocks, stepMatch: stepMatch, verdictDelta: verdictDelta, sourceHref: sourceHref};
})(typeof KVWaveConst !== "undefined" ? KVWaveConst : require("./wave_const.js"),
   typeof KVWaveIndex !== "undefined" ? KVWaveIndex : require("./wave_index.js"));
if (typeof module !== "undefined" && module.exports) module.exports = KVWaveStats;
