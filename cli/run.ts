// What one tsopt invocation does once its flags are parsed:
// read → LLVM's text → parseModule → passes → printModule → verify → (opt-14 post pipeline) → write.
// Kept apart from argument parsing so tests can call it in-process (see test/gateway/fuzz.test.ts).
import * as fs from 'node:fs';
import { parseModule, printModule, type Module } from '../ir';
import { readInput, runOptPipeline, verifyText, writeOutput, type OptRemark, type OutputFormat } from '../ir/gateway';
import { optTargetArgs } from '../ir/opt-target';
import type { PassContext } from '../passes/pass';
import { IDENTITY_PIPELINE, parsePipeline, runPipeline, type PipelineResult } from '../passes/pipeline';
import { afterOptStages, passRegistry } from '../passes/registry';
import { TsoptError } from '../ir/errors';
import { prepareFile, type PreparedFile } from './atomic-write';
import { createLogger, type LogFormat, type LogLevel } from './log';
import { AnalysisManager } from '../analysis/analysis-manager';
import { removeStaleOutput, runOutcome } from './outcome';
import { formatCliReport, mergeReport, reportInput, type ReportFormat } from './pipeline-report';
import { fastPathVectorization, type FastPathVectorization } from '../passes/vectorized';
import { moduleBudgetFrom } from '../passes/module-budget-options';
import { inlineCheckedAccessors } from '../passes/checked-accessors';
import { withProfilePasses } from '../passes/profile';
import { cpuMsNow, roundMs, startupCpuMs } from './cpu-clock';

export const STDIO = '-';

export interface RunOptions {
  readonly input: string;
  readonly output: string;
  readonly format: OutputFormat;
  readonly passes: string;
  /** The opt-14 pipeline to run on our result, or undefined for --no-post. */
  readonly postPipeline: string | undefined;
  /** Keep every fast path after the post pipeline: no stage after opt runs (--keep-unprofitable; passes/profitability-stage.ts). */
  readonly keepUnprofitable?: boolean;
  readonly verifyEach: boolean;
  readonly report: { file: string; format: ReportFormat } | undefined;
  /** Write `changed` or `unchanged` there (cli/outcome.ts; --outcome). */
  readonly outcome?: string;
  /** With `outcome`: an unchanged module gets no output, and what only serves it does not run (--skip-unchanged-output). */
  readonly skipUnchangedOutput?: boolean;
  readonly passOptions: ReadonlyMap<string, string>;
  readonly printStats: boolean;
  /** The input is LLVM's own text (tscc's front end wrote it): no opt-14 run to read it (--input-as-printed). */
  readonly inputAsPrinted?: boolean;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
}

/** The process's streams, or stand-ins for in-process callers. */
export interface CliIo {
  readStdin(): Buffer;
  writeStdout(bytes: Buffer): void;
  writeStderr(text: string): void;
  readonly stdoutIsTerminal: boolean;
}

export type Logger = PassContext['log'];

/** The name errors use for the input. */
export function inputLabel(input: string): string {
  return input === STDIO ? '<stdin>' : input;
}

