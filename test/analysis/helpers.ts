// Compiling C to -O3 IR the way tsopt sees it, and running analyses on it.
import * as path from 'node:path';
import { parseModule } from '../../ir/parser';
import type { IrFunction, Module } from '../../ir';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { compileToIr, kernelsDir } from '../support/tools';

/** The flags of tsopt's pipeline (clang-14 -O3, vectorizers off). */
export const pipelineFlags = ['-O3', '-fno-vectorize', '-fno-slp-vectorize'];

export const fixturesDir = path.join(__dirname, 'fixtures');

/** Compiles a C file (a fixture name, a kernel name `kernels/x.c`, or a path) and parses the IR. */
export function compileC(file: string, extraFlags: readonly string[] = []): Module {
  const source = file.startsWith('kernels/') ? path.join(kernelsDir, file.slice('kernels/'.length))
    : path.isAbsolute(file) ? file : path.join(fixturesDir, file);
  const text = compileToIr(source, [...pipelineFlags, `-I${kernelsDir}`, ...extraFlags], true).toString();
  return parseModule(text, path.basename(source));
}

export function fn(m: Module, name: string): IrFunction {
  const f = m.functions.find((x) => x.name === name);
  if (!f) throw new Error(`no function @${name} in ${m.sourceName}`);
  return f;
}

export function analyses(): AnalysisManager {
  return new AnalysisManager();
}
