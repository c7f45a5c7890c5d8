// The pass host in-process: the registry (passes and the stage after opt), --passes parsing, the analysis cache and its
// invalidation, statistics and remarks out of the context, and --verify-each.
import { InvalidModuleError, TsoptError } from '../../ir/errors';
import { parseModule, printModule, type IrFunction, type Module } from '../../ir';
import { verifyText } from '../../ir/gateway';
import { analysisPasses } from '../../passes/analysis-printers';
import { AnalysisManager } from '../../analysis/analysis-manager';
import type { AnalysisKey, ModulePass, Preserved } from '../../passes/pass';
import { parsePipeline, runPipeline, type PipelineOptions } from '../../passes/pipeline';
import { afterOptStages, passRegistry } from '../../passes/registry';

const TWO_FUNCTIONS = [
  'define i32 @f(i32 %a) {',
  'entry:',
  '  %b = add i32 %a, 1',
  '  ret i32 %b',
  '}',
  '',
  'define i32 @g(i32 %a) {',
  'entry:',
  '  %b = mul i32 %a, 3',
  '  ret i32 %b',
  '}',
  '',
].join('\n');

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined };

function options(verifyEach: boolean): PipelineOptions {
  return { options: new Map(), log: silent, verifyEach, verify: (m) => verifyText(printModule(m)) };
}

/** An analysis that counts how often it is computed, optionally reading another one. */
function countingAnalysis(name: string, reads?: AnalysisKey<unknown>): AnalysisKey<number> & { runs: number } {
  const key = {
    name,
    runs: 0,
    compute(fn: IrFunction, am: AnalysisManager): number {
      if (reads) am.get(reads, fn);
      return ++key.runs;
    },
  };
  return key;
}

function pass(name: string, preserved: Preserved, body: (m: Module, ctx: Parameters<ModulePass['run']>[1]) => void = () => undefined): ModulePass {
  return { name, description: name, run: (m, ctx) => (body(m, ctx), preserved) };
}

describe('registry', () => {
  test('lists verify and every analysis printer, each under its own name', () => {
    expect(passRegistry.get('verify')?.name).toBe('verify');
    for (const p of analysisPasses) expect(passRegistry.get(p.name)).toBe(p);
    for (const [name, p] of passRegistry) expect(p.name).toBe(name);
  });

  test('profitability is the stage after opt, named apart from the passes; it takes nothing on without versioned SCoPs or with --rtc-stats', () => {
    expect(afterOptStages.map((s) => s.name)).toEqual(['profitability']);
    for (const s of afterOptStages) expect(passRegistry.has(s.name)).toBe(false);
    const m = parseModule(TWO_FUNCTIONS, 'two.ll');
    const before = printModule(m);
    const profitability = afterOptStages[0]!;
    const versioned = { pass: 'versioning', function: 'f', location: 'f:%entry', fields: { versioned: true } };
    expect(profitability.before(m, { options: new Map(), scopResults: [] })).toBeUndefined();
    expect(profitability.before(m, { options: new Map([['rtc-stats', 'true']]), scopResults: [versioned] })).toBeUndefined();
    // A versioned result but no fast path in the module: nothing to guard.
    expect(profitability.before(m, { options: new Map(), scopResults: [versioned] })).toBeUndefined();
    expect(printModule(m)).toBe(before);
  });
});

describe('parsePipeline', () => {
  test("'none' is the empty pipeline; names map to registered passes in order", () => {
    expect(parsePipeline('none', passRegistry)).toEqual([]);
    expect(parsePipeline('verify, verify', passRegistry).map((p) => p.name)).toEqual(['verify', 'verify']);
  });

  test.each([
    ['nosuch', "unknown pass 'nosuch' in --passes (known: verify"],
    ['verify,none', "'none' cannot be combined with other passes in --passes=verify,none"],
    ['verify,', 'empty pass name in --passes=verify,'],
  ])('%s is a one-line error', (spec, message) => {
    expect(() => parsePipeline(spec, passRegistry)).toThrow(TsoptError);
    expect(() => parsePipeline(spec, passRegistry)).toThrow(message);
  });
});

