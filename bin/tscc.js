#!/usr/bin/env node
// The `tscc` command: runs the compiled compiler driver (npm run build puts it in dist/).
'use strict';
require('./launch')('tscc');
