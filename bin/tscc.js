#!/usr/bin/env node
// The `tscc` command: runs the compiled compiler driver (npm run build puts it in dist/).
'use strict';
const path = require('node:path');
let cli;
try {
  cli = require(path.join(__dirname, '..', 'dist', 'cli', 'tscc.js'));
} catch (e) {
  if (e && e.code === 'MODULE_NOT_FOUND' && String(e.message).includes('dist')) {
    process.stderr.write('tscc: error: tscc is not built yet (run bin/setup, or npm run build)\n');
    process.exit(1);
  }
  throw e;
}
cli.runFromProcess();
