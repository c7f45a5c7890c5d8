// The polyhedral model of one SCoP, as isl objects (Polly's ScopInfo).
//
// Every isl value names its space in a comment. Tuples:
//   statement instances  Stmt_<block>[i0, ..., i(d-1)]   (i0 counts the outermost SCoP loop)
//   array elements       MemRef_<array>[o0, ...]         (outermost subscript first, in elements;
//                                                         o0' when a parameter is called o0)
//   scalar locations     MemRef_<value>[]  and  MemRef_<phi>__phi[]
//   schedule time        [t0, ..., t2D]                  (2D+1 form: constants between loop counters)
// Parameters are the SCoP's loop-invariant integer values, named after their
// source names (`ni`) or IR names (`p_0` for `%0`) by `polyhedral/isl-names.ts`, as
// delinearization names them too. A source name the counters use (`i0`) becomes
// `i0_` for isl; `Parameter.c` and the assumptions' C keep `i0`.
//
// Lifetimes: every isl object of a model is kept in the model's context
// (`keep()`); `FunctionScopModels.dispose()` frees the context and with it all of them.
//
// Exactness: the model is exact for parameter values in `assumedContext` (the
// context, i.e. parameter types and the branches guarding the SCoP's entry, and
// every assumption). Evaluate `runtimeCheck`/assumptions where the SCoP's entry
// runs: they are simplified against those guards.
//
// For code generation from the model:
//   - build the AST from `scheduleTree` (its domain is `domains`) or from `schedule`
//     (the same order, as a map); the AST's user
//     nodes name statements `Stmt_…` with one argument per counter i0..i(d-1);
//   - statement S's instructions are its `block`'s, minus the terminator; counter
//     i_k stands for S.loops[k] (a ScopLoop, whose `loop.header` holds the IV phis):
//     rewrite every add recurrence {a,+,b}<L_k> the block uses as a + b * i_k (scalar
//     evolution's `atIteration`), and every parameter from `Parameter.expression`;
//   - scalar accesses ('value', 'phi' arrays) are SSA values in the original code:
//     a value read in S comes from the statement that wrote it in the same
//     iteration (RAW scalar dependences say which), and PHIs are rebuilt at the
//     places their writes sit;
//   - `dependences.parallelLoops` are the loops to mark `llvm.loop.parallel_accesses`
//     (they carry no array dependence and no scalar flow);
//   - the arrays' `value`s are the base pointers for alias scopes.
import type { Ctx, Set as IslSet, Map as IslMap, Schedule, UnionSet, UnionMap } from 'isl-wasm';
import type { BasicBlock, Instruction, IrFunction, Value } from '../ir';
import type { Scop, ScopLoop, ScopRejection, ScopScalarAccess } from '../analysis/scop-detection-types';
import type { IndexExpression, Parameter } from './affine';
import type { ScopBudget } from './budget';

export type ArrayKind = 'array' | 'value' | 'phi';

export interface ScopArray {
  /** isl tuple name: `MemRef_A`, `MemRef_x`, `MemRef_x__phi`. */
  readonly tupleName: string;
  /** For people and reports: the source name (`A`, from debug info or IR names), else the IR name (`%5`). */
  readonly name: string;
  readonly kind: ArrayKind;
  /** The base pointer ('array'), the value ('value') or the PHI ('phi'). */
  readonly value: Value;
  readonly elementBytes: number;
  /**
   * Sizes of the dimensions after the outermost (in elements), outermost first; empty for a
   * flat array or a scalar. From the IR's array types or from delinearization.
   */
  readonly sizes: readonly IndexExpression[];
  /** `shape` as the report gives it: C expressions, outermost first, `*` for the unknown outermost size. */
  readonly shape: readonly string[];
  /** True when `sizes` came from delinearization rather than the IR's types. */
  readonly delinearized: boolean;
}

export interface ScopAccess {
  readonly kind: 'read' | 'write';
  /** 'must': exactly the elements of `relation`; 'may': some of them (an over-approximation). */
  readonly certainty: 'must' | 'may';
  readonly array: ScopArray;
  /** The load or store for array accesses. */
  readonly instruction: Instruction | undefined;
  /** The detection's scalar access for 'value' and 'phi' arrays. */
  readonly scalar: ScopScalarAccess | undefined;
  /** [params] -> { Stmt_S[i0, ...] -> MemRef_A[o0, ...] } (not intersected with the domain, as Polly prints it) */
  readonly relation: IslMap;
  /** Why an array access is a 'may' access (`product of a loop counter and a parameter: …`). */
  readonly approximation: string | undefined;
}

