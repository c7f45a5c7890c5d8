// The matrix-multiplication path of the schedule optimizer: a statement that computes
// C[i][j] ⊕= f(A[i][k], B[k][j], scalars) (up to transposition of the operands: gemm, the
// products of 2mm and 3mm, syrk, syr2k) in a permutable band of its three loops gets the loop
// structure of BLIS (Goto's algorithm; Low et al., "Analytical modeling is enough for
// high-performance BLIS", TOMS 2016) instead of the generic tiling:
//
//   jc (Nc) ─ kc (Kc) ─ ic (Mc)                       blocks: B's Kc x Nc in L3, A's Mc x Kc in L2
//     └ jr (Nr) ─ ir (Mr)                             one micro-tile of C
//         └ k ─ i (Mr, unrolled) ─ j (Nr, vectorized) the micro-kernel: Mr x Nr/lanes vector accumulators
//
// The micro-tiles whose Mr x Nr points all run are isolated (isl's `isolate` AST option), so
// the micro-kernel's i copies need no guards and its j loop has a constant trip count: opt
// vectorizes j, unrolls it, and LICM keeps the C micro-tile in registers across k (the fast
// path's noalias scopes say C is not A or B). Each C[i][j] still sums its k in order: every
// level is a tiling or a permutation of one permutable band, which keeps every dependence's
// order (the band's members have non-negative distances), so results stay bit for bit.
//
// An operand read across rows along j (syrk's and syr2k's A[j][k]: a column walk under the
// vectorized j) is packed: before each Mc loop (per Nc x Kc block of jc and kc) an extension
// statement copies the block's elements into a buffer laid out [k][j] (codegen/packing.ts),
// and the micro-kernel reads the buffer, stride 1 along j. Packing only copies values the SCoP
// never writes, so results stay bit for bit. Operands already stride 1 along j are read in place.
import { type Aff, AstLoopType, type Ctx, DimType, MultiAff, MultiUnionPwAff, Schedule, ScheduleNode, Set as IslSet, Space, UnionMap, UnionSetList, type UnionSet } from 'isl-wasm';
import { stride } from './interchange';
import { matmulRowsMark, rowsApart } from './matmul-rows';
import { foldedProduct } from './packed-product';
import type { ScopModel, ScopStatementModel } from '../polyhedral/model';
import { counterAff } from '../polyhedral/schedule';
import type { CacheSizes } from './tile-sizes';
import type { Plan } from './schedule-plan';

/** The statement's loop dimensions in the roles of C[i][j] += A[i][k] B[k][j]. */
export interface MatmulRoles {
  readonly i: number;
  readonly j: number;
  readonly k: number;
}

/**
 * Why the matmul path does not apply to `model`, if it does not: its sizes are parameters (VLA
 * code, sizes read at run time) and `parametric` (--matmul-parametric) is off. On parametric
 * sizes the full micro-tiles are a filter of their own (insertMatmulBands), within the codegen
 * quota, and their rows of C get alias scopes of their own (transform/matmul-rows.ts, which also
 * says which statements the path takes at parametric sizes): without them opt kept C's
 * micro-tile in memory (gemm 1000x1100x1200 of test/kernels: 0.33 s against 0.22 s for the
 * generic tiling; with them 0.15 s).
 */
export function matmulRefused(model: ScopModel, parametric: boolean): string | undefined {
  return model.context.dim(DimType.param) > 0 && !parametric ? 'parametric sizes' : undefined;
}

/** The BLIS sizes: micro-tile Mr x Nr, blocks Mc x Kc of A and Kc x Nc of B. */
export interface MatmulSizes {
  readonly mr: number;
  readonly nr: number;
  readonly mc: number;
  readonly kc: number;
  readonly nc: number;
  readonly why: string;
}

/** What the report and print<schedule> say about one statement on the matmul path. */
export interface MatmulInfo {
  readonly statement: string;
  /** The loop dimensions of the statement (0 outermost) that play i, j and k. */
  readonly roles: MatmulRoles;
  readonly sizes: MatmulSizes;
  /** Operands copied into contiguous buffers (the arrays' names). */
  readonly packed: readonly string[];
  /** The packed reads, for the code generator. */
  readonly packing: readonly PackedOperand[];
}

