// The result of SCoP detection: the contract between detection (passes/analysis)
// and the polyhedral model (polyhedral/). Plain data that points into the IR;
// nothing here is mutated after detection returns. Keep this file stable:
// additions are fine, changes are announced to the polyhedral-model engineer.
//
// Conventions
// - A SCoP is a single-entry single-exit region of the CFG: control enters only
//   through `entry`, and leaves only to `exit` (the first block after it).
// - Statements are basic blocks (Polly's default granularity). The iteration
//   domain of a statement is the box of its surrounding loops' counters,
//   0 <= i_L <= backedgeTakenCount(L), intersected with `statement.domain`
//   (the branch conditions on the way to the block).
// - Every integer expression is a scalar-evolution expression (`Scev`, see
//   ./scev.ts); a loop counter appears as an add recurrence `{start,+,step}<L>`
//   and `toPolynomial` (./polynomial.ts) expands any of them into
//   sum-of-products form over counters and parameters.
// - Parameters are the `ScevUnknown`s (and casts of them) that an expression
//   mentions; `Scop.parameters` lists them all. An add recurrence of a loop
//   around the SCoP (the SCoP sits in that loop's body) is constant during the
//   SCoP: treat it as a parameter too.
// - What "affine" admits (Polly's SCEVAffinator does the same), so a translator
//   to isl must handle these nodes:
//     * `udiv` by a positive constant: isl's floor; detection made sure the dividend
//       is non-negative (runtime unrolling writes `and %n, -4` as `4 * (%n /u 4)`);
//     * `smax`/`smin`/`umax`/`umin` of affine operands: piecewise affine;
//     * `sext`/`zext`/`trunc` of an affine value: read as that value, under the
//       assumption that it does not wrap (the model records the assumption);
//     * products of parameters (`%n * %m`): one parameter.
//   `form: 'polynomial'` marks subscripts with parameter × counter terms.
// - Conditions use signed predicates plus `eq`/`ne`: an unsigned comparison is
//   accepted only when both sides are known non-negative, and then written signed.
import type { BasicBlock, Instruction, Value, IrFunction } from '../ir';
import type { Scev, ScevUnknown } from './scev';
import type { Loop } from './loops';

/** The eight rejection causes, classified as SPolly classified Polly's. */
/**
 * The metadata kind `--profile-use` puts on its dispatch's branches (codegen/profile-specialize.ts):
 * detection admits no region holding one, so that no SCoP swallows the dispatch, its copies and
 * the original, which must each get a fast path of their own.
 */
export const PROFILE_DISPATCH_METADATA = 'tsopt.dispatch';

export type RejectionCause =
  | 'non-affine-access'
  | 'aliasing'
  | 'non-affine-loop-bound'
  | 'function-call'
  | 'non-canonical-indvar'
  | 'complex-cfg'
  | 'unsigned-comparison'
  | 'other';

/** `icmp` predicates, LLVM spelling. */
export type IntPredicate = 'eq' | 'ne' | 'slt' | 'sle' | 'sgt' | 'sge' | 'ult' | 'ule' | 'ugt' | 'uge';

/** `lhs pred rhs`, both sides of the same integer width. */
export interface ScopCondition {
  readonly lhs: Scev;
  readonly predicate: IntPredicate;
  readonly rhs: Scev;
}

/**
 * A condition in disjunctive normal form: the OR of conjunctions. `[[]]` is
 * "always", `[]` is "never".
 */
export type ScopConditionDnf = readonly (readonly ScopCondition[])[];

