// The parts of a SCoP's run-time check, computed with isl and read back as plain AST
// expressions over the SCoP's parameters (no isl object outlives `checkParts`).
//
//   alias       for two base pointers that may alias, at least one written: the byte ranges
//               [first element, last element + 1) each accesses over the whole SCoP are
//               disjoint. The first and last elements are the lexicographic minimum and
//               maximum of the accessed subscripts; with the inner subscripts within their
//               sizes (the delinearization / in-bounds assumptions, part of the same check)
//               they are also the lowest and highest addresses. Or-ed with it where the
//               arrays' LMADs interleave (polyhedral/lmad.ts): the stride test.
//   assumption  each of the model's assumptions (no-wrap, unsigned, loop-bound, in-bounds,
//               delinearization), as isl gives it back with `isl_ast_build_expr_from_set`.
import { AstBuild, IslError, IslQuotaError, readAstExpr, type AstExprTree, type PwMultiAff } from 'isl-wasm';
import type { AnalysisKey } from '../analysis/analysis-manager';
import type { Value } from '../ir';
import { accessedElements, lmadOf, strideTest, type Lmad, type StrideTest } from './lmad';
import type { FunctionScopModels, ScopArray, ScopModel } from './model';

export interface AccessRange {
  readonly array: ScopArray;
  /** Subscripts (outermost first) of the first and of the last element accessed: AST expressions over the parameters. */
  readonly first: readonly AstExprTree[];
  readonly last: readonly AstExprTree[];
  /** The accessed elements' LMAD (polyhedral/lmad.ts). */
  readonly lmad: Lmad;
}

export interface AliasPart {
  readonly kind: 'alias';
  readonly a: AccessRange;
  readonly b: AccessRange;
  /** Where the ranges may overlap but the elements interleave: the stride test, or-ed with the range test. */
  readonly stride: StrideTest | undefined;
}

export interface AssumptionPart {
  readonly kind: 'assumption';
  readonly what: string;
  readonly cond: AstExprTree;
  readonly c: string;
}

/**
 * The i128 products of more than two factors (product parameters, sizes) are exact:
 * each partial product within ±2^63 (codegen/exact-product.ts). `c` names the
 * model's product parameters; the value is what the expander guarded.
 */
export interface ProductRangePart {
  readonly kind: 'product-range';
  readonly c: string;
}

export type CheckPart = AliasPart | AssumptionPart | ProductRangePart;

export class CheckTooLargeError extends Error {}

/**
 * Why no alias check can be built, known before any isl work: an array of an alias pair has an
 * over-approximated access (`{ Stmt[..] -> MemRef_A[o0] }`, every element), so its range has no
 * bound. The same message `accessRange` gives when isl finds that out, cheaply.
 */
export function unboundedAliasedArray(model: ScopModel): string | undefined {
  const aliased = new Set(model.scop.aliasPairs.flatMap((p) => [p.a, p.b]));
  for (const st of model.statements) {
    for (const acc of st.accesses) {
      if (acc.approximation !== undefined && acc.array.kind === 'array' && aliased.has(acc.array.value)) {
        return `the elements of ${acc.array.name} the SCoP accesses have no bound (over-approximated accesses): no alias check possible`;
      }
    }
  }
  return undefined;
}

/** The range of elements of `array` the SCoP accesses, and its LMAD (undefined: it accesses none). */
function accessRange(model: ScopModel, array: ScopArray, build: AstBuild): AccessRange | undefined {
  // [params] -> { MemRef_A[o0, ...] }
  const touched = accessedElements(model, array);
  if (!touched) return undefined;
  const n = touched.tupleDim();
  let lo: PwMultiAff; // [params] -> MemRef_A[o0, ...] (first element)
  let hi: PwMultiAff; // [params] -> MemRef_A[o0, ...] (last element)
  try {
    lo = touched.lexminPwMultiAff();
    hi = touched.lexmaxPwMultiAff();
  } catch (e) {
    if (e instanceof IslError && !(e instanceof IslQuotaError)) {
      throw new CheckTooLargeError(`the elements of ${array.name} the SCoP accesses have no bound (over-approximated accesses): no alias check possible`);
    }
    throw e;
  }
  const first: AstExprTree[] = [];
  const last: AstExprTree[] = [];
  for (let k = 0; k < n; k++) {
    first.push(readAstExpr(build.exprFromPwAff(lo.getAt(k))));
    last.push(readAstExpr(build.exprFromPwAff(hi.getAt(k))));
  }
  return { array, first, last, lmad: lmadOf(array, touched) };
}

export interface CheckPartsOptions {
  /** At most this many pairs of arrays are compared; past it the SCoP gets no fast path. */
  readonly maxAliasPairs: number;
}

