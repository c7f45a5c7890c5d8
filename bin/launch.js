// Shared by the `tsopt` and `tscc` launchers: runs a compiled CLI from dist/cli/, or says in one
// line that the build is missing instead of a module-resolution stack trace.
'use strict';
const path = require('node:path');

module.exports = function launch(name) {
  let cli;
  try {
    cli = require(path.join(__dirname, '..', 'dist', 'cli', `${name}.js`));
  } catch (e) {
    if (e && e.code === 'MODULE_NOT_FOUND' && String(e.message).includes('dist')) {
      process.stderr.write(`${name}: error: ${name} is not built yet (run bin/setup, or npm run build)\n`);
      process.exit(1);
    }
    throw e;
  }
  cli.runFromProcess();
};
