/* Waveform page part: theme colours, cached text widths, the one requestAnimationFrame, and drawing
 * (lanes, blocks with culling, arrows, ruler, gutter, scrollbar, overview strip).
 * install(P) adds its functions to the page context P (assets/waveform.js). ASCII only.
 */
var KVWaveDraw = (function () {
  "use strict";
  var ARROW_HEAD_PX = KVWaveConst.ARROW_HEAD_PX, BADGE_ROW_PX = KVWaveConst.BADGE_ROW_PX,
      BLOCK_INSET_PX = KVWaveConst.BLOCK_INSET_PX, CRITICAL_HALO_PX = KVWaveConst.CRITICAL_HALO_PX,
      CRITICAL_STROKE_PX = KVWaveConst.CRITICAL_STROKE_PX, DIM_ALPHA = KVWaveConst.DIM_ALPHA,
      FILL_KEYS = KVWaveConst.FILL_KEYS, GROUP_TOGGLE_PX = KVWaveConst.GROUP_TOGGLE_PX,
      GUTTER_MIN_WIDTH_PX = KVWaveConst.GUTTER_MIN_WIDTH_PX, GUTTER_PAD_PX = KVWaveConst.GUTTER_PAD_PX,
      KEY_DIM = KVWaveConst.KEY_DIM, KEY_SLIVER = KVWaveConst.KEY_SLIVER,
      LABEL_FONT_PX = KVWaveConst.LABEL_FONT_PX, LABEL_MIN_WIDTH_PX = KVWaveConst.LABEL_MIN_WIDTH_PX,
      LABEL_PAD_PX = KVWaveConst.LABEL_PAD_PX, LANE_FONT_PX = KVWaveConst.LANE_FONT_PX,
      LANE_HEIGHT_PX = KVWaveConst.LANE_HEIGHT_PX, MIN_BLOCK_WIDTH_PX = KVWaveConst.MIN_BLOCK_WIDTH_PX,
      OVERVIEW_DIM_ALPHA = KVWaveConst.OVERVIEW_DIM_ALPHA,
      OVERVIEW_HEIGHT_PX = KVWaveConst.OVERVIEW_HEIGHT_PX, PLOT_PAD_PX = KVWaveConst.PLOT_PAD_PX,
      RULER_HEIGHT_PX = KVWaveConst.RULER_HEIGHT_PX, SCROLLBAR_PX = KVWaveConst.SCROLLBAR_PX,
      SEPARATE_MIN_WIDTH_PX = KVWaveConst.SEPARATE_MIN_WIDTH_PX,
      SUB_BLOCK_INSET_PX = KVWaveConst.SUB_BLOCK_INSET_PX,
      SUB_LANE_INDENT_PX = KVWaveConst.SUB_LANE_INDENT_PX,
      TIMELINE_MIN_HEIGHT_PX = KVWaveConst.TIMELINE_MIN_HEIGHT_PX,
      TIMELINE_VIEWPORT_MARGIN_PX = KVWaveConst.TIMELINE_VIEWPORT_MARGIN_PX,
      WAIT_HATCH_LINE_PX = KVWaveConst.WAIT_HATCH_LINE_PX,
      WAIT_HATCH_STROKES = KVWaveConst.WAIT_HATCH_STROKES,
      WAIT_HATCH_TILE_PX = KVWaveConst.WAIT_HATCH_TILE_PX,
      dependentsOfColumns = KVWaveIndex.dependentsOfColumns, fillMaskIn = KVWaveIndex.fillMaskIn,
      lowerBoundIn = KVWaveIndex.lowerBoundIn, pathIndexOf = KVWaveIndex.pathIndexOf, overviewSummary = KVWaveIndex.overviewSummary,
      visibleRange = KVWaveIndex.visibleRange, labelCandidates = KVWaveKinds.labelCandidates,
      TENSOR_CORE_KINDS = KVWaveStats.TENSOR_CORE_KINDS, TimeScale = KVWaveView.TimeScale,
      hashNumber = KVWaveView.hashNumber, niceTickStep = KVWaveView.niceTickStep;

  /** Install this part of the page on the page context P. */
  function install(P) {
    var box = P.box, canvas = P.canvas, ctx = P.ctx, overviewCanvas = P.overviewCanvas,
        overviewCtx = P.overviewCtx, state = P.state;
    // -- colours from theme.css variables
    var colours = {}, waitPattern = null;
    P.uiFont = "sans-serif";
    function readTheme() {
      var cs = getComputedStyle(document.documentElement);
      function v(name, fallback) { var x = cs.getPropertyValue(name).trim(); return x || fallback; }
      FILL_KEYS.forEach(function (k) {
        colours[k] = v("--kind-" + k, "#888");
        colours[k + "-fg"] = v("--kind-" + k + "-fg", "#000");
      });
      ["bg", "fg", "muted", "panel", "border", "grid", "cursor", "marker-a", "marker-b", "highlight", "focus", "danger", "kind-wait-hatch"]
        .forEach(function (k) { colours[k] = v("--" + k, "#888"); });
      P.uiFont = v("--font-ui", "sans-serif");
      var tile = document.createElement("canvas");
      tile.width = tile.height = WAIT_HATCH_TILE_PX;
      var tctx = tile.getContext("2d");
      tctx.fillStyle = colours.wait;
      tctx.fillRect(0, 0, WAIT_HATCH_TILE_PX, WAIT_HATCH_TILE_PX);
      tctx.strokeStyle = colours["kind-wait-hatch"];
      tctx.lineWidth = WAIT_HATCH_LINE_PX;
      tctx.beginPath();
      WAIT_HATCH_STROKES.forEach(function (l) { tctx.moveTo(l[0], l[1]); tctx.lineTo(l[2], l[3]); });
      tctx.stroke();
      waitPattern = ctx.createPattern(tile, "repeat");
      clearTextCaches();
    }

    // -- text measuring, cached per font (all caches dropped when devicePixelRatio or the theme changes)
    var textWidthCaches = new Map(), textWidthCache = new Map(), cachedDpr = 0;
    function textWidth(text) {
      var w = textWidthCache.get(text);
      if (w === undefined) { w = ctx.measureText(text).width; textWidthCache.set(text, w); }
      return w;
    }
    function useFont(font) {
      ctx.font = font;
      textWidthCache = textWidthCaches.get(font);
      if (!textWidthCache) { textWidthCache = new Map(); textWidthCaches.set(font, textWidthCache); }
    }
    function clearTextCaches() { textWidthCaches.clear(); textWidthCache = new Map(); }

    // -- one requestAnimationFrame for everything
    var rafId = 0, needSimulate = false;
    function requestDraw() {
      if (!rafId) rafId = requestAnimationFrame(frame);
      P.scheduleHashWrite();
    }
    function requestSimulate() { needSimulate = true; requestDraw(); }
    function frame() {
      rafId = 0;
      var t0 = performance.now();
      if (needSimulate) { needSimulate = false; if (!P.simulateInBackground()) P.simulateNow(); }
      draw();
      state.frames++;
      state.lastFrameMs = performance.now() - t0;
    }
    function flush() {
      if (rafId) { cancelAnimationFrame(rafId); rafId = 0; }
      frame();
    }

    function laneName(lane) { return String(lane.label || lane.id); }

    function laneTop(row) { return state.rowTop[row]; }
    /** Top and height of the blocks drawn in a row (sub-rows have a smaller inset). */
    function blockY(row) {
      var inset = state.rowHeight[row] === LANE_HEIGHT_PX ? BLOCK_INSET_PX : SUB_BLOCK_INSET_PX;
      return {y: state.rowTop[row] + inset, h: state.rowHeight[row] - 2 * inset};
    }

    // -- drawing
    function draw() {
      var t0 = performance.now();
      var dpr = window.devicePixelRatio || 1;
      var widthCss = Math.max(320, Math.floor(box.clientWidth || 800));
      // More lanes than fit in the window: the canvas stops at the window's height and the lanes
      // scroll inside it (state.scrollPx; the plain wheel, as in Perfetto), under a fixed ruler.
      var contentCss = state.lanes.length ? state.contentBottom : RULER_HEIGHT_PX + LANE_HEIGHT_PX;
      var heightCss = Math.min(contentCss, Math.max(TIMELINE_MIN_HEIGHT_PX, Math.floor((window.innerHeight || 800) - TIMELINE_VIEWPORT_MARGIN_PX)));
      state.viewHeightPx = heightCss;
      P.scrollRows();
      // Sticky ruler: when the page has scrolled the canvas's top off the window, the ruler is
      // drawn at the window's top edge (redrawn on scroll), over the lanes that passed under it.
      var canvasTop = canvas.getBoundingClientRect().top;
      state.rulerTopPx = Math.max(0, Math.min(Math.ceil(-canvasTop), heightCss - RULER_HEIGHT_PX));  // whole px: a crisp ruler
      if (canvas.width !== Math.round(widthCss * dpr) || canvas.height !== Math.round(heightCss * dpr)) {
        canvas.width = Math.round(widthCss * dpr);
        canvas.height = Math.round(heightCss * dpr);
        canvas.style.height = heightCss + "px";
      }
      if (dpr !== cachedDpr) { cachedDpr = dpr; clearTextCaches(); }
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      useFont(LANE_FONT_PX + "px " + P.uiFont);
      var gutterPx = GUTTER_MIN_WIDTH_PX;
      for (var li = 0; li < state.lanes.length; li++) {
        gutterPx = Math.max(gutterPx, Math.ceil(textWidth(laneName(state.lanes[li]))) + 2 * GUTTER_PAD_PX + GROUP_TOGGLE_PX +
          (P.isSubLane(state.lanes[li]) ? SUB_LANE_INDENT_PX : 0));
      }
      state.gutterPx = gutterPx;
      var scale = new TimeScale(state.view.t0Step, state.view.t1Step, gutterPx + PLOT_PAD_PX, widthCss - PLOT_PAD_PX);
      state.scale = scale;
      // The view may have moved under a still pointer (keys, wheel): re-aim cursor and tooltip.
      P.refreshPointer();

      ctx.fillStyle = colours.bg;
      ctx.fillRect(0, 0, widthCss, heightCss);
      // Lane stripes and group separators.
      for (var row = 0; row < state.lanes.length; row++) {
        if (state.rowStripe[row] % 2 === 1) { ctx.fillStyle = colours.panel; ctx.fillRect(state.gutterPx, laneTop(row), widthCss, state.rowHeight[row]); }
      }
      // Cycles and microseconds make longer labels: ticks twice as far apart.
      var tickStep = niceTickStep(scale.pxPerStep * (state.result && state.result.time ? 0.5 : 1));
      var firstTick = Math.ceil(scale.t0Step / tickStep) * tickStep;
      ctx.fillStyle = colours.grid;
      for (var t = firstTick; t <= scale.t1Step; t += tickStep) {
        ctx.fillRect(Math.round(scale.xPx(t)), RULER_HEIGHT_PX, 1, heightCss - RULER_HEIGHT_PX);
      }

      ctx.save();
      ctx.beginPath();
      ctx.rect(state.gutterPx, RULER_HEIGHT_PX, widthCss - state.gutterPx, heightCss - RULER_HEIGHT_PX);
      ctx.clip();
      if (state.result && state.result.error) {
        useFont("13px " + P.uiFont);
        ctx.fillStyle = colours.danger;
        ctx.textBaseline = "middle";
        ctx.textAlign = "left";
        ctx.fillText("No schedule drawn: " + state.result.error, state.gutterPx + 8, RULER_HEIGHT_PX + 12);
      } else {
        P.drawGhost(scale, widthCss);
        drawBlocks(scale, widthCss);
        P.drawSearchHits(scale, widthCss);
      }
      drawLines(scale, heightCss);
      ctx.restore();

      drawGutter(widthCss, heightCss);
      drawScrollbar(widthCss, heightCss, contentCss);
      ctx.save();
      ctx.translate(0, state.rulerTopPx);
      drawRuler(scale, widthCss, tickStep, firstTick);
      ctx.restore();
      drawOverview(widthCss, dpr);
      updateReadouts();
      state.lastDrawMs = performance.now() - t0;
      if (state.resultDrawPending) {
        // When the new result was drawn, and when the next frame (which shows it) began.
        state.resultDrawPending = false;
        state.lastResultDrawnAt = performance.now();
        requestAnimationFrame(function () { state.lastResultFrameAt = performance.now(); });
      }
    }

    /**
     * The visible blocks: queued by fill (culled per lane, sub-pixel blocks summarised), painted
     * one fill() per key, labelled, then arrows and the hover / selection / critical-path outlines.
     */
    function drawBlocks(scale, widthCss) {
      var fills = state.fills || (state.fills = P.fillSummaryOf(state.columns));
      var batch = newBatch(fills, state.gutterPx, widthCss);
      var summarised = queueRows(batch, scale);
      var rects = namedRects(batch);
      paintRects(rects);
      paintLabels(batch.labels);
      state.summarised = summarised;
      state.lastRects = rects;
      state.lastLabels = batch.labels;
      drawArrows(scale, widthCss);
      drawCriticalPath(scale, widthCss);
      if (P.isLive(state.hover)) outlineBlock(scale, state.hover, colours.fg, 1.5);
      if (P.isLive(state.selected)) outlineBlock(scale, state.selected, colours.cursor, 2.5);
    }

    /**
     * One frame's rectangle queues. lists[ki] is a flat [x, y, w, h, ...] list per key number ki
     * (fill code * 4 + KEY_SLIVER for 1px slivers + KEY_DIM when dimmed), so no key string is
     * built per block (namedRects names them at the end); labels[fill] is a flat
     * [block, x0, x1, yMid, dim, ...] list per fill (its text colour). y / h: the lane being queued.
     */
    function newBatch(fills, xMin, xMax) {
      var nKeys = fills.names.length * 4;
      return {fills: fills, nKeys: nKeys, lists: new Array(nKeys).fill(null), counts: new Int32Array(nKeys),
        laneFirst: new Int32Array(nKeys), labels: {}, xMin: xMin, xMax: xMax, y: 0, h: 0,
        anyHighlight: state.highlighted.size > 0, hl: state.highlightedSorted || []};
    }

    /** Queue one rectangle under key number ki; slivers coalesce with the previous sliver of that key on this lane. */
    function queueRect(batch, ki, cx0, cx1, wide) {
      var list = batch.lists[ki] || (batch.lists[ki] = []);
      var n = list.length, laneFirst = batch.laneFirst;
      batch.counts[ki]++;
      if (laneFirst[ki] < 0) laneFirst[ki] = n;
      if (wide) {
        // Wide enough to see: a 1px gap keeps back-to-back blocks of one colour apart.
        list.push(cx0, batch.y, cx1 - cx0 - 1, batch.h);
      } else if (n > laneFirst[ki] && list[n - 4] + list[n - 2] >= cx0 - 0.5) {
        list[n - 2] = Math.max(list[n - 2], cx1 - list[n - 4]);
      } else {
        list.push(cx0, batch.y, cx1 - cx0, batch.h);
      }
    }

    /** One 1px sliver per fill bit of mask in pixel column px (sliver keys, dimmed ones when dim). */
    function queueSlivers(batch, mask, px, dim) {
      var cx0 = Math.max(px, batch.xMin), cx1 = Math.min(px + MIN_BLOCK_WIDTH_PX, batch.xMax);
      if (cx1 <= cx0) return;
      for (var f = 0; mask !== 0; f++, mask >>>= 1) {
        if (mask & 1) queueRect(batch, f * 4 + KEY_SLIVER + (dim ? KEY_DIM : 0), cx0, cx1, false);
      }
    }

    /** Queue every shown row's visible blocks; returns the rows whose sub-pixel blocks were summarised. */
    function queueRows(batch, scale) {
      var summarised = [], yMax = state.viewHeightPx || Infinity;
      for (var row = 0; row < state.laneIndex.length; row++) {
        var rowBox = blockY(row), thin = 0;
        if (rowBox.y + rowBox.h < RULER_HEIGHT_PX || rowBox.y > yMax) continue;  // scrolled out of the canvas
        // A folded group's row draws the blocks of all its lanes (unlabelled: they may overlap).
        var members = state.rowMemberIndexes[row] || [state.laneIndex[row]], folded = !!state.rowMemberIndexes[row];
        for (var mi = 0; mi < members.length; mi++) {
          batch.y = rowBox.y; batch.h = rowBox.h; batch.laneFirst.fill(-1);
          thin += queueLane(batch, members[mi], scale, folded);
        }
        if (thin) summarised.push({lane: state.lanes[row].id, label: laneName(state.lanes[row]), blocks: thin});
      }
      return summarised;
    }

    /** Queue one lane's visible blocks (and labels unless folded); returns how many were summarised. */
    function queueLane(batch, index, scale, folded) {
      var lo = index.lo, starts = index.starts, ends = index.ends, codes = batch.fills.code, names = batch.fills.names;
      var xMin = batch.xMin, xMax = batch.xMax, labels = batch.labels, y = batch.y, h = batch.h;
      var anyHighlight = batch.anyHighlight, range = visibleRange(index, scale.t0Step, scale.t1Step);
      var i = range[0], end = range[1], thin = 0;
      while (i < end) {
        var x0 = scale.xPx(starts[i]), x1 = scale.xPx(ends[i]);
        if (x1 - x0 >= MIN_BLOCK_WIDTH_PX) {
          var id = lo + i;
          i++;
          var cx0 = Math.max(x0, xMin), cx1 = Math.min(x1, xMax);
          if (cx1 <= cx0) continue;
          var dim = anyHighlight && !state.highlighted.has(id);
          var wide = cx1 - cx0 >= SEPARATE_MIN_WIDTH_PX, name = names[codes[id]];
          // Slivers (sliver keys) are painted after wide blocks, the rarest fill last (on top).
          queueRect(batch, codes[id] * 4 + (wide ? 0 : KEY_SLIVER) + (dim ? KEY_DIM : 0), cx0, cx1, wide);
          if (!folded && cx1 - cx0 >= LABEL_MIN_WIDTH_PX) (labels[name] || (labels[name] = [])).push(P.blockById(id), cx0, cx1, y + h / 2, dim);
          continue;
        }
        var px = Math.floor(x0), j = subPixelRunEnd(index, scale, i, end, px);
        thin += j - i;
        queueColumn(batch, lo + i, lo + j, px);
        i = j;
      }
      return thin;
    }

    /**
     * Level of detail: the end of the run of blocks from i that start in block i's pixel column px
     * and are narrower than a pixel (only the last of them can reach past it: blocks on a lane never
     * overlap), found by binary search over the lane's starts, never visited one by one.
     */
    function subPixelRunEnd(index, scale, i, end, px) {
      var starts = index.starts, ends = index.ends;
      var j = Math.max(i + 1, lowerBoundIn(starts, scale.tStep(px + 1), i + 1, end));
      if (j - 1 > i && scale.xPx(ends[j - 1]) - scale.xPx(starts[j - 1]) >= MIN_BLOCK_WIDTH_PX) j--;
      return j;
    }

    /**
     * Blocks a..b-1 (ids) share pixel column px: the fill summary says which fills occur among
     * them, and each gets a 1px sliver in its own colour (whole pixels, so no blend), so a rare
     * kind (one epilogue among many WGMMAs) is never swallowed by a common one. Followed blocks in
     * the column keep their colour; the rest are dimmed.
     */
    function queueColumn(batch, a, b, px) {
      var fills = batch.fills, codes = fills.code, hl = batch.hl;
      var mask = fillMaskIn(fills, a, b), bright = 0;
      if (!batch.anyHighlight) { queueSlivers(batch, mask, px, false); return; }
      var h0 = lowerBoundIn(hl, a, 0, hl.length), h1 = lowerBoundIn(hl, b, h0, hl.length);
      if (h1 > h0) {
        for (var q = h0; q < h1; q++) bright |= 1 << codes[hl[q]];
        mask = 0;
        for (var id = a; id < b; id++) if (!state.highlighted.has(id)) mask |= 1 << codes[id];
      }
      queueSlivers(batch, mask, px, true);
      queueSlivers(batch, bright, px, false);
    }

    /** The queues by key name (fill, "^" for slivers, "~" when dimmed); keeps the counts in state.lastCounts. */
    function namedRects(batch) {
      var rects = {}, blockCount = {}, names = batch.fills.names;
      for (var ki = 0; ki < batch.nKeys; ki++) {
        if (batch.lists[ki] === null) continue;
        var keyName = ((ki & KEY_SLIVER) ? "^" : "") + names[ki >> 2] + ((ki & KEY_DIM) ? "~" : "");
        rects[keyName] = batch.lists[ki];
        blockCount[keyName] = batch.counts[ki];
      }
      state.lastCounts = blockCount;
      return rects;
    }

    /** Fills batched by colour: one fillStyle change and one fill() per key, in paintOrder. */
    function paintRects(rects) {
      var order = paintOrder(rects);
      for (var k = 0; k < order.length; k++) {
        var list = rects[order[k]], base = order[k].replace(/[\^~]/g, "");
        ctx.globalAlpha = order[k].indexOf("~") >= 0 ? DIM_ALPHA : 1;
        ctx.fillStyle = base === "wait" && waitPattern ? waitPattern : colours[base];
        ctx.beginPath();
        for (var r = 0; r < list.length; r += 4) ctx.rect(list[r], list[r + 1], list[r + 2], list[r + 3]);
        ctx.fill();
      }
      ctx.globalAlpha = 1;
    }

    /** Labels, grouped by text colour: the longest candidate that fits each block's width. */
    function paintLabels(labels) {
      useFont(LABEL_FONT_PX + "px " + P.uiFont);
      ctx.textBaseline = "middle";
      ctx.textAlign = "center";
      for (var k = 0; k < FILL_KEYS.length; k++) {
        var fk = FILL_KEYS[k], group = labels[fk];
        if (!group) continue;
        ctx.fillStyle = colours[fk + "-fg"];
        for (var j = 0; j < group.length; j += 5) {
          var room = group[j + 2] - group[j + 1] - 2 * LABEL_PAD_PX;
          var cands = labelCandidates(group[j]), text = null;
          for (var c = 0; c < cands.length; c++) if (textWidth(cands[c]) <= room) { text = cands[c]; break; }
          if (text === null) continue;
          ctx.globalAlpha = group[j + 4] ? DIM_ALPHA + 0.2 : 1;
          ctx.fillText(text, (group[j + 1] + group[j + 2]) / 2, group[j + 3]);
        }
      }
      ctx.globalAlpha = 1;
    }

    /**
     * The critical path's blocks (result.criticalPath.blocks, with a GPU) outlined over the lanes
     * when the highlight is on (state.showCritical; b, or the verdict's checkbox): a bg-coloured
     * halo under a --focus stroke, so it shows on every fill. Culled like the blocks: the path's
     * index (pathIndexOf, built once per result) gives the ids that touch the window by binary
     * search; a block on a hidden or scrolled-away lane is skipped; runs of sub-pixel blocks on
     * one row merge into one outline. Off: returns at once. state.criticalDrawn: the ids outlined.
     */
    function drawCriticalPath(scale, widthCss) {
      state.criticalDrawn = [];
      var cp = state.showCritical && state.result ? state.result.criticalPath : null;
      if (!cp || !cp.blocks || !cp.blocks.length) return;
      var ci = state.criticalIndex;
      if (!ci || ci.result !== state.result) ci = state.criticalIndex = {result: state.result, index: pathIndexOf(state.columns, cp.blocks)};
      var index = ci.index, range = visibleRange(index, scale.t0Step, scale.t1Step), yMax = state.viewHeightPx || Infinity;
      var outlines = [], lastOnRow = {}, drawn = state.criticalDrawn;
      for (var i = range[0]; i < range[1]; i++) {
        var id = index.ids[i], bb = idBox(scale, id);
        if (!bb || bb.x1 <= state.gutterPx || bb.x0 >= widthCss || bb.y + bb.h < RULER_HEIGHT_PX || bb.y > yMax) continue;
        drawn.push(id);
        var last = lastOnRow[bb.y];
        if (last && bb.x1 - bb.x0 < SEPARATE_MIN_WIDTH_PX && bb.x0 <= last.x1 + 1) { last.x1 = Math.max(last.x1, bb.x1); continue; }
        outlines.push(lastOnRow[bb.y] = bb);
      }
      var path = new Path2D();
      outlines.forEach(function (b) { path.rect(b.x0 + 0.5, b.y + 0.5, Math.max(1, b.x1 - b.x0 - 1), b.h - 1); });
      ctx.lineWidth = CRITICAL_HALO_PX;
      ctx.strokeStyle = colours.bg;
      ctx.stroke(path);
      ctx.lineWidth = CRITICAL_STROKE_PX;
      ctx.strokeStyle = colours.focus;
      ctx.stroke(path);
    }

    /**
     * Paint order of the rectangle lists: wide blocks in FILL_KEYS order (dimmed first), then the
     * slivers of sub-pixel blocks from the most to the least numerous fill, so in a pixel column
     * shared by many WGMMAs and one epilogue the epilogue's colour is what shows.
     */
    function paintOrder(rects) {
      var order = [];
      ["~", ""].forEach(function (dim) {
        FILL_KEYS.forEach(function (k) { if (rects[k + dim] && rects[k + dim].length) order.push(k + dim); });
      });
      var thin = Object.keys(rects).filter(function (k) { return k.charAt(0) === "^" && rects[k].length; });
      thin.sort(function (a, b) {
        var da = a.indexOf("~") >= 0 ? 0 : 1, db = b.indexOf("~") >= 0 ? 0 : 1;
        var counts = state.lastCounts || {};
        return (da - db) || ((counts[b] || 0) - (counts[a] || 0)) || (a < b ? -1 : 1);
      });
      return order.concat(thin);
    }

    /** Ids of the blocks whose `after` names block id (a typed CSR built once per result, on first use). */
    function dependentsOf(id) {
      if (!state.dependents) state.dependents = dependentsOfColumns(state.columns);
      var d = state.dependents;
      if (!(id >= 0 && id < state.columns.n)) return [];
      return Array.prototype.slice.call(d.list.subarray(d.at[id], d.at[id + 1]));
    }

    /**
     * Dependency edges [fromId, toId] to draw: the selected block's `after` blocks and the blocks
     * that waited for it, plus every `after` edge inside the followed chain.
     */
    function arrowEdges() {
      var edges = [], seen = new Set();
      function add(from, to) {
        var key = from + ">" + to;
        if (seen.has(key)) return;
        seen.add(key);
        edges.push([from, to]);
      }
      state.highlightedSorted.forEach(function (id) {
        P.afterIds(id).forEach(function (src) { add(src, id); });
      });
      var s = state.selected;
      if (P.isLive(s)) {
        P.afterIds(s.id).forEach(function (src) { add(src, s.id); });
        dependentsOf(s.id).forEach(function (dst) { add(s.id, dst); });
      }
      return edges;
    }

    /**
     * Dependency arrows from the end of the block waited for to the start of the waiter, culled
     * (both ends on one side of the view, or a hidden lane: skipped) and batched (one stroke for
     * every shaft, one fill for every head). Read from the columns: no block objects.
     */
    function drawArrows(scale, widthCss) {
      var edges = arrowEdges(), drawn = 0;
      state.arrowCount = 0;
      if (!edges.length) return;
      state.highlightedSorted.forEach(function (id) { outlineId(scale, id, colours.highlight, 2); });
      var x0View = state.gutterPx, x1View = widthCss, c = state.columns;
      var shafts = new Path2D(), heads = new Path2D();
      for (var i = 0; i < edges.length; i++) {
        var fromId = edges[i][0], toId = edges[i][1];
        var from = idBox(scale, fromId), to = idBox(scale, toId);
        if (!from || !to) continue;
        var xa = scale.xPx(c.end[fromId]), ya = from.y + from.h / 2, xb = to.x0, yb = to.y + to.h / 2;
        if ((xa < x0View && xb < x0View) || (xa > x1View && xb > x1View)) continue;
        shafts.moveTo(xa, ya);
        shafts.lineTo(xb, yb);
        var ang = Math.atan2(yb - ya, xb - xa);
        heads.moveTo(xb, yb);
        heads.lineTo(xb - ARROW_HEAD_PX * Math.cos(ang - 0.45), yb - ARROW_HEAD_PX * Math.sin(ang - 0.45));
        heads.lineTo(xb - ARROW_HEAD_PX * Math.cos(ang + 0.45), yb - ARROW_HEAD_PX * Math.sin(ang + 0.45));
        heads.closePath();
        drawn++;
      }
      ctx.strokeStyle = colours.highlight;
      ctx.fillStyle = colours.highlight;
      ctx.lineWidth = 1.25;
      ctx.stroke(shafts);
      ctx.fill(heads);
      state.arrowCount = drawn;
    }

    /** Box of block id on the canvas (from the columns), or null when its lane is not shown. */
    function idBox(scale, id) {
      var c = state.columns;
      if (!(id >= 0 && id < c.n)) return null;
      var row = state.laneRow[c.lanes[c.lane[id]]];
      if (row === undefined) return null;
      var x0 = scale.xPx(c.start[id]), x1 = Math.max(scale.xPx(c.end[id]), x0 + MIN_BLOCK_WIDTH_PX);
      var rowBox = blockY(row);
      return {x0: x0, x1: x1, y: rowBox.y, h: rowBox.h};
    }
    function outlineId(scale, id, colour, width) {
      var bb = idBox(scale, id);
      if (!bb) return;
      ctx.strokeStyle = colour;
      ctx.lineWidth = width;
      ctx.strokeRect(bb.x0 + 0.5, bb.y + 0.5, Math.max(1, bb.x1 - bb.x0 - 1), bb.h - 1);
    }

    function blockBox(scale, b) { return idBox(scale, b.id); }
    function outlineBlock(scale, b, colour, width) { outlineId(scale, b.id, colour, width); }

    function vline(scale, tStep, colour, heightCss, dash) {
      var x = Math.round(scale.xPx(tStep)) + 0.5;
      if (x < state.gutterPx || x > scale.x1Px) return;
      ctx.strokeStyle = colour;
      ctx.lineWidth = 1;
      ctx.setLineDash(dash || []);
      ctx.beginPath();
      ctx.moveTo(x, 0);
      ctx.lineTo(x, heightCss);
      ctx.stroke();
      ctx.setLineDash([]);
    }

    function drawLines(scale, heightCss) {
      P.drawRangeBand(scale, heightCss);
      if (state.markerA !== null) vline(scale, state.markerA, colours["marker-a"], heightCss, [5, 3]);
      if (state.markerB !== null) vline(scale, state.markerB, colours["marker-b"], heightCss, [5, 3]);
      if (state.cursor !== null) vline(scale, state.cursor, colours.cursor, heightCss);
    }

    /**
     * The ruler: tick labels in its bottom row (the rightmost one right-aligned so it is never
     * clipped), cursor and marker badges in its top row, laid out so no badge covers another.
     */
    function drawRuler(scale, widthCss, tickStep, firstTick) {
      ctx.fillStyle = colours.panel;
      ctx.fillRect(0, 0, widthCss, RULER_HEIGHT_PX);
      ctx.fillStyle = colours.border;
      ctx.fillRect(0, RULER_HEIGHT_PX - 1, widthCss, 1);
      ctx.fillRect(state.gutterPx - 1, 0, 1, RULER_HEIGHT_PX);
      useFont(LANE_FONT_PX + "px " + P.uiFont);
      ctx.textBaseline = "middle";
      ctx.textAlign = "left";
      ctx.fillStyle = colours.muted;
      ctx.fillText("step", GUTTER_PAD_PX, RULER_HEIGHT_PX / 2);
      useFont(LABEL_FONT_PX + "px " + P.uiFont);
      ctx.textBaseline = "middle";
      ctx.fillStyle = colours.fg;
      var labelY = BADGE_ROW_PX + (RULER_HEIGHT_PX - BADGE_ROW_PX) / 2 - 1;
      state.rulerLabels = [];
      for (var t = firstTick; t <= scale.t1Step; t += tickStep) {
        var x = Math.round(scale.xPx(t));
        if (x < state.gutterPx) continue;
        ctx.fillRect(x, RULER_HEIGHT_PX - 5, 1, 4);
        var text = P.stepText(t), w = textWidth(text);
        var left = x + 3 + w <= widthCss ? x + 3 : x - 3 - w;
        if (left < state.gutterPx) continue;
        ctx.textAlign = "left";
        ctx.fillText(text, left, labelY);
        state.rulerLabels.push({text: text, left: left, right: left + w});
      }
      var badges = [];
      if (state.markerA !== null) badges.push([state.markerA, "A " + state.markerA, colours["marker-a"]]);
      if (state.markerB !== null) badges.push([state.markerB, "B " + state.markerB, colours["marker-b"]]);
      if (state.cursor !== null) badges.push([state.cursor, String(state.cursor), colours.cursor]);
      var placed = [];
      state.badges = placed;
      badges.forEach(function (bd) {
        var x = scale.xPx(bd[0]);
        if (x < state.gutterPx || x > widthCss) return;
        var w = textWidth(bd[1]) + 8;
        var left = Math.min(Math.max(x - w / 2, state.gutterPx), widthCss - w);
        // Slide right (else left) past every badge already placed.
        for (var pass = 0; pass < placed.length + 1; pass++) {
          var hit = null;
          placed.forEach(function (p) { if (left < p.right + 2 && p.left < left + w + 2) hit = p; });
          if (!hit) break;
          left = hit.right + 2 + w <= widthCss ? hit.right + 2 : hit.left - 2 - w;
        }
        placed.push({text: bd[1], left: left, right: left + w});
        ctx.fillStyle = bd[2];
        ctx.fillRect(left, 1, w, BADGE_ROW_PX - 1);
        ctx.fillStyle = colours.bg;
        ctx.textAlign = "center";
        ctx.fillText(bd[1], left + w / 2, BADGE_ROW_PX / 2 + 0.5);
      });
      ctx.textAlign = "left";
    }

    function drawGutter(widthCss, heightCss) {
      ctx.fillStyle = colours.panel;
      ctx.fillRect(0, 0, state.gutterPx, heightCss);
      ctx.fillStyle = colours.border;
      ctx.fillRect(state.gutterPx - 1, 0, 1, heightCss);
      useFont(LANE_FONT_PX + "px " + P.uiFont);
      ctx.textBaseline = "middle";
      ctx.textAlign = "left";
      var lastGroup = null;
      for (var row = 0; row < state.lanes.length; row++) {
        var lane = state.lanes[row], top = laneTop(row), sub = P.isSubLane(lane);
        if (top + state.rowHeight[row] <= RULER_HEIGHT_PX || top >= heightCss) { lastGroup = lane.group; continue; }  // scrolled away
        // A foldable group's first row (or its folded row) has a disclosure triangle: a click folds it.
        if (state.rowHead[row]) {
          ctx.fillStyle = colours.muted;
          ctx.fillText(state.rowMembers[row] ? "\u25b8" : "\u25be", GUTTER_PAD_PX / 2, top + state.rowHeight[row] / 2);
        }
        // A sub-row belongs to the lane above it: no separator, a smaller indented muted name.
        if (lastGroup !== null && lane.group !== lastGroup && !sub) {
          ctx.fillStyle = colours.border;
          ctx.fillRect(0, top, widthCss, 1);
        }
        lastGroup = lane.group;
        if (sub) useFont(LABEL_FONT_PX + "px " + P.uiFont);
        ctx.fillStyle = sub || lane.groupRow ? colours.muted : colours.fg;
        ctx.fillText(laneName(lane), GUTTER_PAD_PX + GROUP_TOGGLE_PX + (sub ? SUB_LANE_INDENT_PX : 0), top + state.rowHeight[row] / 2);
        if (sub) useFont(LANE_FONT_PX + "px " + P.uiFont);
      }
    }

    /** The lanes' scroll position as a thin bar at the right edge, when they overflow. */
    function drawScrollbar(widthCss, heightCss, contentCss) {
      if (!(contentCss > heightCss)) return;
      var top = state.rulerTopPx + RULER_HEIGHT_PX, room = heightCss - RULER_HEIGHT_PX, lanesH = contentCss - RULER_HEIGHT_PX;
      var thumbH = Math.max(12, room * room / lanesH), thumbY = RULER_HEIGHT_PX + (room - thumbH) * state.scrollPx / (contentCss - heightCss);
      ctx.globalAlpha = 0.5;
      ctx.fillStyle = colours.muted;
      ctx.fillRect(widthCss - SCROLLBAR_PX - 1, Math.max(top, thumbY), SCROLLBAR_PX, thumbH);
      ctx.globalAlpha = 1;
    }

    /**
     * The overview strip (its own canvas above the timeline): the whole run at one pixel per
     * column of overviewSummary (built once per result and width, never per block per frame),
     * tensor-core busy share rising in the top half, wait share hanging in the bottom half, and
     * the visible window outlined with the rest veiled. Its x axis is the timeline's plot area.
     */
    function drawOverview(widthCss, dpr) {
      var ov = overviewCanvas, octx = overviewCtx;
      if (!ov || !octx) return;
      if (ov.width !== Math.round(widthCss * dpr) || ov.height !== Math.round(OVERVIEW_HEIGHT_PX * dpr)) {
        ov.width = Math.round(widthCss * dpr);
        ov.height = Math.round(OVERVIEW_HEIGHT_PX * dpr);
        ov.style.height = OVERVIEW_HEIGHT_PX + "px";
      }
      octx.setTransform(dpr, 0, 0, dpr, 0, 0);
      var x0 = state.gutterPx + PLOT_PAD_PX, x1 = widthCss - PLOT_PAD_PX, bins = Math.max(1, Math.round(x1 - x0));
      var o = state.overview;
      if (!o || o.result !== state.result || o.bins !== bins) {
        o = state.overview = {result: state.result, bins: bins, x0: x0, x1: x1,
          summary: overviewSummary(state.columns, P.total(), bins, TENSOR_CORE_KINDS)};
      }
      o.x0 = x0; o.x1 = x1;
      octx.fillStyle = colours.bg;
      octx.fillRect(0, 0, widthCss, OVERVIEW_HEIGHT_PX);
      octx.fillStyle = colours.panel;
      octx.fillRect(0, 0, state.gutterPx, OVERVIEW_HEIGHT_PX);
      octx.font = LABEL_FONT_PX + "px " + P.uiFont;
      octx.textBaseline = "middle";
      octx.textAlign = "left";
      octx.fillStyle = colours.muted;
      octx.fillText("overview", GUTTER_PAD_PX, OVERVIEW_HEIGHT_PX / 2);
      var half = OVERVIEW_HEIGHT_PX / 2 - 1, mid = OVERVIEW_HEIGHT_PX / 2, sm = o.summary;
      [[sm.busy, colours["mma-a"], -1], [sm.wait, colours.wait, 1]].forEach(function (spec) {
        var values = spec[0];
        octx.fillStyle = spec[1];
        octx.beginPath();
        for (var i = 0; i < values.length; i++) {
          var hPx = values[i] * half;
          if (hPx <= 0) continue;
          hPx = Math.max(hPx, 1);
          octx.rect(x0 + i, spec[2] < 0 ? mid - hPx : mid, 1, hPx);
        }
        octx.fill();
      });
      // The visible window: the rest veiled, the window outlined (at least 3 px wide).
      var per = (x1 - x0) / P.total();
      var wx0 = Math.max(x0, x0 + state.view.t0Step * per), wx1 = Math.min(x1, x0 + state.view.t1Step * per);
      if (wx1 - wx0 < 3) { var c = (wx0 + wx1) / 2; wx0 = c - 1.5; wx1 = c + 1.5; }
      octx.globalAlpha = OVERVIEW_DIM_ALPHA;
      octx.fillStyle = colours.bg;
      octx.fillRect(x0, 0, Math.max(0, wx0 - x0), OVERVIEW_HEIGHT_PX);
      octx.fillRect(wx1, 0, Math.max(0, x1 - wx1), OVERVIEW_HEIGHT_PX);
      octx.globalAlpha = 1;
      octx.strokeStyle = colours.cursor;
      octx.lineWidth = 1.5;
      octx.strokeRect(wx0 + 0.75, 0.75, Math.max(1, wx1 - wx0 - 1.5), OVERVIEW_HEIGHT_PX - 1.5);
      octx.fillStyle = colours.border;
      octx.fillRect(0, OVERVIEW_HEIGHT_PX - 1, widthCss, 1);
      state.overviewWindow = {x0: wx0, x1: wx1, plotX0: x0, plotX1: x1};
    }

    function updateReadouts() {
      var v = state.view, c = state.cursor;
      var off = c !== null && (c < v.t0Step || c > v.t1Step);
      document.getElementById("cursor-readout").textContent = "cursor " + (c === null ? "\u2013" : P.stepText(c) + (off ? " (off screen)" : ""));
      var a = state.markerA, b = state.markerB;
      // B before A: the distance is still |B - A| (GTKWave and Surfer show the magnitude).
      var delta = a !== null && b !== null ? "|B\u2212A| " + Math.abs(b - a) + " steps" + (b < a ? " (B before A)" : "") : "B\u2212A \u2013";
      document.getElementById("marker-readout").textContent = "A " + (a === null ? "\u2013" : a) + "  B " +
        (b === null ? "\u2013" : b) + "  " + delta;
      document.getElementById("view-readout").textContent = "view " + hashNumber(v.t0Step) + "\u2013" + hashNumber(v.t1Step) +
        " (" + hashNumber(v.t1Step - v.t0Step) + " steps)";
      var lod = document.getElementById("lod-note");
      var sum = state.summarised || [];
      lod.hidden = !sum.length;
      lod.textContent = sum.length ? "Summarised: blocks narrower than a pixel are drawn 1 px wide, one per kind and pixel column (" +
        sum.map(function (s) { return s.label + ": " + s.blocks; }).join(", ") + " blocks); zoom in (w) to see each." : "";
      if (c !== P.lastBarrierStep || state.result !== P.lastBarrierResult) P.renderBarriers();
      P.renderRange();
    }

    P.colours = colours;
    P.readTheme = readTheme;
    P.textWidth = textWidth;
    P.useFont = useFont;
    P.requestDraw = requestDraw;
    P.requestSimulate = requestSimulate;
    P.simulateRequested = function () { return needSimulate; };
    P.flush = flush;
    P.laneName = laneName;
    P.blockY = blockY;
    P.paintOrder = paintOrder;
    P.dependentsOf = dependentsOf;
    P.arrowEdges = arrowEdges;
    P.idBox = idBox;
  }

  return {install: install};
})();
