/* Waveform page part: the SVG and PNG of the current view (what is on screen, with ruler and legend).
 * install(P) adds its functions to the page context P (assets/waveform.js). ASCII only.
 */
var KVWaveSvg = (function () {
  "use strict";
  var DIM_ALPHA = KVWaveConst.DIM_ALPHA, FILL_KEYS = KVWaveConst.FILL_KEYS,
      GROUP_TOGGLE_PX = KVWaveConst.GROUP_TOGGLE_PX, GUTTER_PAD_PX = KVWaveConst.GUTTER_PAD_PX,
      LABEL_FONT_PX = KVWaveConst.LABEL_FONT_PX, LABEL_PAD_PX = KVWaveConst.LABEL_PAD_PX,
      LANE_FONT_PX = KVWaveConst.LANE_FONT_PX, LEGEND_ROW_PX = KVWaveConst.LEGEND_ROW_PX,
      LEGEND_SWATCH_GAP_PX = KVWaveConst.LEGEND_SWATCH_GAP_PX,
      LEGEND_SWATCH_PX = KVWaveConst.LEGEND_SWATCH_PX, RULER_HEIGHT_PX = KVWaveConst.RULER_HEIGHT_PX,
      labelCandidates = KVWaveKinds.labelCandidates, viewHolder = KVWaveKinds.viewHolder,
      hatchBands = KVWaveStats.hatchBands, legendLayout = KVWaveStats.legendLayout;

  /** Install this part of the page on the page context P. */
  function install(P) {
    var canvas = P.canvas, state = P.state;
    // -- SVG and PNG of the current view (what is on screen, at its zoom, with ruler and legend)
    function xmlText(s) { return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"); }
    /** Kind names of the blocks on the lanes drawn (hidden and filtered-out lanes left out). */
    function visibleKinds() {
      var c = state.columns, codes = new Uint8Array(c.kinds.length), out = {};
      // Folded groups' rows draw their lanes' blocks, so those kinds are listed too.
      state.laneIndex.forEach(function (index, row) {
        (state.rowMemberIndexes[row] || [index]).forEach(function (ix) { for (var id = ix.lo; id < ix.hi; id++) codes[c.kind[id]] = 1; });
      });
      c.kinds.forEach(function (kind, i) { if (codes[i]) out[kind] = true; });
      return out;
    }
    /**
     * The SVG legend: the view's entries for kinds with blocks on the lanes drawn (not those only
     * on hidden lanes), then the view's note, wrapped onto as many rows as the width needs (each
     * row LEGEND_ROW_PX). Returns {height, svg: [element texts]} for a legend whose top is y0;
     * swatch(fillKey, x, y, w, h) gives a swatch's SVG.
     */
    function svgLegend(w, y0, swatch) {
      var kinds = visibleKinds();
      var plain = function (parts) { return parts.map(function (p) { return Array.isArray(p) ? p[0] : p; }).join(""); };
      var items = (viewHolder.current && viewHolder.current.legend ? viewHolder.current.legend : []).filter(function (entry) { return kinds[entry.kind]; })
        .map(function (entry) { return {fills: entry.fills, text: plain(entry.text), muted: false}; });
      if (viewHolder.current && viewHolder.current.note) items.push({fills: [], text: plain(viewHolder.current.note), muted: true});
      var swatchW = LEGEND_SWATCH_PX + LEGEND_SWATCH_GAP_PX;
      var layout = legendLayout(items.map(function (it) { return it.fills.length * swatchW + P.textWidth(it.text); }), GUTTER_PAD_PX, w - GUTTER_PAD_PX);
      var out = [];
      items.forEach(function (it, i) {
        var x = layout.at[i].x, mid = y0 + layout.at[i].row * LEGEND_ROW_PX + LEGEND_ROW_PX / 2;
        it.fills.forEach(function (key) {
          out.push(swatch(key, x, mid - 5, LEGEND_SWATCH_PX, 10));
          x += swatchW;
        });
        out.push('<text x="' + x.toFixed(1) + '" y="' + mid + '" fill="' + (it.muted ? P.colours.muted : P.colours.fg) + '" dominant-baseline="middle">' + xmlText(it.text) + "</text>");
      });
      return {height: layout.rows * LEGEND_ROW_PX + (layout.rows ? 4 : 0), svg: out};
    }
    /**
     * The current view as SVG text: the rectangles and labels the last frame drew (wait blocks
     * hatched as on the canvas), lane names, ruler, cursor and marker lines, legend (svgLegend).
     */
    function viewSvg() {
      P.flush();
      var scale = state.scale, w = Math.round(canvas.clientWidth || 800), rowsH = state.rowsBottom;
      P.useFont(LABEL_FONT_PX + "px " + P.uiFont);
      // A swatch: a rectangle of the fill, hatched for waits as the blocks are.
      var swatch = function (key, x, y, sw, sh) {
        return '<rect x="' + x + '" y="' + y + '" width="' + sw + '" height="' + sh + '" fill="' + P.colours[key] + '" data-kind="' + key + '"/>' +
          (key === "wait" ? '<path fill="' + P.colours["kind-wait-hatch"] + '" data-kind="wait-hatch" d="' + hatchBands(x, y, sw, sh) + '"/>' : "");
      };
      var legend = svgLegend(w, rowsH + 2, swatch);
      var h = rowsH + 2 + legend.height;
      var out = ['<svg xmlns="http://www.w3.org/2000/svg" width="' + w + '" height="' + h + '" viewBox="0 0 ' + w + " " + h +
        '" font-family="' + xmlText(P.uiFont) + '" font-size="' + LABEL_FONT_PX + '">'];
      out.push('<rect width="' + w + '" height="' + h + '" fill="' + P.colours.bg + '"/>');
      var rects = state.lastRects || {}, labels = state.lastLabels || {};
      P.paintOrder(rects).forEach(function (key) {
        var list = rects[key], base = key.replace(/[\^~]/g, ""), dimmed = key.indexOf("~") >= 0;
        var d = [], hatch = [], opacity = dimmed ? ' fill-opacity="' + DIM_ALPHA + '"' : "";
        for (var r = 0; r < list.length; r += 4) {
          d.push("M" + list[r].toFixed(1) + " " + list[r + 1] + "h" + list[r + 2].toFixed(1) + "v" + list[r + 3] + "h" + (-list[r + 2]).toFixed(1) + "z");
          if (base === "wait") hatch.push(hatchBands(list[r], list[r + 1], list[r + 2], list[r + 3]));
        }
        out.push('<path fill="' + P.colours[base] + '"' + opacity + ' data-kind="' + base + '" d="' + d.join("") + '"/>');
        // Wait blocks: the canvas pattern's hatching, drawn over the fill (hatchBands).
        if (hatch.length) out.push('<path fill="' + P.colours["kind-wait-hatch"] + '"' + opacity + ' data-kind="wait-hatch" d="' + hatch.join("") + '"/>');
      });
      FILL_KEYS.forEach(function (key) {
        var group = labels[key];
        if (!group) return;
        for (var j = 0; j < group.length; j += 5) {
          var room = group[j + 2] - group[j + 1] - 2 * LABEL_PAD_PX, cands = labelCandidates(group[j]), text = null;
          for (var c = 0; c < cands.length; c++) if (P.textWidth(cands[c]) <= room) { text = cands[c]; break; }
          if (text !== null) out.push('<text x="' + ((group[j + 1] + group[j + 2]) / 2).toFixed(1) + '" y="' + group[j + 3] + '" fill="' + P.colours[key + "-fg"] +
            '" text-anchor="middle" dominant-baseline="middle">' + xmlText(text) + "</text>");
        }
      });
      [[state.markerA, P.colours["marker-a"]], [state.markerB, P.colours["marker-b"]], [state.cursor, P.colours.cursor]].forEach(function (m) {
        if (m[0] === null || !scale) return;
        var x = scale.xPx(m[0]);
        if (x >= state.gutterPx && x <= w) out.push('<line x1="' + x.toFixed(1) + '" x2="' + x.toFixed(1) + '" y1="0" y2="' + rowsH + '" stroke="' + m[1] + '"/>');
      });
      out.push('<rect width="' + w + '" height="' + RULER_HEIGHT_PX + '" fill="' + P.colours.panel + '"/>');
      (state.rulerLabels || []).forEach(function (l) {
        out.push('<text x="' + l.left.toFixed(1) + '" y="' + (RULER_HEIGHT_PX - 9) + '" fill="' + P.colours.fg + '" dominant-baseline="middle">' + xmlText(l.text) + "</text>");
      });
      out.push('<rect width="' + state.gutterPx + '" height="' + rowsH + '" fill="' + P.colours.panel + '"/>');
      state.lanes.forEach(function (lane, row) {
        out.push('<text x="' + (GUTTER_PAD_PX + GROUP_TOGGLE_PX) + '" y="' + (state.rowTop[row] + state.rowHeight[row] / 2) + '" fill="' + P.colours.fg +
          '" font-size="' + LANE_FONT_PX + '" dominant-baseline="middle">' + xmlText(P.laneName(lane)) + "</text>");
      });
      out.push('<g class="kv-svg-legend">');
      out.push.apply(out, legend.svg);
      out.push("</g>");
      out.push("</svg>");
      return out.join("\n");
    }
    /**
     * The current view as PNG (the SVG drawn on a canvas at the device pixel ratio): callback(blob),
     * or fail(error) when the SVG cannot be drawn or the canvas gives no PNG (too large a canvas).
     */
    function viewPng(callback, fail) {
      var svg = viewSvg(), dpr = window.devicePixelRatio || 1;
      // A data: URL (not a Blob URL): the image is decoded from the page's own text, no request.
      var img = new Image(), url = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
      img.onload = function () {
        try {
          var c = document.createElement("canvas");
          c.width = Math.round(img.width * dpr);
          c.height = Math.round(img.height * dpr);
          var cx = c.getContext("2d");
          cx.scale(dpr, dpr);
          cx.drawImage(img, 0, 0);
          c.toBlob(function (blob) {
            if (blob) callback(blob);
            else fail(new Error("the browser made no PNG of a " + c.width + " x " + c.height + " px canvas"));
          }, "image/png");
        } catch (e) {
          fail(e);
        }
      };
      img.onerror = function () { fail(new Error("the view's SVG could not be drawn as an image")); };
      img.src = url;
    }

    P.viewSvg = viewSvg;
    P.viewPng = viewPng;
  }

  return {install: install};
})();