export interface ScopLoop {
  readonly loop: Loop;
  /** The loop that encloses this one inside the SCoP, or undefined for an outermost loop of the SCoP. */
  readonly parent: ScopLoop | undefined;
  /** 1 for an outermost loop of the SCoP. */
  readonly depth: number;
  /**
   * Times the back edge is taken per entry of the loop: the counter ranges over
   * 0..backedgeTakenCount (inclusive). May contain smax/umax; always affine in
   * parameters and counters of enclosing loops (detection rejects otherwise).
   */
  readonly backedgeTakenCount: Scev;
  /**
   * The raw exit test: the loop keeps iterating after iteration i (as counted by the loop's
   * add recurrences) while `continueCondition` holds, evaluated at iteration i.
   * The same facts as `backedgeTakenCount`, without the max.
   */
  readonly continueCondition: ScopCondition;
}

export type MemoryAccessKind = 'read' | 'write';

export interface ScopMemoryAccess {
  /** The load or store (or a call to a memory intrinsic; then `range` is set). */
  readonly instruction: Instruction;
  readonly kind: MemoryAccessKind;
  /** The loop-invariant base pointer (a function argument, a global, an alloca, a load hoisted out of the SCoP). */
  readonly base: Value;
  /** Name for reports: the IR name of `base` (`%A`, `@G`, or `%5` without value names). */
  readonly baseName: string;
  /** Size in bytes of the accessed element (the load's or store's type). */
  readonly elementBytes: number;
  /** Byte offset of the access from `base`, as a function of counters and parameters. */
  readonly offset: Scev;
  /**
   * Per-dimension subscripts (outermost first), in elements, when the IR itself
   * gives them (a GEP over an array type, e.g. `[100 x [100 x double]]`):
   * together with `dimensionSizes` they describe the same address as `offset`.
   * Undefined for flat (linearized) accesses: delinearization recovers those.
   */
  readonly subscripts: readonly Scev[] | undefined;
  /** Sizes of the dimensions after the outermost (elements), when `subscripts` is set. */
  readonly dimensionSizes: readonly Scev[] | undefined;
  /**
   * 'affine': `offset` is affine in counters and parameters.
   * 'polynomial': `offset` has products of parameters (and counters), as linearized
   * parametric arrays produce; delinearization may recover an affine form. The SCoP
   * is kept; the polyhedral model must delinearize or over-approximate.
   */
  readonly form: 'affine' | 'polynomial';
  /**
   * Set only for a memory intrinsic (`llvm.memset`, accepted with `--scop-memset`): the access
   * touches the bytes [offset, offset + lengthBytes) of `base`, not one element; `elementBytes`
   * is 1 and `subscripts` undefined. `lengthBytes` is an affine i64 expression (counters of the
   * statement's loops and parameters). Polly models it the same way: `{ Stmt[i] -> base[o] :
   * offset(i) <= o < offset(i) + lengthBytes(i) }` in bytes (a must-write for memset; the model
   * divides by the array's element size when offset and length are multiples of it).
   */
  readonly range?: { readonly lengthBytes: Scev };
}

/** A scalar value defined in one statement and used in another (Polly's MemoryKind::Value), or a PHI's incoming edge (MemoryKind::PHI). */
export interface ScopScalarAccess {
  readonly kind: 'value' | 'phi';
  readonly access: MemoryAccessKind;
  /**
   * For 'value': the instruction whose value crosses statements.
   * For 'phi': the PHI node (the virtual location); its writes sit in the incoming blocks.
   */
  readonly value: Instruction;
  /** For a 'phi' write: the value written along the edge into the PHI's block. */
  readonly incoming?: Value;
  /**
   * On writes only: the code after the SCoP reads what the last write left (Polly's escaping
   * value writes and exit PHI writes): a value used after the region, or an edge into a PHI of
   * the exit block. The location is live after the SCoP, so it must not be mapped away.
   */
  readonly escaping?: boolean;
}

