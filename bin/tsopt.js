#!/usr/bin/env node
// The `tsopt` command: runs the compiled CLI (npm run build puts it in dist/).
'use strict';
const path = require('node:path');
let cli;
try {
  cli = require(path.join(__dirname, '..', 'dist', 'cli', 'tsopt.js'));
} catch (e) {
  if (e && e.code === 'MODULE_NOT_FOUND' && String(e.message).includes('dist')) {
    process.stderr.write('tsopt: error: tsopt is not built yet (run bin/setup, or npm run build)\n');
    process.exit(1);
  }
  throw e;
}
cli.runFromProcess();
