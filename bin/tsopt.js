#!/usr/bin/env node
// The `tsopt` command: runs the compiled CLI (npm run build puts it in dist/).
'use strict';
require('./launch')('tsopt');