export interface ScopStatementModel {
  /** `Stmt_for_body`: the isl tuple name. */
  readonly name: string;
  readonly block: BasicBlock;
  /** SCoP loops around the statement, outermost first; `loops[k]` is counted by dimension `i<k>`. */
  readonly loops: readonly ScopLoop[];
  /** [params] -> { Stmt_S[i0, ...] : ... } */
  readonly domain: IslSet;
  /** [params] -> { Stmt_S[i0, ...] -> [t0, ..., t2D] } (2D+1 form, padded with zeros) */
  readonly schedule: IslMap;
  /** Array accesses in program order, then scalar reads, then scalar writes. */
  readonly accesses: readonly ScopAccess[];
  /** The instructions of `block` the statement runs when it is one part of it (statement splitting); undefined: all. */
  readonly instructions?: ReadonlySet<Instruction>;
}

export type AssumptionKind = 'no-wrap' | 'unsigned' | 'loop-bound' | 'in-bounds' | 'delinearization' | 'error-block';

/** A condition on the parameters under which the model is exact (Polly's assumed context, by kind). */
export interface Assumption {
  readonly kind: AssumptionKind;
  /** [params] -> { : ... }, gisted against the context: only what the context does not already say. */
  readonly set: IslSet;
  /** The same as a C expression over the function's parameters (source names). */
  readonly c: string;
}

/** Dependences of one kind, Stmt → Stmt, split by what carries them. */
export interface DependencePair {
  /** [params] -> { Stmt_S[...] -> Stmt_T[...] } through array elements */
  readonly array: UnionMap;
  /** [params] -> { Stmt_S[...] -> Stmt_T[...] } through scalars and PHI locations */
  readonly scalar: UnionMap;
}

export interface Dependences {
  /** Read after write (flow). */
  readonly raw: DependencePair;
  /** Write after read (anti). */
  readonly war: DependencePair;
  /** Write after write (output). */
  readonly waw: DependencePair;
  /**
   * Loops (of `ScopModel.loops`) whose iterations may run in parallel: they carry no array
   * dependence and no scalar flow dependence (scalar WAR/WAW go away by giving each
   * iteration its own copy of the SSA value, as code generated from the model does).
   */
  readonly parallelLoops: readonly ScopLoop[];
  /** For every loop of the SCoP: the dependence kinds it carries, e.g. `RAW (array)`, `WAW (scalar)`. */
  readonly carried: ReadonlyMap<ScopLoop, readonly string[]>;
  /**
   * Whether `loop` carries a flow (RAW) dependence, of arrays only with `via`: `carried`'s
   * answer, without the exact dataflow for a loop of `parallelLoops` (which carries none) or,
   * without `via`, one that carries the scalars' flow.
   */
  carriesFlow(loop: ScopLoop, via?: 'array'): boolean;
}

export interface ScopModel {
  readonly function: IrFunction;
  readonly scop: Scop;
  readonly location: string;
  readonly depth: number;
  readonly parameters: readonly Parameter[];
  /** [params] -> { : ... }: the parameters' ranges from their types. */
  readonly context: IslSet;
  readonly statements: readonly ScopStatementModel[];
  readonly arrays: readonly ScopArray[];
  /** SCoP loops, pre-order; with `loopLabel` for reports. */
  readonly loops: readonly ScopLoop[];
  /** `file:line` of the loop with debug info, else its header's IR name (`%for.body`). */
  readonly loopLabels: ReadonlyMap<ScopLoop, string>;
  /** [params] -> { Stmt_S[...] : ... ; Stmt_T[...] : ... } */
  readonly domains: UnionSet;
  /** [params] -> { Stmt_S[...] -> [t0, ..., t2D] ; ... } */
  readonly schedule: UnionMap;
  /** The same order as an isl schedule tree (domain, sequence and band nodes), kept in `ctx` like the rest. */
  readonly scheduleTree: Schedule;
  /** [params] -> { Stmt_S[...] -> MemRef_A[...] } of every read / must write / may write, intersected with the domains. */
  readonly reads: UnionMap;
  readonly mustWrites: UnionMap;
  readonly mayWrites: UnionMap;
  readonly assumptions: readonly Assumption[];
  /** [params] -> { : ... }: context and every assumption: where the model is exact. */
  readonly assumedContext: IslSet;
  readonly dependences: Dependences;
  /** The isl context owning every object above. */
  readonly ctx: Ctx;
  /** The SCoP's isl budget: what building the model spent, and what later steps (DeLICM, versioning) may spend. */
  readonly budget: ScopBudget;
}

/** The models of one function, and the SCoPs detection found that the model dropped (quota, non-affine...). */
export interface FunctionScopModels {
  readonly function: IrFunction;
  readonly models: readonly ScopModel[];
  /** Detection's rejections plus the SCoPs dropped while modelling (`cause: 'other'`, detail says why). */
  readonly rejections: readonly ScopRejection[];
  /** Frees every isl object of these models. */
  dispose(): void;
}