/** One packed read of a matmul statement: the copy statement the tree adds, and what it copies. */
export interface PackedOperand {
  /** The copy statement's tuple name in the schedule tree: Pack_<n>[row, k]. */
  readonly pack: string;
  /** B-like (invariant along i: copied per jc, kc block) or A-like (invariant along j: copied per jc, kc, ic block). */
  readonly operand: 'A' | 'B';
  /** The statement's dimension laid along the buffer's rows: j for a B-like operand, i for an A-like one. */
  readonly row: number;
  /** The matmul statement's tuple name. */
  readonly statement: string;
  /** Index of the packed read in the statement's `accesses`. */
  readonly access: number;
  readonly roles: MatmulRoles;
  /** The statement's ranges of `row` and k; undefined where they depend on the parameters (codegen/packing.ts computes them at run time). */
  readonly rowMin: number | undefined;
  readonly rowMax: number | undefined;
  readonly kMin: number | undefined;
  readonly kMax: number | undefined;
}

/**
 * The reads of `st` worth packing: B-like (invariant along i, moving along j and k) and not
 * stride 1 along j, and A-like (invariant along j) and not stride 1 along i (the micro-kernel's
 * Mr rows of A then share a line per k) when, over constant ranges, the copy can compute their
 * product with a constant factor once (transform/packed-product.ts: gemm's alpha * A[i][k]) or
 * with `packA` (all of them), of an array `st` does not write, loaded in the statement's own
 * block (over constant ranges, or ranges of the parameters that codegen computes at run time).
 * `first`: the number to name the first copy statement by.
 */
export function packedOperands(model: ScopModel, st: ScopStatementModel, roles: MatmulRoles, first: number, packA = false): PackedOperand[] {
  // Only st runs below its band, where the copies are: an array st does not write keeps its values from the copy to the reads.
  const written = new Set(st.accesses.filter((a) => a.kind === 'write').map((a) => a.array));
  const region = new Set(model.scop.blocks);
  const domain = st.domain.intersectParams(model.context);
  // At parametric sizes the context's bounds of the parameters (2^31 - 1 for an int) would read
  // as integer extents: a buffer sized by them overflowed, malloc refused it, and the fast path
  // silently ran the original code. There codegen computes the ranges at run time instead.
  const parametric = model.context.dim(DimType.param) > 0;
  const bound = (dim: number, max: boolean): number | undefined => {
    if (parametric) return undefined;
    const v = max ? domain.dimMaxVal(dim) : domain.dimMinVal(dim);
    return v.isInt() ? v.getNumSi() : undefined;
  };
  const [kMin, kMax] = [bound(roles.k, false), bound(roles.k, true)];
  const out: PackedOperand[] = [];
  st.accesses.forEach((a, n) => {
    if (a.kind !== 'read' || a.array.kind !== 'array' || a.scalar !== undefined || written.has(a.array)) return;
    if (a.instruction?.opcode !== 'load' || a.instruction.parent !== st.block) return;
    const bLike = stride(model, st, a, roles.i) === 'invariant';
    // A folded product packs A only over constant ranges: at run-time sizes, packing is opt-in (--matmul-parametric-pack).
    const fold = model.context.dim(DimType.param) === 0 && foldedProduct(a.instruction, region) !== undefined;
    if (!bLike && !((packA || fold) && stride(model, st, a, roles.j) === 'invariant')) return;
    const row = bLike ? roles.j : roles.i;
    const [rowMin, rowMax] = [bound(row, false), bound(row, true)];
    if (stride(model, st, a, row) === 'unit') return;
    out.push({ pack: `Pack_${first + out.length}`, operand: bLike ? 'B' : 'A', row, statement: st.name, access: n, roles, rowMin, rowMax, kMin, kMax });
  });
  return out;
}

/** The reads of `st` invariant along j (A-like: the ic x kc blocks every micro-panel of jr reads), packed or not. */
export function aLikeReads(model: ScopModel, st: ScopStatementModel, roles: MatmulRoles): number {
  return st.accesses.filter((a) => a.kind === 'read' && a.array.kind === 'array' && a.scalar === undefined && stride(model, st, a, roles.j) === 'invariant' && stride(model, st, a, roles.i) !== 'invariant').length;
}

/**
 * The roles of `st`'s loops when it is a matrix-multiplication statement, else undefined:
 * three loops; array accesses: one written element C (written once, or twice in DeLICM's
 * model), read back at the same place (the accumulation), invariant along one loop (k) and stride-1 along another (j); every other array
 * read moves along k and stays on one element along i or along j, at least one of each (A and
 * B, or A twice for syrk); no scalar written.
 */
