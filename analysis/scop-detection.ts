// SCoP detection (Polly's ScopDetection, for IR after clang -O3): find the
// maximal single-entry single-exit regions whose loops have affine trip counts,
// whose branch conditions are affine, whose memory accesses have loop-invariant
// bases and affine (or delinearizable polynomial) offsets, and whose calls are
// pure; classify why every other loop nest was rejected.
//
// Regions are (entry, exit) pairs with `exit` on the post-dominator chain of
// `entry`, entry dominating every block, no edge entering except at entry and
// none leaving except to exit (LLVM's RegionInfo notion). Every such region with
// a loop is a candidate; the valid ones are taken largest first, without overlap.
// The function's entry block is never part of a SCoP (as in Polly: code
// generation needs a block before the SCoP to branch from).
import {
  type BasicBlock, type Instruction, type IrFunction, type Module, type Type, type Value,
  InstFlag, constantsEqual, successors, terminator, calledFunction, debugLocationString, resolveMetadata, callAttributes, callArgs,
} from '../ir';
import type { AnalysisKey, FunctionAnalysisManager } from './analysis-manager';
import { type DomTree, dominatorTreeAnalysis, postDominatorTreeAnalysis } from './dominators';
import { type Loop, type LoopInfo, loopAnalysis } from './loops';
import { type Polynomial, toPolynomial } from './polynomial';
import { isKnownNonNegative, type Facts } from './ranges';
import { type ScalarEvolution, scalarEvolutionAnalysis, allocSize, isUnsignedPredicate } from './scalar-evolution';
import { type Scev, type ScevUnknown, ScevKind, compareScev, subExpressions, printScev } from './scev';
import { DomainBuilder, isSelectAndOr, maxDnfSize } from './scop-domains';
import { isMathCall, mathErrnoIssue } from './math-calls';
import { type ErrorBlocks, errorBlocksAnalysis } from './error-blocks';
import type {
  AliasPair, IntPredicate, RejectionCause, Scop, ScopDetectionResult, ScopErrorEdge, ScopLoop,
  ScopMemoryAccess, ScopRejection, ScopScalarAccess, ScopStatement,
} from './scop-detection-types';
import { PROFILE_DISPATCH_METADATA } from './scop-detection-types';
import { splitStatement } from './statement-split';


interface Region {
  readonly entry: BasicBlock;
  readonly exit: BasicBlock;
  /** Reverse post-order. */
  readonly blocks: readonly BasicBlock[];
  readonly blockSet: ReadonlySet<BasicBlock>;
  /** Loops entirely inside, pre-order. */
  readonly loops: readonly Loop[];
  /** `formOf` results for this region. */
  readonly forms: Map<Scev, Form>;
}

interface Issue {
  readonly cause: RejectionCause;
  readonly detail: string;
  /** Where: the instruction (for debug info) or the block. */
  readonly at: Instruction | BasicBlock;
}

/** The three forms an expression can have inside a region. */
type Form = 'affine' | 'polynomial' | 'non-affine';

/** Choices of what detection accepts. */
export interface ScopDetectionOptions {
  /**
   * Accept `llvm.memset` with an affine destination and an affine length as a write of a
   * byte range (Polly does; -O3 turns `for (j) y[j] = 0;` into one). Off by default: the
   * model must first build range accesses (see `ScopMemoryAccess.range`).
   */
  readonly memset?: boolean;
  /** Split a block into two statements where one part carries a PHI chain and the other does not (analysis/statement-split.ts); default true. */
  readonly split?: boolean;
}

/** Subscripts and inner sizes of a GEP over constant-size arrays. */
interface GepDimensions {
  readonly subscripts: Scev[];
  readonly sizes: Scev[];
}

/** A load's or store's pointer split into base and offset; `dims` (null: none) filled in once asked for. */
interface AccessShape {
  readonly pointer: Value;
  readonly elementType: Type;
  readonly split: { readonly base: ScevUnknown; readonly offset: Scev };
  readonly base: Value;
  dims?: GepDimensions | null;
  /** Blocks defining the base and the offset's values (`accessDefinitions`), once asked for. */
  definitions?: readonly BasicBlock[];
}

class Detector {
  private readonly dt: DomTree;
  private readonly pdt: DomTree;
  private readonly li: LoopInfo;
  private readonly se: ScalarEvolution;
  private readonly module: Module;
  private readonly errors: ErrorBlocks;
  private readonly shapes = new Map<Instruction, AccessShape | { cause: RejectionCause; detail: string }>();
  private readonly blockAccesses = new Map<BasicBlock, readonly Instruction[]>();

  constructor(private readonly fn: IrFunction, am: FunctionAnalysisManager, private readonly options: ScopDetectionOptions = {}) {
    this.dt = am.get(dominatorTreeAnalysis, fn);
    this.errors = am.get(errorBlocksAnalysis, fn);
    // Regions are single-exit once the edges into error blocks are set apart (they are assumed not taken).
    this.pdt = this.errors.blocks.size > 0 ? this.errors.postDominators : am.get(postDominatorTreeAnalysis, fn);
    this.li = am.get(loopAnalysis, fn);
    this.se = am.get(scalarEvolutionAnalysis, fn);
    this.module = fn.parent;
  }

