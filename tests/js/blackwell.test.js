// Discovery shim (see schedule.test.js).
"use strict";

require("./test_blackwell.js");