export function matmulRoles(model: ScopModel, st: ScopStatementModel): MatmulRoles | undefined {
  if (st.loops.length !== 3) return undefined;
  const arrays = st.accesses.filter((a) => a.array.kind === 'array');
  if (st.accesses.some((a) => a.array.kind !== 'array' && a.kind === 'write')) return undefined;
  if (arrays.some((a) => a.certainty !== 'must')) return undefined;
  // C: every write, and the accumulation's read, touch one element (DeLICM's model of -O3's
  // register sum writes it twice: the store and the mapped PHI).
  const writes = arrays.filter((a) => a.kind === 'write');
  if (writes.length === 0) return undefined;
  const c = writes[0]!;
  const accumulated = arrays.filter((a) => a.kind === 'read' && a.array === c.array);
  const element = (a: (typeof arrays)[number]) => a.relation.intersectDomain(st.domain);
  if (accumulated.length === 0 || [...writes, ...accumulated].some((a) => a.array !== c.array || !element(a).isEqual(element(c)))) return undefined;
  const dims = [0, 1, 2];
  const along = (a: (typeof arrays)[number]) => dims.map((d) => stride(model, st, a, d));
  const cs = along(c);
  const k = dims.find((d) => cs[d] === 'invariant');
  const j = dims.find((d) => d !== k && cs[d] === 'unit');
  if (k === undefined || j === undefined) return undefined;
  const i = dims.find((d) => d !== k && d !== j)!;
  if (cs[i] === 'invariant' || cs[i] === 'none') return undefined;
  let aLike = 0;
  let bLike = 0;
  for (const r of arrays.filter((a) => a.kind === 'read' && a.array !== c.array)) {
    const s = along(r);
    if (s[k] === 'invariant' || s[k] === 'none') return undefined;
    const stillJ = s[j] === 'invariant';
    const stillI = s[i] === 'invariant';
    if (stillJ === stillI) return undefined;
    if (stillJ) aLike++;
    else bLike++;
  }
  return aLike > 0 && bLike > 0 ? { i, j, k } : undefined;
}

/**
 * BLIS's sizes from the vector registers and the caches. The micro-kernel holds Mr x Nr/lanes
 * accumulators, Nr/lanes vectors of B and one broadcast of A in the target's vector registers
 * (32 with AVX-512, else 16): Nr = 3 vectors and Mr = 8 with AVX-512 (24 + 3 + 1 of 32), Nr = 2
 * vectors and Mr = 6 else (12 + 2 + 1 of 16). B is read in place or from a [k][j] buffer, so its micro-panel
 * (Kc x Nr, rows far apart) stays in L1 while the ir loop walks all of A's block: Kc fills 3/4 of
 * L1 with it; A's block, Mc x Kc, fills L2; Nc, B's block in L3, a fixed multiple of Nr near
 * 2048. (gemm LARGE, A packed, CPU time of the kernel, best of 6, load ~25: Kc, Mc = 128, 512
 * 0.068 s; 256, 256 0.069 s; 384, 256 0.068 s; 128, 1024 0.074 s. But with Mc = 512, 3mm's
 * three products at LARGE (800 rows: two ic blocks) sent its AST over the codegen quota, 1.15M
 * operations, and it ran in the original order, 2.7x slower.)
 */
export function matmulSizes(caches: CacheSizes, vectorBytes: number, elementBytes: number, threads?: { readonly aBlocks: number }): MatmulSizes {
  const lanes = Math.max(1, Math.floor(vectorBytes / elementBytes));
  const registers = vectorBytes >= 64 ? 32 : 16;
  const vectors = registers >= 32 ? 3 : 2;
  const nr = vectors * lanes;
  const mr = Math.min(8, Math.floor((registers - vectors - 1) / vectors));
  const kc = Math.max(16, Math.floor((caches.l1 * 3) / 4 / (nr * elementBytes) / 8) * 8);
  // On threads (--parallel), every thread reads the whole Mc x Kc block of each A-like operand
  // from its own L2 once per micro-panel of jr, while the threads share the L3: the blocks
  // together take at most half of L2, leaving room for the C micro-tiles each jr panel streams
  // through. Filling L2 with one block, gemm's A (1024 x 128 doubles) was fetched again from L3
  // for each of the 45 jr panels on both threads at once.
  const aBytes = threads ? caches.l2 / 2 / Math.max(1, threads.aBlocks) : caches.l2;
  const mc = Math.max(mr, Math.floor(aBytes / (kc * elementBytes) / mr) * mr);
  const nc = nr * Math.max(1, Math.floor(2048 / nr));
  const why = `micro-tile ${mr} x ${nr} (${mr}x${vectors} accumulators of ${lanes} lanes in ${registers} vector registers), `
    + `Kc ${kc} (B's ${kc}x${nr} micro-panel: ${kc}x${nr}x${elementBytes} B <= 3/4 of L1 ${caches.l1 >> 10} KiB), Mc ${mc} (A's block: ${mc}x${kc}x${elementBytes} B <= `
    + `${threads ? `half of L2 ${caches.l2 >> 10} KiB${threads.aBlocks > 1 ? ` over ${threads.aBlocks} A-like operands` : ''}, on threads` : `L2 ${caches.l2 >> 10} KiB`}), Nc ${nc}`;
  return { mr, nr, mc, kc, nc, why };
}

