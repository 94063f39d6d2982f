// The waveform page's export helpers that need no DOM (assets/waveform.js): the SVG / PNG
// legend's row layout. The browser tests (tests/test_browser_exports.py) check the drawn file.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const W = require(path.join(__dirname, "..", "..", "assets", "waveform.js"));

test("legendLayout wraps items onto new rows at the right edge, never past it when an item fits", () => {
  const gap = 14;  // LEGEND_ITEM_GAP_PX
  const { at, rows } = W.legendLayout([100, 100, 100, 900, 50], 8, 300);
  assert.equal(rows, 4);
  assert.deepEqual(at, [{ x: 8, row: 0 }, { x: 8 + 100 + gap, row: 0 }, { x: 8, row: 1 }, { x: 8, row: 2 }, { x: 8, row: 3 }]);
  // Every item that fits a row ends at or before the right edge.
  const widths = [60, 130, 45, 200, 90, 90, 90, 10];
  const layout = W.legendLayout(widths, 8, 292);
  layout.at.forEach((p, i) => assert.ok(p.x + widths[i] <= 292, JSON.stringify([p, widths[i]])));
  // Rows are filled in order: an item starts a new row only when it would not fit on the last.
  layout.at.forEach((p, i) => {
    if (i && p.row > layout.at[i - 1].row) assert.ok(layout.at[i - 1].x + widths[i - 1] + gap + widths[i] > 292);
  });
  assert.deepEqual(W.legendLayout([], 8, 300), { at: [], rows: 0 });
});

test("hatchBands: the bands of x + y = 8n, 2 px wide, clipped to the block exactly", () => {
  const [x, y, w, h] = [13.5, 40, 37, 18];
  const polys = W.hatchBands(x, y, w, h).split("z").filter(Boolean).map((d) =>
    d.slice(1).split("L").map((p) => p.split(" ").map(Number)));
  // Lines x + y = 8n for 8n from x + y - 1.41 to x + w + y + h + 1.41: n = 7 .. 13.
  assert.equal(polys.length, 7);
  polys.forEach((poly, i) => {
    poly.forEach(([px, py]) => assert.ok(px >= x - 0.05 && px <= x + w + 0.05 && py >= y - 0.05 && py <= y + h + 0.05, JSON.stringify(poly)));
    const sums = poly.map(([px, py]) => px + py);
    const c = (Math.min(...sums) + Math.max(...sums)) / 2;
    assert.ok(Math.abs(Math.max(...sums) - Math.min(...sums) - 2 * Math.SQRT2) < 0.2 || i === 0 || i === polys.length - 1, JSON.stringify(sums));
    assert.ok(Math.abs(Math.round(c / 8) * 8 - c) < 1.5, c);
  });
  assert.equal(W.hatchBands(0, 0, 0, 10), "");
});