export interface ScopStatement {
  /** `Stmt_<block name>`, unique within the SCoP. */
  readonly name: string;
  readonly block: BasicBlock;
  /** The SCoP loops around the statement, outermost first. */
  readonly loops: readonly ScopLoop[];
  /** The branch conditions under which the block runs in an iteration of its loops (besides the loop bounds). */
  readonly domain: ScopConditionDnf;
  /** Array accesses, in program order. */
  readonly accesses: readonly ScopMemoryAccess[];
  /** Scalar accesses: reads first, then writes. */
  readonly scalars: readonly ScopScalarAccess[];
  /**
   * When the statement is one part of its block (analysis/statement-split.ts): the instructions
   * it runs, its stores and scalar writes with their operand trees; undefined: the whole block.
   */
  readonly instructions?: ReadonlySet<Instruction>;
  /** For a part: the block's statement before splitting (what `--split-statements=false` models). */
  readonly whole?: ScopStatement;
}

/** Two base pointers, at least one written in the SCoP, that we could not prove distinct. */
export interface AliasPair {
  readonly a: Value;
  readonly b: Value;
  readonly aName: string;
  readonly bName: string;
}

export interface Scop {
  /** `file:line` of the first instruction with debug info, else `function:%entryBlock`. */
  readonly location: string;
  /** First block inside the region. */
  readonly entry: BasicBlock;
  /** First block after the region (not part of it); undefined when the region runs to the function's return. */
  readonly exit: BasicBlock | undefined;
  /** All blocks of the region, in reverse post-order. */
  readonly blocks: readonly BasicBlock[];
  /** The loops inside the region, outermost first (pre-order of the loop tree). */
  readonly loops: readonly ScopLoop[];
  /** Maximum loop depth inside the SCoP. */
  readonly depth: number;
  readonly statements: readonly ScopStatement[];
  /** Every parameter of the SCoP (loop-invariant unknowns in bounds, conditions and subscripts), in canonical order. */
  readonly parameters: readonly ScevUnknown[];
  /** Base pointers with their names, in first-use order; `elementBytes` from a load or store when any (a memset alone gives 1). */
  readonly arrays: readonly { readonly base: Value; readonly name: string; readonly elementBytes: number }[];
  readonly aliasPairs: readonly AliasPair[];
  /** True when some access is 'polynomial' (needs delinearization). */
  readonly needsDelinearization: boolean;
  /**
   * Values defined before the SCoP and used in it that are not parameters (floating-point
   * or pointer values, loads hoisted by LICM): read-only scalars of the model.
   */
  readonly invariantLoads: readonly Instruction[];
  /** Edges into error blocks the model assumes are never taken (absent: none). */
  readonly errorBlocks?: readonly ScopErrorEdge[];
}

/**
 * An edge from a block of the SCoP into an error block (analysis/error-blocks.ts: code
 * that ends in a throw, abort, `resume` or `unreachable`). The model assumes it is never taken:
 * the run-time check proves that no iteration of `loops` within `domain` exists.
 */
export interface ScopErrorEdge {
  /** The SCoP's block that branches to the error block. */
  readonly from: BasicBlock;
  /** The error block (not part of the SCoP). */
  readonly block: BasicBlock;
  /** The SCoP loops around `from`, outermost first. */
  readonly loops: readonly ScopLoop[];
  /** The conditions under which the edge is taken in an iteration of `loops` (besides their bounds). */
  readonly domain: ScopConditionDnf;
}

export interface ScopRejection {
  readonly cause: RejectionCause;
  /** `file:line` from debug info when present, else `function:%block`. */
  readonly location: string;
  /** A person-readable reason, e.g. `call to @printf`, `subscript {0,+,%n}<%for.body> * %m`. */
  readonly detail: string;
  /** The region that was rejected: its entry and exit (undefined exit: function return). */
  readonly entry: BasicBlock;
  readonly exit: BasicBlock | undefined;
}

export interface ScopDetectionResult {
  readonly function: IrFunction;
  /** Maximal SCoPs, in the order of their entry blocks in the function. */
  readonly scops: readonly Scop[];
  /**
   * For each outermost loop no SCoP covers: the issues of the smallest single-entry
   * single-exit region around it, once per (cause, location, detail), in function order.
   */
  readonly rejections: readonly ScopRejection[];
}