/** Members of `mupa` in the order `order` (each an index into it). */
function permuted(mupa: MultiUnionPwAff, order: readonly number[]): MultiUnionPwAff {
  let out = mupa;
  order.forEach((from, to) => {
    out = out.setAt(to, mupa.getAt(from));
  });
  return out;
}

/** isl's tiling of `mupa` over `domain` by `sizes`: the tile loops' and the point loops' (shifted to start at 0) schedules. */
function tiled(model: ScopModel, domain: UnionSet, mupa: MultiUnionPwAff, sizes: readonly number[]): { tile: MultiUnionPwAff; point: MultiUnionPwAff } {
  const band = Schedule.fromDomain(domain).getRoot().child(0).insertPartialSchedule(mupa);
  const tile = band.bandTile(model.ctx.multiVal(band.bandGetSpace(), sizes));
  return { tile: tile.bandGetPartialSchedule(), point: tile.child(0).bandGetPartialSchedule() };
}

/** How the optimizer's tree builder marks one member: split it off and put the mark above it. */
export type MarkMembers = (node: ScheduleNode, marks: readonly string[]) => ScheduleNode;

/**
 * Inserts at `at` the BLIS structure for a permutable band `mupa` of one matmul statement whose
 * members run along the statement's dimensions `along` (member m moves dimension along[m]);
 * returns the node below the micro-kernel, where the band's child goes.
 * `markOf(member, level)`: the mark of a member of the band at the tile or point level.
 */
