// bench/compile-time-categories.ts on a real build through tscc and its compile server, run as
// bench/compile-time.ts runs one (each compiler run under `/usr/bin/time -a`, the steps marked):
// a configure step with a test compile that works, one that does not and a preprocessing run, then
// a make step with a loop-free source, our jacobi-1d in its VLA build (tsopt keeps nothing:
// unchanged), jacobi-2d (changed) and a link. Every command lands in its category, and the
// server's CPU is charged to the sources it served.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { categoriesOf, kindOfStages, markedSteps } from '../../bench/compile-time-categories';
import { stopServer } from '../../cli/tsopt-client';
import { findKernel } from '../support/kernels';
import { kernelsDir, repoRoot, tempDir } from '../support/tools';
import { tsccOnPath } from '../tscc/support';

const work = tempDir('ct-categories-');
const serverDir = path.join(work, 'server');
afterAll(() => {
  stopServer({ TSCC_SERVER_DIR: serverDir });
  fs.rmSync(work, { recursive: true, force: true });
});

const LOOP_FREE = '#include <stdio.h>\nint main(int argc, char **argv) { printf("%d %s\\n", argc, argc > 1 ? argv[1] : "-"); return argc > 3; }\n';

test('each command of a configure-and-make build in its category, the server charged to what it served', () => {
  fs.writeFileSync(path.join(work, 'free.c'), LOOP_FREE);
  fs.writeFileSync(path.join(work, 'bad.c'), 'int f(void) { return undeclared; }\n');
  const log = path.join(work, 'time.log');
  const stages = path.join(work, 'stages.jsonl');
  const requests = path.join(work, 'requests.jsonl');
  const cc = path.join(work, 'cc');
  fs.writeFileSync(cc, `#!/bin/sh\nexec /usr/bin/time -a -o '${log}' -f '%U %S|%C' '${path.join(repoRoot, 'bin', 'tscc.js')}' "$@"\n`, { mode: 0o755 });
  const flags = `-O3 -march=native -DTSOPT_VLA -I${kernelsDir}`;
  const steps = markedSteps([
    `CC='${cc}' ./configure`,
    `make -j1 CC='${cc}'`,
  ], log);
  fs.writeFileSync(path.join(work, 'configure'), `#!/bin/sh\n$CC -O2 -c free.c -o probe.o && ! $CC -O2 -c bad.c -o bad.o 2>/dev/null && $CC -E free.c > /dev/null\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(work, 'Makefile'), [
    'all: free jacobi-1d.o jacobi-2d.o',
    'free: free.o\n\t$(CC) free.o -o free',
    'free.o: free.c\n\t$(CC) -O3 -c free.c -o free.o',
    `jacobi-1d.o: ${findKernel('jacobi-1d').path}\n\t$(CC) ${flags} -c $< -o $@`,
    `jacobi-2d.o: ${findKernel('jacobi-2d').path}\n\t$(CC) ${flags} -c $< -o $@`,
    '',
  ].join('\n'));
  const { env } = tsccOnPath({
    TSCC_STRICT: '1', TSCC_SERVER: '1', TSCC_SERVER_DIR: serverDir, TSOPT_SERVER_IDLE_SECONDS: '60',
    TSOPT_SERVER_REQUEST_LOG: requests, TSCC_TIME_STAGES: stages,
  });
  const r = spawnSync('sh', ['-c', steps.join(' && ')], { cwd: work, env, encoding: 'utf8' });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });

  const categories = categoriesOf(log, stages, requests);
  expect(Object.fromEntries([...categories].map(([k, c]) => [k, c.count]))).toEqual({
    'configure/loop-free': 1,
    'configure/front end failed': 1,
    'configure/clang': 1,
    'make/loop-free': 1,
    'make/link/other': 1,
    'make/unchanged': 1,
    'make/changed': 1,
  });
  // The server served the two sources with loops, each of its requests charged once.
  const served = JSON.parse(`[${fs.readFileSync(requests, 'utf8').trim().split('\n').join(',')}]`) as { cpuMs: number }[];
  expect(served).toHaveLength(2);
  const charged = [...categories.values()].reduce((t, c) => t + c.serverS, 0);
  expect(charged).toBeCloseTo(served.reduce((t, q) => t + q.cpuMs / 1000, 0), 6);
  expect(categories.get('make/changed')!.serverS).toBe(served[1]!.cpuMs / 1000);
  for (const k of ['configure/loop-free', 'make/loop-free', 'make/link/other']) expect(categories.get(k)!.serverS).toBe(0);

  // The same log read as clang's (no stages): a compile category per step.
  const asClang = categoriesOf(log);
  expect([...asClang.keys()].sort()).toEqual(['configure/compile', 'make/compile', 'make/link/other']);
  expect(asClang.get('make/compile')!.count).toBe(3);
}, 300_000);

test('kindOfStages', () => {
  expect(kindOfStages(['tscc start (node)', 'front end (clang-14)', 'loop scan', 'loop-free: clang-14 -O3'])).toBe('loop-free');
  expect(kindOfStages(['front end (clang-14)', 'loop scan', 'tsopt on the server (client side)', 'unchanged: clang-14 -O3'])).toBe('unchanged');
  expect(kindOfStages(['front end (clang-14)', 'loop scan', 'tsopt', 'back end (clang-14)'])).toBe('changed');
  expect(kindOfStages(['tscc start (node)', 'front end (clang-14)'])).toBe('front end failed');
});
