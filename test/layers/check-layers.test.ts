// bin/check-layers: the source folders import one another in pipeline order only
// (ir, isl-wasm -> analysis -> polyhedral -> transform -> codegen -> passes -> cli -> bench).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { run, tempDir } from '../support/tools';

const repoRoot = path.resolve(__dirname, '..', '..');
const checkLayers = path.join(repoRoot, 'bin', 'check-layers');

function write(root: string, file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
}

test('the repository has no import pointing up the stack and no cycle between folders', () => {
  const result = run('node', [checkLayers, repoRoot]);
  expect(result.stdout.toString()).toBe('0 upward imports, 0 folder cycles\n');
  expect(result.status).toBe(0);
});

test('an import up the stack and a cycle between folders are each reported and fail the check', () => {
  const root = tempDir('check-layers-');
  write(root, 'ir/gateway.ts', "import { TsoptError } from '../cli/errors';\nexport const x = TsoptError;\n");
  write(root, 'cli/errors.ts', "import type { Module } from '../ir';\nexport class TsoptError extends Error {}\n");
  write(root, 'ir/index.ts', "export type Module = object;\n");
  // Downward imports, a type-only import and the isl-wasm package are all allowed.
  write(root, 'polyhedral/model.ts', "import type { Ctx } from 'isl-wasm';\nimport { x } from '../ir/gateway';\nexport { x };\n");
  write(root, 'analysis/scev.ts', "import type { ScopModel } from\n  '../polyhedral/model';\n");
  const result = run('node', [checkLayers, root]);
  expect(result.stdout.toString().split('\n')).toEqual([
    "upward: ir/gateway.ts:1: ir imports cli ('../cli/errors')",
    "upward: analysis/scev.ts:2: analysis imports polyhedral ('../polyhedral/model')",
    'cycle: cli <-> ir',
    '2 upward imports, 1 folder cycles',
    '',
  ]);
  expect(result.status).toBe(1);
});