export function insertMatmulBands(
  model: ScopModel, at: ScheduleNode, mupa: MultiUnionPwAff, along: readonly number[], roles: MatmulRoles, sizes: MatmulSizes,
  markOf: (member: number, level: 'tile' | 'point') => string, split: MarkMembers, packing: readonly PackedOperand[] = [],
): ScheduleNode {
  const ctx = model.ctx;
  const domain = mupa.domain();
  const member = (dim: number): number => along.indexOf(dim);
  const [mi, mj, mk] = [member(roles.i), member(roles.j), member(roles.k)];
  // jc, kc, ic: the blocks.
  const blocks = tiled(model, domain, permuted(mupa, [mj, mk, mi]), [sizes.nc, sizes.kc, sizes.mc]);
  // [j, i, k] tiled by the micro-tile (k by Kc: the kc block's tile again) gives jr, ir and the
  // micro-kernel's points. Nc and Mc are multiples of Nr and Mr, so each block holds whole
  // micro-tiles. Tiled from the absolute j and i, not from the block's offsets: jr's and ir's
  // counters are then the micro-tile's first j and i, and the unrolled rows of C are i, i + 1,
  // ... of one value. Offsets from the block made each row `ic + ir + r`, which opt computes
  // once per row (as an `or`, the low bits being known 0); alias analysis then could not tell
  // the rows apart and LICM kept C's micro-tile in memory whenever ic ran more than one block
  // (gemm LARGE with Mc = 480: vfmadd with C loaded and stored per k, 2.4x slower). On
  // parametric sizes, where C's tile stays in memory anyway (matmulRefused), the offsets are
  // kept: tiled from the absolute i and j, gemm's AST ran over the codegen quota.
  const parametric = model.context.dim(DimType.param) > 0;
  const micro = parametric
    ? tiled(model, domain, permuted(blocks.point, [0, 2, 1]), [sizes.nr, sizes.mr, sizes.kc])
    : tiled(model, domain, permuted(mupa, [mj, mi, mk]), [sizes.nr, sizes.mr, sizes.kc]);
  let node = at.insertPartialSchedule(blocks.tile).bandSetPermutable(1);
  node = split(node, [markOf(mj, 'tile'), markOf(mk, 'tile'), markOf(mi, 'tile')]);
  // The copy statements of B-like operands before ic's mark: per jc, kc block, the block's
  // elements they read; those of A-like operands below ic: per jc, kc, ic block.
  // A copy's rows are rows of the packed buffer (j for a B-like operand, i for an A-like one),
  // written once each: under that loop's tile mark its row loop may run on threads (syr2k's
  // two copies ran serially between the teams of jr).
  for (const p of packing.filter((q) => q.operand === 'B')) node = packBefore(model, node.parent().parent(), p, markOf(mj, 'tile')).child(0).child(0);
  for (const p of packing.filter((q) => q.operand === 'A')) node = packBefore(model, node, p, markOf(mi, 'tile'));
  // jr, ir (and k's single tile) as one band over the micro-tiles, the micro-kernel below.
  const microTiles = (below: ScheduleNode): ScheduleNode => below.insertPartialSchedule(micro.tile).bandSetPermutable(1);
  const point = (m: number): MultiUnionPwAff => MultiUnionPwAff.fromUnionPwAff(micro.point.getAt(m));
  // jr's micro-panels of C are independent: with --parallel, the threads share them out (a team
  // per kc block when jc and ic run once), each micro-panel's k sum staying on one thread.
  // The micro-kernel: k, i (unrolled in full micro-tiles), j innermost, one band each under its mark.
  // Where isl's copies of i would be its loop body with i substituted, codegen unrolls the loop
  // on the AST instead (codegen/ast-unroll.ts, at about a third of the AST's isl operations).
  const ownUnroll = !parametric && copiesAreSubstitutions(model, permuted(mupa, [mj, mi, mk]), sizes.mr);
  const microKernel = (band: ScheduleNode, full: boolean, rows = false): ScheduleNode => {
    let n = band.insertMark(ctx.id(markOf(mj, 'tile'))).child(0).child(0);
    n = n.insertMark(ctx.id(markOf(mk, 'point'))).child(0).insertPartialSchedule(point(2)).child(0);
    if (rows) n = n.insertMark(ctx.id(matmulRowsMark)).child(0);
    n = n.insertMark(ctx.id(markOf(mi, 'point'))).child(0).insertPartialSchedule(point(1));
    if (full) n = ownUnroll ? n.insertMark(ctx.id(unrollMark)).child(0) : n.bandMemberSetAstLoopType(0, AstLoopType.unroll);
    return n.child(0).insertMark(ctx.id(markOf(mj, 'point'))).child(0).insertPartialSchedule(point(0)).child(0);
  };
  if (!parametric) {
    // Isolating the full micro-tiles generates the micro-kernel knowing it runs Mr x Nr points.
    node = microTiles(node);
    return microKernel(node.bandSetAstBuildOptions(fullMicroTiles(model, node, micro.point, sizes)), true);
  }
  // Parametric sizes: isl's AST of the isolated micro-tiles ran over the codegen quota (gemm of
  // test/kernels: 1.08M operations, its i copies guarded in the partial tiles), so the full
  // micro-tiles and the others are two filters of a sequence, and only the full ones unroll i.
  // Running them one after the other is legal: distinct micro-tiles write distinct elements of
  // C, and each element's k loop runs in order within its kc block in either filter.
  const full = fullMicroTileInstances(model, permuted(mupa, [mj, mk, mi]), sizes);
  const partial = model.domains.intersect(domain).subtract(full);
  node = node.insertSequence(UnionSetList.fromUnionSet(full).add(partial));
  const depth = node.getTreeDepth();
  // The unrolled rows of C apart for opt (transform/matmul-rows.ts), where the model says they are.
  const statement = model.statements.find((st) => !domain.intersect(st.domain.toUnionSet()).isEmpty());
  const rows = statement !== undefined && rowsApart(model, statement, domain, MultiUnionPwAff.fromUnionPwAff(mupa.getAt(mi)));
  node = microKernel(microTiles(node.child(0).child(0)), true, rows);
  while (node.getTreeDepth() > depth) node = node.parent();
  if (packing.length === 0) return microKernel(microTiles(node.child(1).child(0)), false);
  // With an operand packed, the partial micro-tiles (a triangle's diagonal, a rectangle's edges)
  // run the block's point loops i, k, j (blocks.point's members run j, k, i): tiled as
  // micro-tiles too they sent syrk's AST to 0.91M operations and test/kernels' syrk and syr2k to
  // 1.08M (over the quota), where the plain loops take 0.55M, 0.80M and 0.83M. Without packing
  // they stay micro-tiles: as plain loops they also brought uBLAS 2mm's AST within the quota
  // (1.12M -> 0.99M), but on the path its hottest micro-kernel loaded and stored C's tile on
  // every k and the program ran slower than with the generic tiling it gets over the quota.
  return split(node.child(1).child(0).insertPartialSchedule(permuted(blocks.point, [2, 1, 0])), [markOf(mi, 'point'), markOf(mk, 'point'), markOf(mj, 'point')]);
}