  run(): ScopDetectionResult {
    if (this.fn.isDeclaration || this.li.all.length === 0) return { function: this.fn, scops: [], rejections: [] };
    const checked = new Map<string, Issue[]>();
    const issuesOf = (r: Region): Issue[] => {
      const key = `${this.position(r.entry)}-${this.position(r.exit)}`;
      let i = checked.get(key);
      if (!i) {
        i = this.check(r);
        checked.set(key, i);
      }
      return i;
    };
    // Entries in reverse post-order, each with its largest valid region. A region containing
    // a block has an entry dominating it, so an earlier entry: when an entry is reached
    // untaken, no valid region with an earlier entry contains it, and the regions found are
    // maximal. Blocks that no region can contain (calls with side effects, returns, ...)
    // cut the search short.
    const poison = this.poisonBlocks();
    const accepted: Region[] = [];
    const taken = new Set<BasicBlock>();
    const functionEntry = this.fn.blocks[0];
    for (const entry of this.dt.order) {
      if (entry === functionEntry || taken.has(entry) || poison.has(entry) || this.errors.blocks.has(entry)) continue;
      const exits: BasicBlock[] = [];
      for (let x = this.pdt.idom(entry); x; x = this.pdt.idom(x)) exits.push(x);
      for (const exit of exits.reverse()) {
        const r = this.regionOf(entry, exit, poison);
        if (!r || r.loops.length === 0 || r.blocks.some((b) => taken.has(b))) continue;
        if (this.accessRejects(r) || issuesOf(r).length > 0) continue;
        accepted.push(r);
        for (const b of r.blocks) taken.add(b);
        break;
      }
    }
    accepted.sort((a, b) => this.position(a.entry) - this.position(b.entry));
    const scops = accepted.map((r) => this.buildScop(r));
    // Rejections: the outermost loops no SCoP covers, with the causes of their smallest region.
    const rejections: ScopRejection[] = [];
    for (const loop of this.li.all) {
      if (taken.has(loop.header)) continue;
      if (loop.parent && !taken.has(loop.parent.header)) continue;
      const around = this.smallestRegionAround(loop);
      const issues = around ? issuesOf(around) : [{ cause: 'complex-cfg' as const, detail: `no single-entry single-exit region around loop ${loop.headerName}`, at: loop.header }];
      const seen = new Set<string>();
      for (const issue of issues) {
        const rej: ScopRejection = {
          cause: issue.cause,
          location: this.locationOf(issue.at),
          detail: issue.detail,
          entry: around?.entry ?? loop.header,
          exit: around?.exit,
        };
        const key = `${rej.cause}|${rej.location}|${rej.detail}`;
        if (seen.has(key)) continue;
        seen.add(key);
        rejections.push(rej);
      }
      if (issues.length === 0) {
        rejections.push({ cause: 'other', location: this.locationOf(loop.header), detail: `loop ${loop.headerName} is in no valid region`, entry: around?.entry ?? loop.header, exit: around?.exit });
      }
    }
    return { function: this.fn, scops, rejections };
  }

  private position(b: BasicBlock): number {
    return this.fn.blocks.indexOf(b);
  }

  // ---- regions ----

  /**
   * Blocks whose own contents reject any region around them, whatever the region: calls
   * with side effects, volatile or atomic accesses, allocas, and terminators other than
   * branches and switches.
   */
  private poisonBlocks(): Set<BasicBlock> {
    const out = new Set<BasicBlock>();
    for (const b of this.fn.blocks) {
      const t = terminator(b);
      if (!t || (t.opcode !== 'br' && t.opcode !== 'switch')) {
        out.add(b);
        continue;
      }
      const issues: Issue[] = [];
      for (const i of b.instructions) this.checkInstruction(undefined, i, issues);
      if (issues.length > 0) out.add(b);
    }
    return out;
  }

  /** The smallest single-entry single-exit region holding all of `loop` (entries nearest the header first). */
  private smallestRegionAround(loop: Loop): Region | undefined {
    const functionEntry = this.fn.blocks[0];
    for (let entry: BasicBlock | undefined = loop.header; entry && entry !== functionEntry; entry = this.dt.idom(entry)) {
      for (let exit = this.pdt.idom(entry); exit; exit = this.pdt.idom(exit)) {
        const r = this.regionOf(entry, exit);
        if (r && r.loops.includes(loop)) return r;
      }
    }
    return undefined;
  }

  /** The region (entry, exit) if it is single-entry single-exit, else undefined. */
  private regionOf(entry: BasicBlock, exit: BasicBlock, poison?: ReadonlySet<BasicBlock>): Region | undefined {
    const blockSet = new Set<BasicBlock>([entry]);
    const work = [entry];
    while (work.length > 0) {
      const b = work.pop()!;
      for (const s of successors(b)) {
        if (s === exit || blockSet.has(s)) continue;
        if (s === entry) continue; // a back edge to the entry: the entry is a loop header inside
        if (this.errors.blocks.has(s)) continue; // an error edge: assumed not taken (ScopErrorEdge)
        if (!this.dt.dominates(entry, s) || poison?.has(s)) return undefined;
        blockSet.add(s);
        work.push(s);
      }
      if (terminator(b)?.opcode === 'ret' || successors(b).length === 0) return undefined;
    }
    // Single entry: only the entry block has predecessors outside.
    for (const b of blockSet) {
      if (b === entry) continue;
      if (this.dt.cfgPredecessors(b).some((p) => !blockSet.has(p))) return undefined;
    }
    const loops = this.li.all.filter((l) => l.blocks.every((b) => blockSet.has(b)));
    // A loop partially inside means the region cuts a loop: only allowed when the region is inside its body.
    for (const l of this.li.all) {
      const inside = l.blocks.filter((b) => blockSet.has(b)).length;
      if (inside > 0 && inside < l.blocks.length && blockSet.has(l.header)) return undefined;
    }
    const blocks = this.dt.order.filter((b) => blockSet.has(b));
    return { entry, exit, blocks, blockSet, loops, forms: new Map() };
  }

  // ---- checks ----

