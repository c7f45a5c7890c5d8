// The analysis manager owns the isl models it caches and frees them when it drops them and at the
// end of a run: the default pipeline run again and again in one process leaves isl's wasm heap
// where the first run left it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { islHeapInUse } from 'isl-wasm';
import { execute, type RunOptions } from '../../cli/run';
import { compileKernelToIr } from '../support/kernels';
import { capturingIo } from '../support/cli-io';
import { tempDir } from '../support/tools';
import { pipelineFlags } from '../analysis/helpers';

const dir = tempDir('tsopt-isl-heap-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test.each(['gemm', '2mm'])('ten runs of the default pipeline on %s leave the isl heap within 5%% of its size after the first', (kernel) => {
  const input = path.join(dir, `${kernel}.bc`);
  fs.writeFileSync(input, compileKernelToIr(kernel, pipelineFlags));
  const heapAfter: number[] = [];
  for (let run = 0; run < 10; run++) {
    const captured = capturingIo();
    const opts: RunOptions = {
      input, output: path.join(dir, `${kernel}.out.ll`), format: 'll', passes: 'versioning', postPipeline: undefined, verifyEach: false,
      report: undefined, passOptions: new Map(), printStats: false, logLevel: 'silent', logFormat: 'text',
    };
    expect({ status: execute(opts, captured.io), stderr: captured.stderr() }).toEqual({ status: 0, stderr: '' });
    heapAfter.push(islHeapInUse());
  }
  // The run versioned something, so it did build isl models.
  expect(fs.readFileSync(path.join(dir, `${kernel}.out.ll`), 'utf8')).toContain('.fast');
  expect(heapAfter.at(-1)!).toBeLessThanOrEqual(heapAfter[0]! * 1.05);
});