/**
 * Grafts before `at` the copy statement of `p`: { [prefix] -> Pack[j, k] } for the j, k the
 * statement's instances under each prefix read (isl scans Pack's j, k in order, k innermost
 * along the packed row). Returns the node at `at`'s place.
 */
function packBefore(model: ScopModel, at: ScheduleNode, p: PackedOperand, mark?: string): ScheduleNode {
  const st = model.statements.find((s) => s.name === p.statement)!;
  // { S[x..] -> Pack[x_row, x_k] }
  const toPack = MultiAff.fromAff(counterAff(st.domain, p.row)).flatRangeProduct(MultiAff.fromAff(counterAff(st.domain, p.roles.k))).setRangeTupleId(model.ctx.id(p.pack)).asMap().toUnionMap();
  const extension = at.getPrefixScheduleUnionMap().intersectDomain(st.domain.toUnionSet()).reverse().applyRange(toPack).coalesce();
  const grafted = at.graftBefore(ScheduleNode.fromExtension(extension));
  if (!mark) return grafted;
  // sequence > [..., filter > leaf (the copy), filter > at, ...]: the mark above the copy's leaf.
  const copy = grafted.parent().previousSibling().child(0).insertMark(model.ctx.id(mark));
  return copy.parent().nextSibling().child(0);
}

/** The mark above a micro-kernel's i band that codegen unrolls on the AST (codegen/ast-unroll.ts) rather than isl. */
export const unrollMark = 'tsopt_unroll';

/**
 * Whether isl's unrolled copies of the micro-kernel's i loop would be the loop's body with i
 * substituted and folded (what codegen/ast-unroll.ts makes), at constant sizes: the points
 * `jik` ([j, i, k] of the band's statement's instances) form a box, so no bound of the j and k
 * loops depends on i, and the box's i range starts and ends at micro-tile boundaries (the
 * micro-tiles count from 0), so every micro-tile runs i over 0 .. Mr - 1. Elsewhere (syrk's
 * triangle, 3mm's F of 900 rows by 8) isl's copies carry what its context knows of i (a bound
 * simplified, a guard), and isl unrolls. isl objects in the caller's scope.
 */
function copiesAreSubstitutions(model: ScopModel, jik: MultiUnionPwAff, mr: number): boolean {
  const points = UnionMap.fromMultiUnionPwAff(jik).intersectDomain(model.domains).range().asSet();
  const lo: number[] = [];
  const hi: number[] = [];
  for (let d = 0; d < points.dim(DimType.set); d++) {
    const min = points.dimMinVal(d);
    const max = points.dimMaxVal(d);
    if (!min.isInt() || !max.isInt()) return false;
    lo.push(min.getNumSi());
    hi.push(max.getNumSi());
  }
  if (lo[1]! % mr !== 0 || (hi[1]! + 1) % mr !== 0) return false;
  const space = points.getSpace();
  const box = IslSet.universe(space).lowerBoundMultiVal(model.ctx.multiVal(space, lo)).upperBoundMultiVal(model.ctx.multiVal(space, hi));
  return points.isEqual(box);
}

/**
 * The AST options of the micro-tile band `band` (jr, ir, 0): isolate its iterations whose
 * micro-tile runs its first and last i and its first and last j (`points`: the micro-kernel's
 * [j, i, k] offsets), the full tiles of a rectangle or a triangle. A tile isolated though not
 * full would still be correct (isl guards what it cannot prove), only slower.
 */
