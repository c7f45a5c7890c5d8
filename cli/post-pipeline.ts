// The hand-back to LLVM: the part of `opt-14 -O3` that follows the point where a polyhedral
// optimizer runs late, so that our output gets LLVM's loop and SLP vectorizers and their clean-ups.
//
// How it was derived (LLVM 14.0.6, `opt-14 -O3 -print-pipeline-passes`, and the same with
// `-polly`): -O3's module optimization pipeline opens one function pass manager with
//   function<eager-inv>(float2int, lower-constant-intrinsics, <VectorizerStart>, loop(loop-rotate,
//   loop-deletion), loop-distribute, inject-tli-mappings, loop-vectorize, ...)
// and Polly at its default `-polly-position=before-vectorizer` is inserted exactly at the
// VectorizerStart extension point (after lower-constant-intrinsics). Everything from there to
// the end of -O3 is below, verbatim: loop re-rotation and distribution, the loop vectorizer,
// loop-load elimination, the SLP vectorizer and vector-combine, the instcombine/simplifycfg
// clean-ups, runtime unrolling, LICM, loop sinking, and the module-level tail (cg-profile,
// globaldce, constmerge, rel-lookup-table-converter, annotation-remarks).
// Not included: float2int and lower-constant-intrinsics (they run before that point, so clang
// already ran them), and the function simplification pipeline Polly adds after its own code
// generation (pass it with --post-pipeline when a transformation leaves work for it).
// test/cli/pipe.test.ts checks this string against opt-14's own -O3 pipeline.
export const O3_POST_PIPELINE = [
  'function<eager-inv>(',
  [
    'loop(loop-rotate,loop-deletion)',
    'loop-distribute',
    'inject-tli-mappings',
    'loop-vectorize<no-interleave-forced-only;no-vectorize-forced-only;>',
    'loop-load-elim',
    'instcombine',
    'simplifycfg<bonus-inst-threshold=1;forward-switch-cond;switch-range-to-icmp;switch-to-lookup;no-keep-loops;hoist-common-insts;sink-common-insts>',
    'slp-vectorizer',
    'vector-combine',
    'instcombine',
    'loop-unroll<O3>',
    'transform-warning',
    'instcombine',
    'require<opt-remark-emit>',
    'loop-mssa(licm)',
    'alignment-from-assumptions',
    'loop-sink',
    'instsimplify',
    'div-rem-pairs',
    'simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts>',
    'coro-cleanup',
  ].join(','),
  '),',
  ['cg-profile', 'globaldce', 'constmerge', 'rel-lookup-table-converter', 'function(annotation-remarks)'].join(','),
].join('');

/**
 * What tsopt runs: -O3's tail with two additions. First, at its front, `sroa` and
 * `loop-mssa(licm)`: the fast path keeps scalars crossing statements and values live after the
 * SCoP in stack slots (codegen/), and an escaping scalar written inside a loop stores to its
 * slot every iteration, a loop-invariant store address LLVM 14's loop vectorizer refuses. SROA
 * turns the slots (non-escaping entry-block allocas) into SSA values and PHIs; LICM then promotes
 * the accumulators the fast path still reads and writes in memory (`C[i][j] += ...`, provably
 * unaliased under the fast path's noalias scopes) to registers, which makes them reductions,
 * and opt vectorizes more fast paths (README.md, The pipe, has the figures).
 * Second, the SLP vectorizer once more right before the
 * loop vectorizer. The bare pipe hands us loops clang -O3 already runtime-unrolled by 4; their
 * copies become separate statements of the fast path, whose stride-4 accesses the loop vectorizer
 * turns into wide interleaved groups. SLP first packs the four copies into vector operations
 * instead, which runs fewer instructions. On rolled loops (tscc defers unrolling) it finds
 * nothing to pack, and the output is the same either way.
 */
export const POST_PIPELINE = O3_POST_PIPELINE.replace('function<eager-inv>(', 'function<eager-inv>(sroa,loop-mssa(licm),').replace(
  'inject-tli-mappings,',
  'inject-tli-mappings,slp-vectorizer,',
);