  private check(r: Region): Issue[] {
    const issues: Issue[] = [];
    for (const l of r.loops) this.checkLoop(r, l, issues);
    for (const b of r.blocks) {
      const t = terminator(b);
      if (!t) continue;
      if (t.opcode === 'switch') {
        const x = this.se.getScev(t.operands[0]!);
        if (t.operands[0]!.type.kind !== 'int' || this.formOf(r, x) !== 'affine') {
          issues.push({ cause: 'complex-cfg', detail: `switch on a non-affine value in ${this.se.nameOf(b)}`, at: t });
        }
        for (const i of b.instructions) this.checkInstruction(r, i, issues);
        continue;
      }
      if (t.opcode === 'invoke' && this.errors.blocks.has(successors(b)[1]!)) {
        // Unwinding into an error block: the call itself is the issue (checkInstruction), not the CFG.
        for (const i of b.instructions) this.checkInstruction(r, i, issues);
        continue;
      }
      if (t.opcode !== 'br') {
        issues.push({ cause: 'complex-cfg', detail: `${t.opcode} in ${this.se.nameOf(b)}`, at: t });
        continue;
      }
      const loop = this.li.loopFor(b);
      const isLatch = loop !== undefined && r.loops.includes(loop) && loop.latch === b;
      if (t.operands.length === 3 && !isLatch && t.operands[1] !== t.operands[2]) {
        this.checkCondition(r, t.operands[0]!, t, issues, successors(b).some((s) => this.errors.blocks.has(s)));
      }
      for (const i of b.instructions) this.checkInstruction(r, i, issues);
    }
    const errno = mathErrnoIssue(r.blocks, this.module);
    if (errno) issues.push({ cause: 'function-call', detail: errno.detail, at: errno.at });
    if (issues.length > 0) return issues;
    // Only now (all conditions affine) can the domains be built; they must stay small.
    const domains = new DomainBuilder(this.se, this.li, this.dt, r);
    for (const b of r.blocks) {
      const size = domains.domainOf(b).length;
      if (size > maxDnfSize) {
        issues.push({ cause: 'complex-cfg', detail: `the conditions reaching ${this.se.nameOf(b)} have ${size} cases`, at: b });
        break;
      }
    }
    return issues;
  }

  private checkLoop(r: Region, l: Loop, issues: Issue[]): void {
    const exit = this.se.loopExit(l);
    const at = l.latch ? terminator(l.latch)! : l.header;
    if (!('backedgeTakenCount' in exit)) {
      issues.push({ cause: exit.cause, detail: exit.detail, at });
      return;
    }
    const form = this.formOf(r, exit.backedgeTakenCount);
    if (form !== 'affine') {
      issues.push({ cause: 'non-affine-loop-bound', detail: `trip count of ${l.headerName} is ${describe(exit.backedgeTakenCount)}`, at });
    }
  }

  /**
   * A branch condition: and/or (also as `select`) of integer comparisons with affine sides.
   * A comparison of pointers is a run-time alias check -O3 inserted (loop versioning): `aliasing`.
   */
  private checkCondition(r: Region, cond: Value, at: Instruction, issues: Issue[], toErrorBlock = false): void {
    if (cond.kind === 'const-int') return;
    if (cond.kind !== 'instruction') {
      issues.push({ cause: 'complex-cfg', detail: `branch on ${this.se.nameOf(cond)}, not a comparison`, at });
      return;
    }
    if (cond.opcode === 'and' || cond.opcode === 'or' || isSelectAndOr(cond)) {
      for (const o of cond.operands) {
        if (o.type.kind === 'int' && o.type.bits === 1) this.checkCondition(r, o, at, issues, toErrorBlock);
      }
      return;
    }
    if (cond.opcode === 'icmp' && cond.operands[0]!.type.kind === 'ptr') {
      issues.push({ cause: 'aliasing', detail: `branch on a run-time alias check ${this.se.nameOf(cond)} (pointer comparison)`, at });
      return;
    }
    if (cond.opcode === 'icmp' && cond.operands[0]!.type.kind === 'int') {
      this.checkComparison(r, cond, at, issues, toErrorBlock);
      return;
    }
    issues.push({ cause: 'complex-cfg', detail: `data-dependent branch: condition ${this.se.nameOf(cond)} (${cond.opcode}) is not an integer comparison`, at });
  }

  /**
   * `branch` is where the comparison decides: its facts are the ones that hold there. An unsigned
   * comparison on a branch into an error block (a bounds check against a size read from memory)
   * need not be known non-negative: the run-time check reads its operands as signed values only
   * where they are, over every iteration the branch may run (polyhedral/describe.ts, ErrorEdge).
   */
  private checkComparison(r: Region, icmp: Instruction, branch: Instruction, issues: Issue[], toErrorBlock = false): void {
    const lhs = this.se.getScev(icmp.operands[0]!);
    const rhs = this.se.getScev(icmp.operands[1]!);
    for (const side of [lhs, rhs]) {
      if (this.formOf(r, side) !== 'affine') {
        // On data computed in the region: data-dependent control flow. Otherwise a non-affine
        // function of counters and parameters, typically the guard of a loop with such a bound.
        const dataDependent = [...subExpressions(side)].some((e) => e.kind === ScevKind.Unknown && this.readsMemory(r, e.value as Value, new Set()));
        issues.push(dataDependent
          ? { cause: 'complex-cfg', detail: `data-dependent branch condition: ${describe(side)}`, at: icmp }
          : { cause: 'non-affine-loop-bound', detail: `non-affine branch condition: ${describe(side)}`, at: icmp });
        return;
      }
    }
    const pred = icmp.predicate as IntPredicate;
    if (isUnsignedPredicate(pred) && !toErrorBlock) {
      const facts = this.se.factsAt(branch.parent!);
      if (!this.nonNegative(lhs, facts) || !this.nonNegative(rhs, facts)) {
        issues.push({ cause: 'unsigned-comparison', detail: `${pred} of ${describe(lhs)} and ${describe(rhs)}, not known non-negative`, at: icmp });
      }
    }
  }

  /** True when `v` is computed in the region from a load or a call (data, not counters). */
  private readsMemory(r: Region, v: Value, seen: Set<Value>): boolean {
    if (v.kind !== 'instruction' || !v.parent || !r.blockSet.has(v.parent) || seen.has(v)) return false;
    seen.add(v);
    if (v.opcode === 'load' || v.opcode === 'call') return true;
    return v.operands.some((o) => this.readsMemory(r, o, seen));
  }