/** Every part of the run-time check of `model` (call inside `ctx.scope` and the quota). */
export function checkParts(model: ScopModel, options: CheckPartsOptions): CheckPart[] {
  const build = AstBuild.fromContext(model.context);
  const parts: CheckPart[] = [];
  for (const a of model.assumptions) {
    parts.push({ kind: 'assumption', what: a.kind, cond: readAstExpr(build.exprFromSet(a.set)), c: a.c });
  }
  const pairs = model.scop.aliasPairs;
  if (pairs.length > options.maxAliasPairs) {
    throw new CheckTooLargeError(`${pairs.length} pairs of arrays may alias, more than the ${options.maxAliasPairs} comparisons allowed (--rtc-max-alias-pairs)`);
  }
  const arrayOf = (v: Value) => model.arrays.find((x) => x.kind === 'array' && x.value === v);
  const ranges = new Map<ScopArray, AccessRange | undefined>();
  const rangeOf = (x: ScopArray) => {
    if (!ranges.has(x)) ranges.set(x, accessRange(model, x, build));
    return ranges.get(x);
  };
  for (const p of pairs) {
    const a = arrayOf(p.a);
    const b = arrayOf(p.b);
    if (!a || !b) throw new CheckTooLargeError(`the pair ${p.aName}, ${p.bName} has no array in the model`);
    const ra = rangeOf(a);
    const rb = rangeOf(b);
    if (!ra || !rb) continue; // one of them is never accessed: nothing can overlap
    parts.push({ kind: 'alias', a: ra, b: rb, stride: strideTest(ra.lmad, rb.lmad) });
  }
  parts.push({ kind: 'product-range', c: productRangeC(model) });
  return parts;
}

/** A model's check parts, and the isl operations of the `check and AST` step they cost. */
export interface CheckedParts {
  readonly parts: readonly CheckPart[];
  readonly operations: number;
}

/** The check parts of one function's models (plain and DeLICM's), each made once. */
export interface CheckPartsCache {
  /**
   * `model`'s parts, made on first request under the SCoP's budget (step `check and AST`,
   * at most `maxOperations`); what isl or the check threw then (the quota run out,
   * CheckTooLargeError) is thrown again at each request.
   */
  partsFor(model: ScopModel): CheckedParts;
}

/**
 * The check parts of the models `models` gives (and of DeLICM's models made from them). Plain
 * data (AST expressions, LMADs), so nothing to free; dropped with the models. Versioning asks
 * for the plain model's before the probes that choose which model to generate from: where that
 * check runs out of its quota, no probe's work can be used (nussinov's kernel: the row jam's
 * dataflow, 1M operations, then the check's 1M), and where it does not, versioning reads the
 * same parts again instead of making them twice.
 */
export function checkPartsAnalysis(models: AnalysisKey<FunctionScopModels>, options: CheckPartsOptions & { readonly maxOperations: number }): AnalysisKey<CheckPartsCache> {
  return {
    name: `check-parts(${models.name},max-ops=${options.maxOperations},max-pairs=${options.maxAliasPairs})`,
    compute: (fn, am) => {
      // Read so that the parts go stale with the models they describe.
      am.get(models, fn);
      return new PartsCache(options);
    },
  };
}

class PartsCache implements CheckPartsCache {
  private readonly made = new Map<ScopModel, { ok: CheckedParts } | { error: unknown }>();

  constructor(private readonly options: CheckPartsOptions & { readonly maxOperations: number }) {}

  partsFor(model: ScopModel): CheckedParts {
    let r = this.made.get(model);
    if (!r) {
      r = this.make(model);
      this.made.set(model, r);
    }
    if ('error' in r) throw r.error;
    return r.ok;
  }

  private make(model: ScopModel): { ok: CheckedParts } | { error: unknown } {
    // What accessRange would find with isl, known without it.
    const unbounded = unboundedAliasedArray(model);
    if (unbounded) return { error: new CheckTooLargeError(unbounded) };
    const isl = model.ctx;
    try {
      return {
        ok: model.budget.run(isl, 'check and AST', this.options.maxOperations, () => {
          const start = isl.operations;
          const parts = isl.scope(() => checkParts(model, this.options));
          return { parts, operations: isl.operations - start };
        }),
      };
    } catch (e) {
      if (e instanceof IslError || e instanceof CheckTooLargeError) return { error: e };
      throw e;
    }
  }
}

/** `-2^63 <= n1 * n2 && n1 * n2 <= 2^63` for every partial product the check takes with a guard. */
function productRangeC(model: ScopModel): string {
  const out: string[] = [];
  for (const p of model.parameters) {
    const f = p.factors ?? [];
    for (let k = 2; k < f.length; k++) {
      const partial = f.slice(0, k).join(' * ');
      out.push(`-2^63 <= ${partial} && ${partial} <= 2^63`);
    }
  }
  return out.length > 0 ? out.join(' && ') : '-2^63 <= each partial product of sizes <= 2^63';
}
