// tscc's short way for a module in which no function can loop: SCoP detection admits only
// regions holding a loop, so tsopt would leave such a module as it is and only run the post
// pipeline on it. tscc then runs that pipeline with opt-14 itself instead of starting tsopt (a
// second Node process, its modules, isl-wasm, and four LLVM tool runs): the object is the same,
// at a fraction of the CPU (issue 16).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mayHaveLoops } from '../ir/cycle-scan';
import { optTargetArgs } from '../ir/opt-target';
import { POST_PIPELINE } from './post-pipeline';

/** The opt-14 pipeline tsopt would run for these tsopt arguments (`postPipelineArgs`), or undefined for --no-post. */
export function postPipelineOf(postArgs: readonly string[]): string | undefined {
  if (postArgs.includes('--no-post')) return undefined;
  const given = postArgs.find((a) => a.startsWith('--post-pipeline='));
  return given === undefined ? POST_PIPELINE : given.slice('--post-pipeline='.length);
}

/** Whether the IR text file the front end wrote has nothing for tsopt's passes (no function can loop). */
export function isLoopFree(irTextFile: string): boolean {
  return !mayHaveLoops(fs.readFileSync(irTextFile, 'utf8'));
}

/**
 * What tsopt would write for a loop-free module: `input` (IR text) through the post pipeline
 * into `output` (bitcode), or `input` itself with no post pipeline. Returns the file for the back
 * end, or throws with opt's first error line.
 */
export function postPipelineOnly(input: string, output: string, pipeline: string | undefined): string {
  if (pipeline === undefined) return input;
  const r = spawnSync('opt-14', [...optTargetArgs(fs.readFileSync(input, 'utf8')), `-passes=${pipeline}`, input, '-o', output], { encoding: 'utf8' });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    const first = (r.stderr ?? '').trim().split('\n')[0] ?? '';
    throw new Error(`opt-14 post pipeline failed: ${first || `exit ${r.status ?? r.signal}`}`);
  }
  return output;
}