function readInputBytes(input: string, io: CliIo): Buffer {
  if (input === STDIO) return io.readStdin();
  try {
    return fs.readFileSync(input);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new TsoptError(`cannot read input: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  }
}

/** Refuses `-o` naming the input itself: tsopt never modifies its input. */
function checkOutputIsNotInput(input: string, output: string): void {
  if (input === STDIO || output === STDIO) return;
  const a = fs.statSync(input, { throwIfNoEntry: false });
  const b = fs.statSync(output, { throwIfNoEntry: false });
  if (a && b && a.dev === b.dev && a.ino === b.ino) {
    throw new TsoptError(`refusing to overwrite the input with the output (${output})`);
  }
}

/** Our parser's complaint about LLVM's own text, as one line without the file-name prefix. */
function describeIrParseError(e: Error & { line?: number; column?: number; sourceName?: string }): string {
  const prefix = `${e.sourceName}:${e.line}:${e.column}: `;
  const message = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
  return `tsopt's IR parser cannot read LLVM's text of this module at ${e.line}:${e.column}: ${message}`;
}

export interface RunSummary {
  readonly pipeline: PipelineResult;
  readonly postMs: number | undefined;
  readonly totalMs: number;
}

/** One run; throws TsoptError for anything the user can fix. */
export function runTsopt(opts: RunOptions, io: CliIo, log: Logger): RunSummary {
  const started = process.hrtime.bigint();
  const elapsedMs = () => Number(process.hrtime.bigint() - started) / 1e6;
  /** Runs one stage and logs its time at debug level. */
  // cpuMs: user + system time, the LLVM tools this stage ran included (TSCC_TIME_STAGES reads it).
  const stage = <T>(what: string, body: () => T, details?: (result: T) => object): T => {
    const t0 = elapsedMs();
    const cpu0 = cpuMsNow();
    const result = body();
    log.debug({ ms: roundMs(elapsedMs() - t0), cpuMs: roundMs(cpuMsNow() - cpu0), ...details?.(result), rssMb: Math.round(process.memoryUsage.rss() / 1e6) }, what);
    return result;
  };
  log.debug({ cpuMs: roundMs(startupCpuMs()) }, 'process start (node and modules)');
  const passes = withProfilePasses(parsePipeline(opts.passes, passRegistry), opts.passOptions);
  if (opts.output === STDIO && opts.format === 'bc' && io.stdoutIsTerminal) {
    throw new TsoptError('refusing to write bitcode to a terminal (use -o FILE or -S)');
  }
  const name = inputLabel(opts.input);
  // Owns every analysis result of the run, isl models included; cleared (freed) however the run ends.
  const am = new AnalysisManager();
  try {
    checkOutputIsNotInput(opts.input, opts.output);
    // The input's bytes and text are let go once parsed, and the model once printed: with --report
    // opt's output is parsed into a second IR model below, and both at once of a 17 MB module
    // peaked at 1.8 GB (bench/big-module.ts).
    const input: { bytes?: Buffer; text?: string } = { bytes: readInputBytes(opts.input, io) };
    // LLVM's own text needs no opt-14 run: opt would print it again as it is, but for the
    // attributes of intrinsics' declarations and the `; preds` comments, neither of which
    // reaches tsopt's output (LLVM's reader sets the former again from the intrinsic).
    input.text = stage(
      opts.inputAsPrinted ? 'read input (as printed)' : 'read input (opt-14)',
      () => (opts.inputAsPrinted ? input.bytes!.toString('utf8') : readInput(input.bytes!, name, (w) => log.warn({ input: name }, `LLVM: ${w}`))),
      (t) => ({ bytes: input.bytes!.length, chars: t.length }),
    );
    // The target opt-14 must cost code for, read while the text is at hand: a module no pass
    // changed goes to opt as read, never printed (below).
    const optTarget = optTargetArgs(input.text);
    const held: { module?: Module } = {};
    held.module = stage('parsed', () => {
      try {
        return parseModule(input.text!, name);
      } catch (e) {
        if (e instanceof Error && e.name === 'IrParseError') throw new TsoptError(describeIrParseError(e));
        throw e;
      } finally {
        input.text = undefined;
      }
    });
    // Checked accessors called in loops are inlined first (passes/checked-accessors.ts); not for
    // the identity pipeline.
    let inlinedAccessors = 0;
    if (opts.passes !== IDENTITY_PIPELINE) {
      const inlined = stage('inline checked accessors', () => inlineCheckedAccessors(held.module!, { options: opts.passOptions }, name), (r) => ({ inlined: r.inlined.length }));
      held.module = inlined.module;
      inlinedAccessors = inlined.inlined.length;
      if (inlined.inlined.length > 0) log.info({ inlined: inlined.inlined }, `inlined ${inlined.inlined.length} checked accessor(s) called in loops`);
    }
    // One budget for the module, spent by the report's models and the passes alike.
    const moduleBudget = moduleBudgetFrom(opts.passOptions);
    const inputReport = opts.report
      ? stage('report: SCoPs of the input', () => reportInput(held.module!, am, { passOptions: opts.passOptions, passes: passes.map((p) => p.name), moduleBudget }))
      : undefined;
    const pipeline = runPipeline(held.module, passes, {
      am,
      moduleBudget,
      options: opts.passOptions,
      log,
      verifyEach: opts.verifyEach,
      verify: (m) => verifyText(printModule(m)),
    });
    if (inlinedAccessors > 0) pipeline.stats.set('inline-checked-accessors.inlined', inlinedAccessors);
    const budgetUsed = moduleBudget.summary();
    if (budgetUsed.untouchedScops > 0) {
      pipeline.stats.set('module-budget.untouched-scops', budgetUsed.untouchedScops);
      log.warn(`module budget ran out (${budgetUsed.exhaustedBy}): ${budgetUsed.untouchedScops} SCoPs in ${budgetUsed.untouchedFunctions} functions left as they were; the report lists them`);
    }
    const versioned = pipeline.scopResults.some((r) => r.fields.versioned === true);
    // The stages that decide on opt's output mark the module first (--keep-unprofitable: none runs).
    const stageCtx = { options: opts.passOptions, scopResults: pipeline.scopResults };
    const stages = opts.postPipeline === undefined || opts.keepUnprofitable ? [] : afterOptStages.flatMap((s) => {
      const state = stage(`${s.name}: before opt`, () => s.before(held.module!, stageCtx));
      return state === undefined ? [] : [{ stage: s, state }];
    });
    // A module no pass changed goes to opt as it was read, neither printed nor encoded: tsopt's
    // output is the same either way (as with tscc's loop-free short way, cli/tscc-fast-path.ts).
    const asRead = opts.postPipeline !== undefined && stages.length === 0 && pipeline.timings.every((t) => t.preserved === 'all') ? input.bytes : undefined;
    // --skip-unchanged-output: a module already known unchanged needs neither its print nor the
    // post pipeline, unless the report reads opt's remarks (cli/outcome.ts).
    // (Only with an outcome file: it is what says that no output was written.)
    const skipUnchanged = opts.skipUnchangedOutput === true && opts.outcome !== undefined;
    const skipped = skipUnchanged && opts.report === undefined && stages.length === 0 && runOutcome(pipeline, inlinedAccessors, false) === 'unchanged';
    input.bytes = undefined;
    // The analyses (which reach the module through their functions) and then the model are let go
    // once printed, and the printed text once handed on: opt's output may be parsed into a second model below.
    am.clear();
    const printed: { text?: string } = { text: asRead || skipped ? undefined : stage('printed', () => printModule(held.module!)) };
    held.module = undefined;
    const encode = (format: OutputFormat) => stage('verified and encoded', () => writeOutput(printed.text!, format, name));
    let out: Buffer | undefined;
    let postMs: number | undefined;
    const optRemarks: OptRemark[] = [];
    let fastPaths: ReadonlyMap<string, FastPathVectorization> | undefined;
    if (skipped) {
      log.debug('unchanged: no output');
    } else if (opts.postPipeline === undefined) {
      out = encode(opts.format);
      printed.text = undefined;
    } else {
      // tsopt's printed text goes to opt as it is: opt parses and verifies it (ir/gateway.ts), so
      // it is not encoded first.
      const optInput: { text?: Buffer | string } = { text: asRead ?? printed.text };
      printed.text = undefined;
      const postStart = elapsedMs();
      // The vectorizers' remarks say, for the report, which loops opt vectorized.
      const remarks = opts.report ? { filter: 'loop-vectorize|slp-vectorizer', into: optRemarks } : undefined;
      // With stages to run, opt writes text: its output is read back and decided on.
      const postFormat = stages.length > 0 ? 'll' : opts.format;
      const optOutput = stage('post pipeline (opt-14)', () => runOptPipeline(optInput.text!, opts.postPipeline as string, postFormat, remarks, optTarget));
      out = optOutput;
      optInput.text = undefined;
      if ((opts.report && versioned) || stages.length > 0) {
        // Which fast paths opt vectorized, from the markers in its output (passes/vectorized.ts).
        const optOut: { module?: Module } = {};
        optOut.module = stage('post pipeline output parsed', () => parseModule(postFormat === 'll' ? optOutput.toString('utf8') : readInput(optOutput, name), name));
        const vectorized = stage('vectorized fast paths', () => fastPathVectorization(optOut.module!));
        if (opts.report) fastPaths = vectorized;
        if (stages.length > 0) {
          const cleanups = stages.filter(({ stage: s, state }) => stage(`${s.name}: decided`, () => s.after(optOut.module!, state, stageCtx, vectorized))).map(({ stage: s }) => s);
          // --skip-unchanged-output, and every fast path dropped: the decided module would only be the output.
          const unneeded = skipUnchanged && runOutcome(pipeline, inlinedAccessors, true) === 'unchanged';
          printed.text = unneeded ? undefined : stage('decided module printed', () => printModule(optOut.module!));
          optOut.module = undefined;
          if (unneeded) out = undefined;
          else if (cleanups.length === 0) out = encode(opts.format);
          else {
            // The first clean-up reads the printed text itself: opt verifies it (ir/gateway.ts).
            let cleanupInput: Buffer | string = printed.text as string;
            cleanups.forEach((s, k) => {
              out = stage(`${s.name}: clean-up (opt-14)`, () => runOptPipeline(cleanupInput, s.cleanupPipeline, k === cleanups.length - 1 ? opts.format : 'bc', undefined, optTarget));
              cleanupInput = out;
            });
          }
          printed.text = undefined;
        }
      }
      postMs = elapsedMs() - postStart;
    }
    const summary: RunSummary = { pipeline, postMs, totalMs: elapsedMs() };
    let reportText: string | undefined;
    if (opts.report && inputReport) {
      const facts = { input: name, output: opts.output, postPipeline: opts.postPipeline, postMs, totalMs: summary.totalMs, optRemarks, fastPaths, moduleBudget: moduleBudget.summary() };
      reportText = formatCliReport(mergeReport(inputReport, pipeline, facts), opts.report.format);
    }
    const outcome = opts.outcome === undefined ? undefined : runOutcome(pipeline, inlinedAccessors, stages.length > 0);
    const written = skipUnchanged && outcome === 'unchanged' ? undefined : out;
    // Only an unchanged module's output is ever left unmade.
    if (out === undefined && outcome !== 'unchanged') throw new Error(`no output made for a module whose outcome is ${outcome ?? 'not asked'}`);
    // Every file is written under a temporary name before any is put in place: a report that
    // cannot be written leaves no output behind, and the other way round.
    const files: PreparedFile[] = [];
    stage('wrote output', () => {
      try {
        if (reportText !== undefined && opts.report?.file !== STDIO) files.push(prepareFile((opts.report as { file: string }).file, reportText));
        if (opts.output !== STDIO && written !== undefined) files.push(prepareFile(opts.output, written));
        if (outcome !== undefined) files.push(prepareFile(opts.outcome as string, `${outcome}\n`));
      } catch (e) {
        for (const f of files) f.abort();
        throw e;
      }
      // No output: none of an earlier run may be taken for this one's.
      if (written === undefined && opts.output !== STDIO) removeStaleOutput(opts.output);
      for (const f of files) f.commit();
      if (opts.output === STDIO && written !== undefined) io.writeStdout(written);
      if (reportText !== undefined && opts.report?.file === STDIO) io.writeStderr(reportText);
    }, () => ({ bytes: written?.length ?? 0 }));
    if (opts.printStats) {
      for (const [stat, n] of pipeline.stats) io.writeStderr(`tsopt: stat: ${stat} = ${n}\n`);
    }
    log.debug({ ms: Math.round(summary.totalMs) }, 'done');
    return summary;
  } catch (e) {
    if (e instanceof TsoptError && e.input === undefined) throw new TsoptError(e.message, name);
    throw e;
  } finally {
    am.clear();
  }
}

/**
 * One run with its errors turned into the exit code: 0 fine; 1 the input or flags are at fault
 * (one line `tsopt: error: <input>: <what>` on stderr); 2 a bug in tsopt (one line, and the
 * stack with TSOPT_DEBUG=1). Used by the command and, in-process, by tests.
 */
export function execute(opts: RunOptions, io: CliIo): number {
  try {
    runTsopt(opts, io, createLogger(opts.logLevel, opts.logFormat, io.writeStderr));
    return 0;
  } catch (e) {
    return reportFailure(e, io, inputLabel(opts.input), opts.logFormat);
  }
}

/**
 * The failure as one line on stderr, and its exit code: 1 for TsoptError, 2 for anything else
 * (InvalidModuleError included). With `--log-format=json` the line is a pino record at level error, with
 * `input` and `exitCode` fields, like the log lines before it.
 */
export function reportFailure(e: unknown, io: CliIo, inputName?: string, logFormat: LogFormat = 'text'): number {
  const oneLine = (message: string) => message.replace(/\s*\n\s*/g, ' ').trim();
  const userError = e instanceof TsoptError;
  const err = e instanceof Error ? e : new Error(String(e));
  const input = userError ? (e as TsoptError).input ?? inputName : inputName;
  const exitCode = userError ? 1 : 2;
  const message = oneLine(err.message);
  if (logFormat === 'json') {
    const fields = { ...(input !== undefined ? { input } : {}), exitCode, kind: userError ? 'error' : 'internal error' };
    createLogger('error', 'json', io.writeStderr).error(fields, message);
  } else {
    const where = userError ? ((e as TsoptError).input !== undefined ? `${(e as TsoptError).input}: ` : '') : input !== undefined ? `${input}: ` : '';
    io.writeStderr(`tsopt: ${userError ? 'error' : 'internal error'}: ${where}${message}\n`);
  }
  if (!userError && process.env.TSOPT_DEBUG) io.writeStderr(`${err.stack ?? ''}\n`);
  return exitCode;
}