  /** Non-negative from facts, or an add recurrence starting non-negative and counting up without wrap. */
  private nonNegative(s: Scev, facts: Facts): boolean {
    if (isKnownNonNegative(s, facts)) return true;
    if (s.kind === ScevKind.AddRec && s.operands.length === 2) {
      return this.nonNegative(s.operands[0]!, facts) && isKnownNonNegative(s.operands[1]!, facts) && (s.flags !== 0);
    }
    return false;
  }

  /** `r` undefined: only the checks that do not depend on the region (loads and stores are skipped). */
  private checkInstruction(r: Region | undefined, i: Instruction, issues: Issue[]): void {
    switch (i.opcode) {
      case 'load':
      case 'store': {
        if (i.flags & InstFlag.Volatile || i.atomic) {
          issues.push({ cause: 'other', detail: `volatile or atomic ${i.opcode}`, at: i });
          return;
        }
        if (!r) return;
        const access = this.analyzeAccess(r, i);
        if ('cause' in access) issues.push({ ...access, at: i });
        return;
      }
      case 'call': {
        const callee = calledFunction(i);
        if (!callee) {
          issues.push({ cause: 'function-call', detail: 'indirect call', at: i });
          return;
        }
        if (callee.name.startsWith('llvm.')) {
          if (this.options.memset && /^llvm\.memset\./.test(callee.name)) {
            if (!r) return;
            const access = this.analyzeMemset(r, i);
            if ('cause' in access) issues.push({ ...access, at: i });
            return;
          }
          if (/^llvm\.(mem(cpy|move|set)|stack|va_)/.test(callee.name)) {
            issues.push({ cause: 'function-call', detail: `call to @${callee.name}`, at: i });
          }
          return;
        }
        if (!this.isPure(i) && !isMathCall(i, this.module)) issues.push({ cause: 'function-call', detail: `call to @${callee.name}`, at: i });
        return;
      }
      case 'invoke': {
        // A call that may throw: the fast path could not keep where the exception leaves.
        const callee = calledFunction(i);
        issues.push({ cause: 'function-call', detail: callee ? `invoke of @${callee.name} (may throw)` : 'invoke in the region', at: i });
        return;
      }
      case 'callbr':
        issues.push({ cause: 'function-call', detail: `${i.opcode} in the region`, at: i });
        return;
      case 'alloca':
        issues.push({ cause: 'other', detail: 'alloca in the region', at: i });
        return;
      case 'br':
        if (i.metadata.some((m) => m.name === PROFILE_DISPATCH_METADATA)) issues.push({ cause: 'other', detail: 'a profile dispatch (--profile-use) in the region', at: i });
        return;
      case 'fence': case 'cmpxchg': case 'atomicrmw': case 'va_arg': case 'landingpad':
        issues.push({ cause: 'other', detail: `${i.opcode} in the region`, at: i });
        return;
      default:
        return;
    }
  }

  /**
   * Pure: readnone at the call site or on the callee; or readonly without pointer arguments
   * (a readonly call given an array could read what the SCoP writes, unseen by the model).
   */
  private isPure(call: Instruction): boolean {
    const attrs = callAttributes(call, this.module);
    if (attrs.has('readnone')) return true;
    return attrs.has('readonly') && callArgs(call).every((a) => a.type.kind !== 'ptr');
  }

  /** The base pointer and offset of a load or store, or why it is not an array access. */
  private analyzeAccess(r: Region, i: Instruction): ScopMemoryAccess | { cause: RejectionCause; detail: string } {
    const access = this.accessShape(i);
    if ('cause' in access) return access;
    const { split, base } = access;
    if (base.kind === 'instruction' && r.blockSet.has(base.parent!)) {
      return { cause: 'non-affine-access', detail: `base pointer ${this.se.nameOf(base)} is computed in the region` };
    }
    const form = this.formOf(r, split.offset);
    if (form === 'non-affine') return { cause: 'non-affine-access', detail: `offset ${describe(split.offset)} from ${this.se.nameOf(base)}` };
    if (access.dims === undefined) access.dims = this.gepDimensions(access.pointer, base) ?? null;
    const dims = access.dims ?? undefined;
    return {
      instruction: i,
      kind: i.opcode === 'load' ? 'read' : 'write',
      base,
      baseName: this.se.nameOf(base),
      elementBytes: allocSize(access.elementType),
      offset: split.offset,
      subscripts: dims?.subscripts,
      dimensionSizes: dims?.sizes,
      form,
    };
  }

  /**
   * True when some load or store of `r` has its base pointer or a value of its offset computed
   * in `r`: `analyzeAccess` would reject it (and `check` the region), known without the
   * region's other checks. Larger regions around code that is not a SCoP mostly fail this way,
   * and the search tries every region of an entry, largest first.
   */
  private accessRejects(r: Region): boolean {
    for (const b of r.blocks) {
      for (const i of this.memoryAccessesOf(b)) {
        const defs = this.accessDefinitions(i);
        if (defs === 'no base' || defs.some((d) => r.blockSet.has(d))) return true;
      }
    }
    return false;
  }

  /** The loads and stores of `b`, once per block. */
  private memoryAccessesOf(b: BasicBlock): readonly Instruction[] {
    let found = this.blockAccesses.get(b);
    if (!found) {
      found = b.instructions.filter((i) => i.opcode === 'load' || i.opcode === 'store');
      this.blockAccesses.set(b, found);
    }
    return found;
  }

