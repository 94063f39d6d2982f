// Discovery shim: `node --test tests/js/` only runs files named like *.test.js, test-*.js or
// *_test.js, so the suite in test_schedule.js (the name the project uses) is loaded from here.
"use strict";

require("./test_schedule.js");