function fullMicroTiles(model: ScopModel, band: ScheduleNode, points: MultiUnionPwAff, sizes: MatmulSizes): UnionSet {
  const ctx = model.ctx;
  // { S[..] -> [[prefix] -> [band]] } over the statement's instances
  const where = band.getPrefixScheduleUnionMap().intersectDomain(model.domains).rangeProduct(band.bandGetPartialScheduleUnionMap());
  // { S[..] -> [j', i', k'] }: each instance's place in its micro-tile
  const place = UnionMap.fromMultiUnionPwAff(points);
  // The prefixes and band points of the instances at [j', i'] = [j, i] of their micro-tile
  const at = (j: number, i: number): UnionSet => {
    const offsets = IslSet.universe(anonymousSpace(ctx, 3)).fixSi(DimType.set, 1, i).fixSi(DimType.set, 0, j).toUnionSet();
    return where.intersectDomain(place.intersectRange(offsets).domain()).range();
  };
  const full = at(0, 0).intersect(at(sizes.nr - 1, sizes.mr - 1)).coalesce();
  return full.asSet().setTupleName('isolate').toUnionSet();
}

/**
 * The instances of the matmul statement in full micro-tiles, for parametric sizes. `jki`: the
 * band's schedule in the blocks' order [j, k, i]. The blocks and micro-tiles tile j and i from 0
 * and Nc, Mc are multiples of Nr, Mr, so an instance's micro-tile starts at j0 = Nr floor(j / Nr)
 * and i0 = Mr floor(i / Mr); it is full when its four corners are among the (j, i) pairs the
 * statement runs (for a convex set of pairs, all of it: a rectangle, syrk's triangle).
 */
function fullMicroTileInstances(model: ScopModel, jki: MultiUnionPwAff, sizes: MatmulSizes): UnionSet {
  const ctx = model.ctx;
  const schedule = UnionMap.fromMultiUnionPwAff(jki).intersectDomain(model.domains.intersect(jki.domain()));
  // [params] -> { [j, i] }: the (j, i) pairs some instance runs
  const pairs = schedule.range().asSet().projectOut(DimType.set, 1, 1).intersectParams(model.context).coalesce();
  const { nr, mr } = sizes;
  const x = anonymousSpace(ctx, 3).identityMultiAffOnDomain();
  const from = (x: Aff, size: number, offset: number): MultiAff => MultiAff.fromAff(x.scaleDownVal(ctx.val(size)).floor().scaleVal(ctx.val(size)).addConstantVal(ctx.val(offset)));
  // { [j, k, i] -> [nr floor(j / nr) + dj, mr floor(i / mr) + di] } onto the pairs
  const corner = (dj: number, di: number) => from(x.getAt(0), nr, dj).flatRangeProduct(from(x.getAt(2), mr, di)).asMap().intersectRange(pairs).domain();
  const inFull = [[0, 0], [0, mr - 1], [nr - 1, 0], [nr - 1, mr - 1]].map(([dj, di]) => corner(dj!, di!)).reduce((a, b) => a.intersect(b)).coalesce();
  return schedule.intersectRange(inFull.toUnionSet()).domain().coalesce();
}

type Band = Extract<Plan, { kind: 'band' }>;

/** The bands from `p` down while they follow one another, and the node below them. */
function bandChain(p: Plan): { bands: Band[]; below: Plan } {
  const bands: Band[] = [];
  let at = p;
  while (at.kind === 'band') {
    bands.push(at);
    at = at.child;
  }
  return { bands, below: at };
}

/** One schedule of the bands' members, outermost first, restricted to `instances`. */
function flat(bands: readonly Band[], instances: UnionSet): MultiUnionPwAff {
  return bands.map((b) => b.mupa.intersectDomain(instances)).reduce((a, b) => a.flatRangeProduct(b));
}

/**
 * Per member of `mupa` (a schedule of `instances`), whether the dependences among `instances`
 * keep it permutable (no negative distance in any member: all of them, or undefined) and
 * which members are coincident (distance 0 wherever the outer members' distances are 0).
 */