describe('AnalysisManager', () => {
  const m = parseModule(TWO_FUNCTIONS, 'two.ll');
  const [f, g] = m.functions;

  test('computes on demand, once per function, and reuses', () => {
    const am = new AnalysisManager();
    const a = countingAnalysis('a');
    expect(am.get(a, f)).toBe(1);
    expect(am.get(a, f)).toBe(1);
    expect(am.get(a, g)).toBe(2);
    expect(am.counts).toEqual({ computed: 2, reused: 1, invalidated: 0 });
  });

  test('drops what a pass did not preserve, and what was computed from it', () => {
    const am = new AnalysisManager();
    const base = countingAnalysis('base');
    const derived = countingAnalysis('derived', base);
    const other = countingAnalysis('other');
    am.get(derived, f);
    am.get(other, f);
    am.get(base, g);
    am.invalidate(f, new Set(['derived', 'other'])); // base not preserved: derived goes with it
    expect([am.has('base', f), am.has('derived', f), am.has('other', f), am.has('base', g)]).toEqual([false, false, true, true]);
    am.invalidateAll('all');
    expect(am.has('other', f)).toBe(true);
    am.invalidateAll('none');
    expect([am.has('other', f), am.has('base', g)]).toEqual([false, false]);
    expect(am.get(derived, f)).toBe(2);
  });

  test('reports a cycle between analyses instead of recursing forever', () => {
    const am = new AnalysisManager();
    const cyclic: AnalysisKey<number> = { name: 'cyclic', compute: (fn, m2) => m2.get(cyclic, fn) };
    expect(() => am.get(cyclic, f)).toThrow('analysis cycle: cyclic -> cyclic');
  });
});

describe('runPipeline', () => {
  test('statistics and remarks come out of the context, per pass; analyses are invalidated by what passes report', () => {
    const m = parseModule(TWO_FUNCTIONS, 'two.ll');
    const a = countingAnalysis('a');
    const counting = pass('count', new Set(['a']), (mod, ctx) => {
      for (const fn of mod.functions) ctx.am.get(a, fn);
      ctx.stats.set('functions', (ctx.stats.get('functions') ?? 0) + mod.functions.length);
      ctx.remarks.push({ pass: 'count', kind: 'analysis', function: 'f', location: 'two.ll', message: 'counted' });
    });
    const clobber = pass('clobber', 'none');
    const r = runPipeline(m, [counting, counting, clobber, counting], options(false));
    expect(r.stats).toEqual(new Map([['count.functions', 6]]));
    expect(r.remarks).toHaveLength(3);
    expect(r.timings.map((t) => `${t.pass}:${t.preserved}`)).toEqual(['count:a', 'count:a', 'clobber:none', 'count:a']);
    expect(a.runs).toBe(4); // 2 functions, then reused, then recomputed after `clobber`
  });

  test('--verify-each names the pass that broke the module', () => {
    const breaker = pass('drop-terminator', 'none', (mod) => void mod.functions[1].blocks[0].instructions.pop());
    let laterRan = false;
    const later = pass('later', 'all', () => void (laterRan = true));
    const run = () => runPipeline(parseModule(TWO_FUNCTIONS, 'two.ll'), [passRegistry.get('verify') as ModulePass, breaker, later], options(true));
    expect(run).toThrow(InvalidModuleError);
    expect(run).toThrow(/^pass 'drop-terminator' broke the module: invalid IR text: \d+:\d+: expected instruction opcode$/);
    expect(laterRan).toBe(false);
  });

  test('without --verify-each a broken module is only caught at the end (by the writer)', () => {
    const m = parseModule(TWO_FUNCTIONS, 'two.ll');
    const breaker = pass('drop-terminator', 'none', (mod) => void mod.functions[1].blocks[0].instructions.pop());
    expect(() => runPipeline(m, [breaker], options(false))).not.toThrow();
    expect(verifyText(printModule(m))).toMatch(/^invalid IR text: /);
  });
});
