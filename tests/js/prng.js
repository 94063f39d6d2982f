// Seeded randomness shared by the simulator tests (not a test file: node --test runs only
// *.test.js, so this module is loaded with require()).
"use strict";

/** Seeded PRNG (mulberry32) so randomized invariants are reproducible. */
function mulberry32(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Integer in [lo, hi] from a PRNG. */
function randInt(rand, lo, hi) {
  return lo + Math.floor(rand() * (hi - lo + 1));
}

module.exports = { mulberry32, randInt };
