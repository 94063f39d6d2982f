// Discovery shim: `node --test tests/js/` only runs files named like *.test.js, test-*.js or
// *_test.js, so the attention suite in test_attention.js is loaded from here.
"use strict";

require("./test_attention.js");
