/* Waveform page: named constants (pixel sizes, zoom and pan steps, hash limits, timers, fill keys).
 * Pure and DOM-free: a global KVWaveConst in the page, module.exports in Node. ASCII only.
 */
var KVWaveConst = (function () {
  "use strict";

  // ---- (1) Named constants -------------------------------------------------------------------
  var RULER_HEIGHT_PX = 34;          // time ruler at the top of the canvas: badge row above, tick labels below
  var BADGE_ROW_PX = 15;             // cursor and marker badges live in the ruler's top row, never over tick labels
  var ARROW_HEAD_PX = 6;             // dependency arrow heads
  var CRITICAL_HALO_PX = 4;          // the critical path outline: a bg-coloured halo this wide under ...
  var CRITICAL_STROKE_PX = 2;        // ... a --focus stroke this wide (shows on every fill)
  var SNAP_PX = 6;                   // markers snap to a block edge this close to the cursor
  var MIN_UTIL_DECIMALS = 1;         // utilization is shown with one decimal
  var SMALL_WINDOW_HEIGHT_PX = 800;  // below this window height the header facts start folded
  var NO_INT = -2147483648;          // result columns' tile / k / stage value for null
  var KEY_DIM = 1, KEY_SLIVER = 2;   // drawBlocks' key numbers: fill code * 4 + these variant bits
  var WORKER_MIN_BLOCKS = 50000;     // settings estimated at this many blocks or more simulate in a Web Worker
  var BLOCK_CACHE_MAX = 4096;        // block objects the page keeps built (selected, hovered, labelled, linked)
  var EVENTS_DELAY_MS = 50;          // a background result's barrier events are asked for once it has been shown this long
  var PROGRESS_TICK_MS = 200;        // the background simulation's progress line is refreshed this often
  var PROGRESS_SHOW_MS = 250;        // ... and shown only once a run has taken this long (no flicker, no relayout, for quick runs)
  var APPLY_SPLIT_MS = 30;           // a Worker result whose hand-off took longer is drawn at the next frame, not in the same task
  var LANE_HEIGHT_PX = 24;           // one lane (producer, stage s, consumer WG c)
  var BLOCK_INSET_PX = 3;            // vertical gap between a block and its lane's edges
  var SUB_LANE_HEIGHT_PX = 18;       // a sub-row under its lane (attention: WG c's softmax)
  var SUB_BLOCK_INSET_PX = 2;
  var SUB_LANE_INDENT_PX = 10;       // sub-row names are indented under their lane's name
  var GUTTER_MIN_WIDTH_PX = 96;      // lane names at the left; widened to the longest name
  var GUTTER_PAD_PX = 8;             // space left and right of a lane name
  var GROUP_TOGGLE_PX = 12;          // the lane group's disclosure triangle, left of the names (a click there folds the group)
  var TIMELINE_MIN_HEIGHT_PX = 160;  // the lanes' canvas is never capped below this height ...
  var TIMELINE_VIEWPORT_MARGIN_PX = 64; // ... else at the window's height less this (the overview strip and a margin): more lanes scroll inside it
  var SCROLLBAR_PX = 4;              // the lanes' scroll indicator at the canvas's right edge
  var OVERVIEW_HEIGHT_PX = 28;       // the overview strip of the whole run, above the ruler
  var OVERVIEW_DIM_ALPHA = 0.55;     // the strip outside the visible window is veiled this much
  var PLOT_PAD_PX = 6;               // keeps blocks at the view's ends off the gutter and the edge
  var LABEL_MIN_WIDTH_PX = 14;       // narrower blocks get no label at all
  var LABEL_PAD_PX = 2;              // horizontal padding inside a labelled block
  var SEPARATE_MIN_WIDTH_PX = 3;     // blocks at least this wide keep a 1px gap after them
  var MIN_BLOCK_WIDTH_PX = 1;        // sub-pixel blocks are widened to this (and thinned by coverage)
  var TICK_MIN_SPACING_PX = 72;      // ruler ticks at least this far apart
  var ZOOM_STEP = 1.5;               // one +/- press or button click
  var WHEEL_ZOOM_PER_PX = 0.0025;    // ctrl+wheel: zoom factor exp(deltaY * this)
  var WHEEL_LINE_PX = 16;            // deltaMode 1 (lines) -> pixels
  var PAN_FRACTION = 0.1;            // arrow key pan, as a fraction of the visible span
  var PAN_FRACTION_BIG = 0.5;        // shift+arrow
  var MIN_SPAN_STEPS = 2;            // deepest zoom
  var MAX_SPAN_FACTOR = 4;           // widest zoom, relative to the whole schedule
  var MAX_HASH_NUMBER = 1e9;         // larger view/cursor numbers in the hash are refused
  var MAX_HASH_LENGTH = 4000;        // longer hashes are refused as a whole (never hang on them)
  var HASH_WRITE_DELAY_MS = 150;     // debounce history.replaceState while dragging a slider
  var DRAG_THRESHOLD_PX = 3;         // a press that moves less than this is a click
  var HIT_SLOP_PX = 3;               // hovering this close to a thin block still hits it
  var DIM_ALPHA = 0.22;              // blocks outside a followed chain
  var LABEL_FONT_PX = 11;
  var LANE_FONT_PX = 12;
  var VIEW_DECIMALS = 1000;          // view numbers in the hash keep 3 decimals
  // Knob widgets (short labels, slider ends, source lines) come from KernelSchedule.knobsFor.
  // A numeric knob with at most this many values (consumer WGs: 1 or 2) is a select, not a slider.
  var SELECT_MAX_VALUES = 2;
  var EXPORT_FAILED = "Export failed";  // the notice line of a failed download starts with this
  // Wait blocks are hatched: the wait colour crossed by the lines x + y = n * WAIT_HATCH_TILE_PX
  // (CSS px from the canvas origin), WAIT_HATCH_LINE_PX wide. The canvas repeats a tile holding
  // the pieces of x + y = 0, 8, 16 that cross it ([x0, y0, x1, y1], readTheme's pattern); the
  // SVG / PNG export draws the same lines as bands clipped to each block (hatchBands).
  var WAIT_HATCH_TILE_PX = 8, WAIT_HATCH_LINE_PX = 2;
  var WAIT_HATCH_STROKES = [[-2, 2, 2, -2], [0, 8, 8, 0], [6, 10, 10, 6]];
  // SVG / PNG legend: rows as tall as this, swatches this wide (and this far apart), items this far apart.
  var LEGEND_ROW_PX = 18, LEGEND_SWATCH_PX = 16, LEGEND_SWATCH_GAP_PX = 2, LEGEND_ITEM_GAP_PX = 14;
  var RANGE_BAND_ALPHA = 0.08;       // the band between markers A and B (the statistics' range)
  var GHOST_ALPHA = 0.16;            // the pinned run drawn under the live blocks
  var SEARCH_THIN_PX = 2;            // a search match narrower than SEPARATE_MIN_WIDTH_PX: a mark this wide

  // Fill keys in drawing order; each maps to a theme variable (wait is a hatched pattern).
  var FILL_KEYS = ["issue", "transpose", "filling", "full", "mma-a", "mma-b", "gemm0", "softmax", "gemm1", "epilogue", "wait"];

  return {RULER_HEIGHT_PX: RULER_HEIGHT_PX, BADGE_ROW_PX: BADGE_ROW_PX, ARROW_HEAD_PX: ARROW_HEAD_PX, CRITICAL_HALO_PX: CRITICAL_HALO_PX, CRITICAL_STROKE_PX: CRITICAL_STROKE_PX, SNAP_PX: SNAP_PX, MIN_UTIL_DECIMALS: MIN_UTIL_DECIMALS, SMALL_WINDOW_HEIGHT_PX: SMALL_WINDOW_HEIGHT_PX, NO_INT: NO_INT, KEY_DIM: KEY_DIM, KEY_SLIVER: KEY_SLIVER, WORKER_MIN_BLOCKS: WORKER_MIN_BLOCKS, BLOCK_CACHE_MAX: BLOCK_CACHE_MAX, EVENTS_DELAY_MS: EVENTS_DELAY_MS, PROGRESS_TICK_MS: PROGRESS_TICK_MS, PROGRESS_SHOW_MS: PROGRESS_SHOW_MS, APPLY_SPLIT_MS: APPLY_SPLIT_MS, LANE_HEIGHT_PX: LANE_HEIGHT_PX, BLOCK_INSET_PX: BLOCK_INSET_PX, SUB_LANE_HEIGHT_PX: SUB_LANE_HEIGHT_PX, SUB_BLOCK_INSET_PX: SUB_BLOCK_INSET_PX, SUB_LANE_INDENT_PX: SUB_LANE_INDENT_PX, GUTTER_MIN_WIDTH_PX: GUTTER_MIN_WIDTH_PX, GUTTER_PAD_PX: GUTTER_PAD_PX, GROUP_TOGGLE_PX: GROUP_TOGGLE_PX, TIMELINE_MIN_HEIGHT_PX: TIMELINE_MIN_HEIGHT_PX, TIMELINE_VIEWPORT_MARGIN_PX: TIMELINE_VIEWPORT_MARGIN_PX, SCROLLBAR_PX: SCROLLBAR_PX, OVERVIEW_HEIGHT_PX: OVERVIEW_HEIGHT_PX, OVERVIEW_DIM_ALPHA: OVERVIEW_DIM_ALPHA, PLOT_PAD_PX: PLOT_PAD_PX, LABEL_MIN_WIDTH_PX: LABEL_MIN_WIDTH_PX, LABEL_PAD_PX: LABEL_PAD_PX, SEPARATE_MIN_WIDTH_PX: SEPARATE_MIN_WIDTH_PX, MIN_BLOCK_WIDTH_PX: MIN_BLOCK_WIDTH_PX, TICK_MIN_SPACING_PX: TICK_MIN_SPACING_PX, ZOOM_STEP: ZOOM_STEP, WHEEL_ZOOM_PER_PX: WHEEL_ZOOM_PER_PX, WHEEL_LINE_PX: WHEEL_LINE_PX, PAN_FRACTION: PAN_FRACTION, PAN_FRACTION_BIG: PAN_FRACTION_BIG, MIN_SPAN_STEPS: MIN_SPAN_STEPS, MAX_SPAN_FACTOR: MAX_SPAN_FACTOR, MAX_HASH_NUMBER: MAX_HASH_NUMBER, MAX_HASH_LENGTH: MAX_HASH_LENGTH, HASH_WRITE_DELAY_MS: HASH_WRITE_DELAY_MS, DRAG_THRESHOLD_PX: DRAG_THRESHOLD_PX, HIT_SLOP_PX: HIT_SLOP_PX, DIM_ALPHA: DIM_ALPHA, LABEL_FONT_PX: LABEL_FONT_PX, LANE_FONT_PX: LANE_FONT_PX, VIEW_DECIMALS: VIEW_DECIMALS, SELECT_MAX_VALUES: SELECT_MAX_VALUES, EXPORT_FAILED: EXPORT_FAILED, WAIT_HATCH_TILE_PX: WAIT_HATCH_TILE_PX, WAIT_HATCH_LINE_PX: WAIT_HATCH_LINE_PX, WAIT_HATCH_STROKES: WAIT_HATCH_STROKES, LEGEND_ROW_PX: LEGEND_ROW_PX, LEGEND_SWATCH_PX: LEGEND_SWATCH_PX, LEGEND_SWATCH_GAP_PX: LEGEND_SWATCH_GAP_PX, LEGEND_ITEM_GAP_PX: LEGEND_ITEM_GAP_PX, RANGE_BAND_ALPHA: RANGE_BAND_ALPHA, GHOST_ALPHA: GHOST_ALPHA, SEARCH_THIN_PX: SEARCH_THIN_PX, FILL_KEYS: FILL_KEYS};
})();
if (typeof module !== "undefined" && module.exports) module.exports = KVWaveConst;