  /** The blocks defining the base pointer and the values of the offset of a load or store (`no base`: it has none). */
  private accessDefinitions(i: Instruction): readonly BasicBlock[] | 'no base' {
    const shape = this.accessShape(i);
    if ('cause' in shape) return 'no base';
    if (shape.definitions === undefined) {
      const defs = new Set<BasicBlock>();
      if (shape.base.kind === 'instruction') defs.add(shape.base.parent!);
      for (const e of subExpressions(shape.split.offset)) {
        if (e.kind !== ScevKind.Unknown) continue;
        const v = e.value as Value;
        if (v.kind === 'instruction') defs.add(v.parent!);
      }
      shape.definitions = [...defs];
    }
    return shape.definitions;
  }

  /**
   * What a load or store accesses whatever the region: its pointer's base and byte offset (or
   * why it has none). Computed once per instruction: detection checks it in every candidate
   * region around it, largest first.
   */
  private accessShape(i: Instruction): AccessShape | { cause: RejectionCause; detail: string } {
    const known = this.shapes.get(i);
    if (known) return known;
    const pointer = i.opcode === 'load' ? i.operands[0]! : i.operands[1]!;
    const elementType = i.opcode === 'load' ? i.type : i.operands[0]!.type;
    const ptr = this.se.getScev(pointer);
    const split = this.se.pointerBase(ptr);
    const shape = split
      ? { pointer, elementType, split, base: split.base.value as Value }
      : { cause: 'non-affine-access' as const, detail: `no base pointer for ${describe(ptr)}` };
    this.shapes.set(i, shape);
    return shape;
  }

  /**
   * `llvm.memset(dest, value, length, volatile)` as a write of `length` bytes from `dest`
   * (Polly's ScopDetection::isValidIntrinsicInst and ScopBuilder::buildAccessMemIntrinsic):
   * the destination must be an array access like a store's, the length affine.
   */
  private analyzeMemset(r: Region, call: Instruction): ScopMemoryAccess | { cause: RejectionCause; detail: string } {
    const [dest, , length, isVolatile] = callArgs(call);
    if (!dest || !length || isVolatile?.kind !== 'const-int' || isVolatile.value !== 0n) {
      return { cause: 'other', detail: `volatile or malformed call to @${calledFunction(call)!.name}` };
    }
    const ptr = this.se.getScev(dest);
    const split = this.se.pointerBase(ptr);
    if (!split) return { cause: 'non-affine-access', detail: `no base pointer for ${describe(ptr)} (memset)` };
    const base = split.base.value as Value;
    if (base.kind === 'instruction' && r.blockSet.has(base.parent!)) {
      return { cause: 'non-affine-access', detail: `base pointer ${this.se.nameOf(base)} is computed in the region (memset)` };
    }
    const form = this.formOf(r, split.offset);
    if (form === 'non-affine') return { cause: 'non-affine-access', detail: `offset ${describe(split.offset)} from ${this.se.nameOf(base)} (memset)` };
    const lengthBytes = this.se.ctx.resize(this.se.getScev(length), 64, false);
    if (this.formOf(r, lengthBytes) !== 'affine') return { cause: 'non-affine-access', detail: `memset length ${describe(lengthBytes)} is not affine` };
    return {
      instruction: call,
      kind: 'write',
      base,
      baseName: this.se.nameOf(base),
      elementBytes: 1,
      offset: split.offset,
      subscripts: undefined,
      dimensionSizes: undefined,
      form,
      range: { lengthBytes },
    };
  }

  /** Subscripts from a GEP over constant-size arrays (`[100 x [200 x double]]`) straight on the base. */
  private gepDimensions(pointer: Value, base: Value): GepDimensions | undefined {
    let gep: Value = pointer;
    while (gep.kind === 'instruction' && gep.opcode === 'bitcast') gep = gep.operands[0]!;
    if ((gep.kind !== 'instruction' && gep.kind !== 'const-expr') || gep.opcode !== 'getelementptr' || gep.operands[0] !== base) return undefined;
    let t = gep.sourceElementType!;
    if (t.kind !== 'array') return undefined;
    const ctx = this.se.ctx;
    const idx = gep.operands.slice(1).map((v: Value) => ctx.resize(this.se.getScev(v), 64, true));
    if (idx.length < 2 || idx[0]!.kind !== ScevKind.Constant || idx[0].value !== 0n) return undefined;
    const sizes: Scev[] = [];
    const subscripts: Scev[] = [idx[1]!];
    for (let k = 2; k < idx.length; k++) {
      if (t.kind !== 'array') return undefined;
      t = t.element;
      if (t.kind !== 'array') return undefined;
      sizes.push(ctx.constant(BigInt(t.length), 64));
      subscripts.push(idx[k]!);
    }
    return { subscripts, sizes };
  }

  /**
   * Affine: every term is a constant times at most one loop counter, or a product of
   * parameters (Polly makes `n*m` one parameter). Polynomial: some term multiplies a
   * counter by parameters (linearized arrays). Non-affine: anything else, including
   * values computed inside the region.
   */
  formOf(r: Region, s: Scev): Form {
    const known = r.forms.get(s);
    if (known) return known;
    const form = this.computeForm(r, s);
    r.forms.set(s, form);
    return form;
  }