function memberDistances(model: ScopModel, ordered: UnionMap, mupa: MultiUnionPwAff, instances: UnionSet): boolean[] | undefined {
  const ctx = model.ctx;
  const n = mupa.size();
  const deps = ordered.intersectDomain(instances).intersectRange(instances);
  const schedule = UnionMap.fromMultiUnionPwAff(mupa);
  // { [x..] }: how far apart the two ends of each dependence run, member by member
  const distances = schedule.reverse().applyRange(deps).applyRange(schedule).deltas();
  const space = anonymousSpace(ctx, n);
  // { [x..] : x_0 = .. = x_(m-1) = 0 }
  const zeroUpTo = (m: number): UnionSet => Array.from({ length: m }, (_, y) => y).reduce((s, y) => s.fixSi(DimType.set, y, 0), IslSet.universe(space)).toUnionSet();
  if (!distances.isSubset(IslSet.universe(space).lowerBoundMultiVal(space.zeroMultiVal()).toUnionSet())) return undefined;
  return Array.from({ length: n }, (_, m) => {
    const uncarried = m === 0 ? distances : distances.intersect(zeroUpTo(m));
    return uncarried.isSubset(IslSet.universe(space).fixSi(DimType.set, m, 0).toUnionSet());
  });
}

/**
 * Takes each matrix-multiplication statement out of the bands it shares with other statements
 * (its initialization: 2mm's `tmp[i][j] = 0` fused over i and j with the k loop below), so its
 * three loops form one permutable band the matmul path can take:
 *
 *   bands i, j over {init, S} ─ sequence [init; S: band k]   ──►   sequence [init: bands i, j; S: band i, j, k]
 *
 * S runs after every other statement of the bands, which is legal when no dependence goes from
 * S to them; the new band is permutable when no dependence among S's instances has a negative
 * distance along it (its members' coincidence is computed the same way, and the other
 * statements' bands get theirs again without S).
 */
export function distributeMatmul(model: ScopModel, plan: Plan, ordered: UnionMap, takes: (st: ScopStatementModel) => boolean = () => true): Plan {
  if (plan.kind === 'leaf') return plan;
  if (plan.kind !== 'band') return { kind: plan.kind, children: plan.children.map((c) => ({ filter: c.filter, child: distributeMatmul(model, c.child, ordered, takes) })) };
  const { bands, below } = bandChain(plan);
  const rebuilt = (): Plan => bands.reduceRight<Plan>((child, b) => ({ ...b, child }), distributeMatmul(model, below, ordered, takes));
  if (below.kind !== 'sequence') return rebuilt();
  const all = bands[0]!.mupa.domain();
  for (const [n, c] of below.children.entries()) {
    const inFilter = model.statements.filter((s) => !c.filter.intersect(s.domain.toUnionSet()).isEmpty());
    const st = inFilter.length === 1 && inFilter[0]!.loops.length === 3 ? inFilter[0] : undefined;
    if (!st) continue;
    const inner = bandChain(c.child);
    if (inner.below.kind !== 'leaf' || inner.bands.length === 0) continue;
    const total = bands.reduce((k, b) => k + b.mupa.size(), 0) + inner.bands.reduce((k, b) => k + b.mupa.size(), 0);
    if (total !== 3 || !matmulRoles(model, st) || !takes(st)) continue;
    const mine = c.filter.intersect(st.domain.toUnionSet());
    const others = all.subtract(mine);
    // S last: nothing of the other statements may depend on it.
    if (!ordered.intersectDomain(mine).intersectRange(others).isEmpty()) continue;
    const merged = flat([...bands, ...inner.bands], mine);
    const coincident = memberDistances(model, ordered, merged, mine);
    if (!coincident) continue;
    const othersFlat = flat(bands, others);
    const othersCoincident = memberDistances(model, ordered, othersFlat, others);
    if (!othersCoincident) continue;
    // The other statements keep their bands (each member's coincidence without S) and the rest of the sequence.
    let k = 0;
    const othersBands = bands.map((b) => {
      const part = b.mupa.intersectDomain(others);
      const flags = Array.from({ length: b.mupa.size() }, () => othersCoincident[k++]!);
      return { ...b, mupa: part, coincident: flags };
    });
    const rest: Plan = { kind: 'sequence', children: below.children.filter((_, m) => m !== n).map((x) => ({ filter: x.filter, child: distributeMatmul(model, x.child, ordered, takes) })) };
    const othersPlan = othersBands.reduceRight<Plan>((child, b) => ({ ...b, child }), rest);
    const matmulPlan: Plan = { kind: 'band', mupa: merged, permutable: true, coincident, child: { kind: 'leaf' } };
    return { kind: 'sequence', children: [{ filter: others, child: othersPlan }, { filter: mine, child: matmulPlan }] };
  }
  return rebuilt();
}

/** The space [x_0, .., x_(n-1)] of unnamed points, without parameters. */
function anonymousSpace(ctx: Ctx, n: number): Space {
  return Space.unit(ctx).addUnnamedTupleUi(n);
}
