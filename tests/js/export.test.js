// Discovery shim: `node --test tests/js/` only runs files named like *.test.js, so the suite in
// test_export.js (the name the project uses) is loaded from here.
"use strict";

require("./test_export.js");