  private computeForm(r: Region, s: Scev): Form {
    if (s.kind === ScevKind.CouldNotCompute) return 'non-affine';
    for (const e of subExpressions(s)) {
      if (e.kind === ScevKind.Unknown) {
        const v = e.value as Value;
        if (v.kind === 'instruction' && r.blockSet.has(v.parent!)) return 'non-affine';
      }
      if (e.kind === ScevKind.AddRec && !r.loops.includes(e.loop as Loop)) {
        // A recurrence of a loop around the region is a parameter of it; others are not.
        const l = e.loop as Loop;
        if (!l.containsBlock(r.entry)) return 'non-affine';
      }
      if (e.kind === ScevKind.UDiv && (e.rhs.kind !== ScevKind.Constant || e.rhs.value <= 0n)) return 'non-affine';
      if (e.kind === ScevKind.UDiv && this.hasCounter(r, e.lhs) && !this.dividendNonNegative(r, e.lhs)) return 'non-affine';
    }
    // Casts are transparent (Polly assumes the value fits; the model records the assumption).
    // Floor divisions by constants are quasi-affine (isl's floor): their dividend must be affine,
    // and the division counts as a counter when the dividend varies in the region. Max and min
    // of affine operands are piecewise affine.
    const varying = new Set<Scev>();
    let bad = false;
    const hook = (e: Scev): Polynomial | undefined => {
      if (e.kind === ScevKind.SignExtend || e.kind === ScevKind.ZeroExtend || e.kind === ScevKind.Truncate) return toPolynomial(e.operand, hook);
      if (e.kind === ScevKind.SMax || e.kind === ScevKind.SMin || e.kind === ScevKind.UMax || e.kind === ScevKind.UMin) {
        // max/min of affine operands: piecewise affine, as isl writes it.
        if (e.operands.some((o) => this.formOf(r, o) !== 'affine')) bad = true;
        if (this.hasCounter(r, e)) varying.add(e);
        return { terms: [{ coefficient: 1n, factors: [{ kind: 'parameter', expr: e }] }], opaque: [] };
      }
      if (e.kind !== ScevKind.UDiv) return undefined;
      if (this.formOf(r, e.lhs) !== 'affine') bad = true;
      if (this.hasCounter(r, e.lhs)) varying.add(e);
      return { terms: [{ coefficient: 1n, factors: [{ kind: 'parameter', expr: e }] }], opaque: [] };
    };
    const p = toPolynomial(s, hook);
    if (bad) return 'non-affine';
    return polynomialForm(p, (l) => r.loops.includes(l as Loop), varying);
  }

  /**
   * A floor division reads as isl's floor only for a non-negative dividend: known from the
   * facts at the region entry, or because its polynomial has non-negative coefficients
   * over counters (>= 0) and parameters known non-negative.
   */
  private dividendNonNegative(r: Region, s: Scev): boolean {
    const facts = this.se.factsAt(r.entry);
    if (isKnownNonNegative(s, facts)) return true;
    const p = toPolynomial(s);
    if (p.opaque.length > 0) return false;
    return p.terms.every((t) => t.coefficient >= 0n && t.factors.every((a) => a.kind === 'counter' || isKnownNonNegative(a.expr, facts)));
  }

  private hasCounter(r: Region, s: Scev): boolean {
    for (const e of subExpressions(s)) if (e.kind === ScevKind.AddRec && r.loops.includes(e.loop as Loop)) return true;
    return false;
  }

  // ---- building the result for a valid region ----

  private buildScop(r: Region): Scop {
    const scopLoops = new Map<Loop, ScopLoop>();
    const loopList: ScopLoop[] = [];
    for (const l of r.loops) {
      const exit = this.se.loopExit(l);
      if (!('backedgeTakenCount' in exit)) throw new Error('accepted region with an unknown trip count');
      const parent = l.parent ? scopLoops.get(l.parent) : undefined;
      const sl: ScopLoop = { loop: l, parent, depth: parent ? parent.depth + 1 : 1, backedgeTakenCount: exit.backedgeTakenCount, continueCondition: exit.continueCondition };
      scopLoops.set(l, sl);
      loopList.push(sl);
    }
    const loopsAround = (b: BasicBlock): ScopLoop[] => {
      const out: ScopLoop[] = [];
      for (let l = this.li.loopFor(b); l && scopLoops.has(l); l = l.parent) out.unshift(scopLoops.get(l)!);
      return out;
    };
    const scalars = this.scalarAccesses(r);
    const statements: ScopStatement[] = [];
    const domains = new DomainBuilder(this.se, this.li, this.dt, r);
    for (const b of r.blocks) {
      const accesses: ScopMemoryAccess[] = [];
      for (const i of b.instructions) {
        const memset = i.opcode === 'call' && this.options.memset === true && /^llvm\.memset\./.test(calledFunction(i)?.name ?? '');
        if (i.opcode !== 'load' && i.opcode !== 'store' && !memset) continue;
        const a = memset ? this.analyzeMemset(r, i) : this.analyzeAccess(r, i);
        if ('cause' in a) throw new Error('accepted region with a bad access');
        accesses.push(a);
      }
      const sc = scalars.get(b) ?? [];
      if (accesses.length === 0 && sc.length === 0) continue;
      const statement: ScopStatement = {
        name: `Stmt_${this.se.nameOf(b).slice(1).replace(/[^A-Za-z0-9_]/g, '_')}`,
        block: b,
        loops: loopsAround(b),
        domain: domains.domainOf(b),
        accesses,
        scalars: [...sc.filter((s) => s.access === 'read'), ...sc.filter((s) => s.access === 'write')],
      };
      statements.push(...(this.options.split === false ? [statement] : splitStatement(statement)));
    }
    const errorBlocks: ScopErrorEdge[] = [];
    for (const b of r.blocks) {
      const t = terminator(b);
      if (t?.opcode !== 'br' && t?.opcode !== 'switch') continue;
      for (const s of new Set(successors(b))) {
        if (this.errors.blocks.has(s)) errorBlocks.push({ from: b, block: s, loops: loopsAround(b), domain: domains.errorDomainOf(b, s) });
      }
    }
    // Arrays and alias pairs.
    const arrays: { base: Value; name: string; elementBytes: number }[] = [];
    const written = new Set<Value>();
    for (const st of statements) {
      for (const a of st.accesses) {
        if (!arrays.some((x) => x.base === a.base)) arrays.push({ base: a.base, name: a.baseName, elementBytes: a.elementBytes });
        if (a.kind === 'write') written.add(a.base);
      }
    }
    // A memset writes bytes: an array it shares with loads and stores has their element size.
    for (const [k, array] of arrays.entries()) {
      const typed = statements.flatMap((st) => st.accesses).find((a) => a.base === array.base && a.range === undefined);
      if (typed) arrays[k] = { ...array, elementBytes: typed.elementBytes };
    }
    const aliasPairs: AliasPair[] = [];
    for (let x = 0; x < arrays.length; x++) {
      for (let y = x + 1; y < arrays.length; y++) {
        const a = arrays[x]!.base;
        const b = arrays[y]!.base;
        if (!written.has(a) && !written.has(b)) continue;
        if (provablyDistinct(a, b)) continue;
        aliasPairs.push({ a, b, aName: arrays[x]!.name, bName: arrays[y]!.name });
      }
    }
    // Parameters: unknowns of bounds, conditions and offsets.
    const params = new Set<ScevUnknown>();
    const addParams = (s: Scev): void => {
      for (const e of subExpressions(s)) if (e.kind === ScevKind.Unknown && (e.value as Value).type.kind === 'int') params.add(e);
    };
    for (const l of loopList) addParams(l.backedgeTakenCount);
    for (const st of statements) {
      for (const a of st.accesses) {
        addParams(a.offset);
        if (a.range) addParams(a.range.lengthBytes);
      }
      for (const conj of st.domain) for (const c of conj) { addParams(c.lhs); addParams(c.rhs); }
    }
    // Values from before the region that the statements read (loads hoisted by LICM and the like).
    const invariant = new Set<Instruction>();
    for (const b of r.blocks) {
      for (const i of b.instructions) {
        for (const o of i.operands) {
          if (o.kind === 'instruction' && !r.blockSet.has(o.parent!) && o.opcode === 'load') invariant.add(o);
        }
      }
    }
    return {
      location: this.scopLocation(r),
      entry: r.entry,
      exit: r.exit,
      blocks: r.blocks,
      loops: loopList,
      depth: Math.max(0, ...loopList.map((l) => l.depth)),
      statements,
      parameters: [...params].sort(compareScev),
      arrays,
      aliasPairs,
      needsDelinearization: statements.some((s) => s.accesses.some((a) => a.form === 'polynomial')),
      invariantLoads: [...invariant],
      ...(errorBlocks.length > 0 ? { errorBlocks } : {}),
    };
  }

  /** True when the integer or pointer value is recomputed from counters and parameters (no scalar access needed). */
  private synthesizable(r: Region, v: Instruction): boolean {
    if (!this.se.isScevable(v)) return false;
    const s = this.se.getScev(v);
    if (s.kind === ScevKind.Unknown) return false;
    return this.formOf(r, s) !== 'non-affine' || (v.type.kind === 'ptr' && this.se.pointerBase(s) !== undefined && this.formOf(r, this.se.pointerBase(s)!.offset) !== 'non-affine');
  }

  /**
   * Scalar reads and writes per block: values crossing blocks, PHI incoming edges, and what
   * the code after the region uses (Polly's escaping values and exit PHIs, `escaping: true`):
   * a value used after the region is written by its block even when it is synthesizable,
   * so code generation can hand its last value to the code after the region.
   */
  private scalarAccesses(r: Region): Map<BasicBlock, ScopScalarAccess[]> {
    const out = new Map<BasicBlock, ScopScalarAccess[]>();
    const push = (b: BasicBlock, a: ScopScalarAccess): void => {
      const list = out.get(b) ?? [];
      if (!list.some((x) => x.kind === a.kind && x.access === a.access && x.value === a.value && x.incoming === a.incoming)) list.push(a);
      out.set(b, list);
    };
    const inRegion = (v: Value): v is Instruction => v.kind === 'instruction' && v.parent !== undefined && r.blockSet.has(v.parent);
    // A PHI's incoming value written in block `from`: a value of another block crosses into `from`.
    const pushPhiWrite = (from: BasicBlock, phi: Instruction, incoming: Value, escaping: boolean): void => {
      push(from, { kind: 'phi', access: 'write', value: phi, incoming, ...(escaping ? { escaping } : {}) });
      if (inRegion(incoming) && incoming.parent !== from && !this.recomputable(r, incoming)) {
        push(from, { kind: 'value', access: 'read', value: incoming });
        push(incoming.parent!, { kind: 'value', access: 'write', value: incoming });
      }
    };
    const isExitPhiEdge = (user: Instruction, index: number): boolean => user.opcode === 'phi' && !r.blockSet.has(user.parent!) && r.blockSet.has(user.incomingBlocks![index]!);
    for (const b of r.blocks) {
      for (const i of b.instructions) {
        if (i.type.kind === 'void') continue;
        // Uses in error blocks run only on the original path (the fast path assumes them away).
        const escapes = i.uses.some((u) => u.user.kind === 'instruction' && u.user.parent !== undefined && !r.blockSet.has(u.user.parent) && !this.errors.blocks.has(u.user.parent) && !isExitPhiEdge(u.user, u.index));
        if (escapes) push(b, { kind: 'value', access: 'write', value: i, escaping: true });
        if (this.recomputable(r, i)) continue;
        if (i.opcode === 'phi') {
          push(b, { kind: 'phi', access: 'read', value: i });
          i.operands.forEach((v, k) => pushPhiWrite(i.incomingBlocks![k]!, i, v, false));
        }
        let crosses = false;
        for (const u of i.uses) {
          const user = u.user;
          if (user.kind !== 'instruction' || !user.parent || !r.blockSet.has(user.parent)) continue;
          if (user.opcode === 'phi') continue; // phis inside are handled as PHI accesses
          if (user.parent !== b) {
            crosses = true;
            push(user.parent, { kind: 'value', access: 'read', value: i });
          }
        }
        if (crosses) push(b, { kind: 'value', access: 'write', value: i });
      }
    }
    // Exit PHIs (Polly's exit PHI writes, in the incoming blocks): unless every edge from the
    // region brings the same value from before it, each edge writes its value.
    for (const phi of r.exit.instructions) {
      if (phi.opcode !== 'phi') break;
      const edges = phi.operands.map((v, k) => [v, phi.incomingBlocks![k]!] as const).filter(([, from]) => r.blockSet.has(from));
      const first = edges[0]?.[0];
      if (first === undefined || edges.every(([v]) => !inRegion(v) && constantsEqual(v, first))) continue;
      for (const [v, from] of edges) pushPhiWrite(from, phi, v, true);
    }
    return out;
  }

  /** Integer values recomputed from counters and parameters, and comparisons (recomputed from their operands). */
  private recomputable(r: Region, i: Instruction): boolean {
    return i.opcode === 'icmp' || this.synthesizable(r, i);
  }

  /** Where a loop starts in the source: the first DILocation of its `!llvm.loop` node (as Polly reports). */
  private loopLocation(l: Loop): string | undefined {
    for (const latch of l.latches) {
      const ref = terminator(latch)?.metadata.find((a) => a.name === 'llvm.loop')?.ref;
      const node = ref ? resolveMetadata(this.module, ref) : undefined;
      if (!node) continue;
      for (const [key, value] of node.fields) {
        if (key === '0') continue;
        const loc = resolveMetadata(this.module, value);
        if (loc?.tag !== 'DILocation') continue;
        const file = this.fileOf(loc.fields.get('scope'));
        if (file) return `${file}:${loc.fields.get('line')}`;
      }
    }
    return undefined;
  }

  private fileOf(scopeRef: string | undefined): string | undefined {
    for (let depth = 0; scopeRef && depth < 32; depth++) {
      const scope = resolveMetadata(this.module, scopeRef);
      if (!scope) return undefined;
      const fileNode = scope.tag === 'DIFile' ? scope : scope.fields.get('file') ? resolveMetadata(this.module, scope.fields.get('file')!) : undefined;
      const name = fileNode?.fields.get('filename');
      if (name) return name.replace(/^"|"$/g, '');
      scopeRef = scope.fields.get('scope');
    }
    return undefined;
  }

  private scopLocation(r: Region): string {
    // A specialized copy (codegen/profile-specialize.ts: blocks `….specK…`) has its original's
    // debug locations: its SCoP is told apart in reports, counters and fast-path names.
    const copy = /\.spec(\d+)(\.|$)/.exec(r.entry.name ?? '');
    const loc = this.sourceLocation(r);
    return copy && !loc.includes(':%') ? `${loc} spec${copy[1]}` : loc;
  }

  private sourceLocation(r: Region): string {
    const outermost = r.loops.find((l) => !l.parent || !r.loops.includes(l.parent));
    const fromLoop = outermost ? this.loopLocation(outermost) : undefined;
    if (fromLoop) return fromLoop;
    for (const b of r.blocks) {
      for (const i of b.instructions) {
        const loc = debugLocationString(i, this.module);
        if (loc && !loc.endsWith(':0')) return loc;
      }
    }
    return `${this.fn.name}:${this.se.nameOf(r.entry)}`;
  }

  locationOf(at: Instruction | BasicBlock): string {
    const inst = at.kind === 'instruction' ? at : terminator(at);
    const loc = inst ? debugLocationString(inst, this.module) : undefined;
    if (loc && !loc.endsWith(':0')) return loc;
    const block = at.kind === 'instruction' ? at.parent! : at;
    return `${this.fn.name}:${this.se.nameOf(block)}`;
  }

}

/** Classifies a polynomial: `isCounter` tells which loops are counters in this region. */
function polynomialForm(p: Polynomial, isCounter: (l: unknown) => boolean, varying: ReadonlySet<Scev>): Form {
  if (p.opaque.length > 0) return 'non-affine';
  let form: Form = 'affine';
  for (const t of p.terms) {
    const counters = t.factors.filter((a) => (a.kind === 'counter' && isCounter(a.loop)) || (a.kind === 'parameter' && varying.has(a.expr))).length;
    const params = t.factors.length - counters;
    if (counters > 1) return 'non-affine';
    if (counters === 1 && params > 0) form = 'polynomial';
  }
  return form;
}

/** Distinct allocations (allocas, globals) and noalias arguments cannot overlap another base. */
function provablyDistinct(a: Value, b: Value): boolean {
  const isObject = (v: Value): boolean => v.kind === 'global' || (v.kind === 'instruction' && v.opcode === 'alloca');
  const isNoalias = (v: Value): boolean => v.kind === 'argument' && /\bnoalias\b/.test(v.attrs);
  if (isObject(a) && isObject(b)) return a !== b;
  return isNoalias(a) || isNoalias(b);
}

function describe(s: Scev): string {
  const text = printScev(s);
  return text.length > 120 ? text.slice(0, 117) + '...' : text;
}

export function detectScops(fn: IrFunction, am: FunctionAnalysisManager, options: ScopDetectionOptions = {}): ScopDetectionResult {
  return new Detector(fn, am, options).run();
}

export const scopDetectionAnalysis: AnalysisKey<ScopDetectionResult> = {
  name: 'scop-detection',
  compute: (fn, am) => detectScops(fn, am),
};

/** Detection that also accepts `llvm.memset` as a range write (`--scop-memset`); see ScopDetectionOptions. */
export const scopDetectionWithMemsetAnalysis: AnalysisKey<ScopDetectionResult> = {
  name: 'scop-detection-memset',
  compute: (fn, am) => detectScops(fn, am, { memset: true }),
};

/** The detection analysis the pass options select (`--scop-memset`, default off). */
export function scopDetectionFor(options: ReadonlyMap<string, string> | undefined): AnalysisKey<ScopDetectionResult> {
  const memset = options?.get('scop-memset');
  return memset !== undefined && memset !== 'false' && memset !== '0' ? scopDetectionWithMemsetAnalysis : scopDetectionAnalysis;
}
