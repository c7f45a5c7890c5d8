// Linear memory access descriptors (Paek, Hoeflinger & Padua, "Efficient and precise array
// access analysis", TOPLAS 2002) of a SCoP's arrays, read off the polyhedral model.
//
// An array's LMAD is, per dimension (outermost first), the stride of its subscript in
// elements and the span the subscript covers, with the memory distance of one step of the
// subscript: the sizes of the dimensions inside it. In bytes the descriptor is
//   first + { sum_k elementBytes * stride_k * scale_k * z_k : 0 <= stride_k * z_k <= span_k },
// `first` the lowest address the SCoP touches (polyhedral/check-parts.ts computes it). Strides
// are normalized positive (isl's stride of a dimension is); a dimension holding one value has
// stride 0 and span 0. Every access of the SCoP to the array is coalesced into one
// descriptor: isl's stride is that of the union of the accessed elements (A[4i] and A[4i+2]
// give 2), and where the union has no common stride it is 1, which is the range.
import { DimType, Set as IslSet, valToBigInt } from 'isl-wasm';
import { ScevKind } from '../analysis/scev';
import { isPolynomial, type IndexExpression } from './affine';
import type { ScopArray, ScopModel } from './model';

export interface LmadDimension {
  /** Elements between the subscript's values (its values are an offset plus multiples of it); 0: one value. */
  readonly stride: bigint;
  /** Subscript max - min over the SCoP, as isl text over the parameters (`{ [(-2 + 2n)] }`); undefined when not asked for. */
  readonly span: string | undefined;
  /** Sizes of the dimensions inside this one (indices into `array.sizes`): one step of the subscript is their product in elements. */
  readonly inner: readonly number[];
}

export interface Lmad {
  readonly array: ScopArray;
  readonly dimensions: readonly LmadDimension[];
}

/**
 * [params] -> { MemRef_A[o0, ...] }: the elements of `array` the SCoP accesses, where the model's
 * assumptions hold (undefined: none). Without them, 32-bit unsigned subscripts stay modulo
 * 2^32 (detect-unsigned's in[i + k]), and their lexmin/lexmax costs millions of isl
 * operations and seconds in big-integer arithmetic; with them the modulo vanishes.
 */
export function accessedElements(model: ScopModel, array: ScopArray): IslSet | undefined {
  let touched: IslSet | undefined;
  for (const st of model.statements) {
    for (const acc of st.accesses) {
      if (acc.array !== array) continue;
      const range = acc.relation.intersectDomain(st.domain).range();
      touched = touched ? touched.union(range) : range;
    }
  }
  if (touched) touched = touched.intersectParams(model.assumedContext);
  return touched && !touched.isEmpty() ? touched : undefined;
}

/**
 * The LMAD of the elements `touched` of `array` (call inside `ctx.scope`). Spans cost isl
 * operations the run-time check does not need (fdtd-2d's flat int build: past the 1M quota of
 * the check and the AST), so only the printers ask for them.
 */
export function lmadOf(array: ScopArray, touched: IslSet, options: { spans?: boolean } = {}): Lmad {
  const n = touched.tupleDim();
  const dimensions: LmadDimension[] = [];
  for (let k = 0; k < n; k++) {
    // [params] -> { [ok] }: subscript k alone
    const alone = touched.projectOut(DimType.set, k + 1, n - k - 1).projectOut(DimType.set, 0, k);
    const fixed = alone.isSingleton();
    const span = options.spans ? alone.dimMax(0).sub(alone.dimMin(0)).gistParams(touched.params()).coalesce().toStr().replace(/^\[[^\]]*\] -> /, '') : undefined;
    // On the projection: in { [i, j] : j - i even } j alone takes every value, though isl
    // gives j of the whole set stride 2 with an offset of i.
    const stride = fixed ? 0n : strideOf(alone);
    const inner: number[] = [];
    for (let l = k; l < array.sizes.length; l++) inner.push(l);
    dimensions.push({ stride, span, inner });
  }
  return { array, dimensions };
}

/** Above this many pieces, `strideOf` does not ask isl for the stride of the whole union. */
const STRIDE_PIECES = 16;

/**
 * A stride of the one-dimensional `alone`: every element is a multiple of it away from any
 * other. isl's stride of a union of many pieces (a fully unrolled loop has one per copy) costs
 * far more time than the check's quota bounds (isl counts few of its operations). Above
 * STRIDE_PIECES pieces it is the gcd of each piece's stride and the distances from one piece's
 * sample to the others' when the set has no parameters (those samples are its elements), else
 * 1; either divides the set's stride, so the interleaving test built on it stays sound, only
 * less often applicable.
 */
function strideOf(alone: IslSet): bigint {
  if (alone.nBasicSet() <= STRIDE_PIECES) return valToBigInt(alone.getStride(0));
  if (alone.dim(DimType.param) > 0) return 1n;
  const pieces = alone.getBasicSetList().toArray().map((b) => IslSet.fromBasicSet(b));
  const at = (piece: IslSet): bigint => valToBigInt(piece.samplePoint().getMultiVal().getAt(0));
  const first = at(pieces[0]!);
  return pieces.reduce((g, piece) => gcd(gcd(g, valToBigInt(piece.getStride(0))), at(piece) - first), 0n) || 1n;
}

/** A size known at compile time (undefined: it depends on parameters). */
export function constantSize(e: IndexExpression): bigint | undefined {
  if (isPolynomial(e)) {
    if (e.opaque.length > 0) return undefined;
    if (e.terms.length === 0) return 0n;
    const t = e.terms[0]!;
    return e.terms.length === 1 && t.factors.length === 0 ? t.coefficient : undefined;
  }
  return e.kind === ScevKind.Constant ? e.value : undefined;
}

/** `%1: 8 bytes x [stride 2 (16 bytes) span { [(-2 + 2p_0)] }]`, for print<scops> and the report. */
export function formatLmad(l: Lmad): string {
  const e = BigInt(l.array.elementBytes);
  const dims = l.dimensions.map((d) => {
    const scale = d.inner.map((k) => constantSize(l.array.sizes[k]!));
    const bytes = scale.every((x) => x !== undefined) ? `${e * d.stride * scale.reduce((x, y) => x! * y!, 1n)!} bytes` : `${e * d.stride} bytes * ${d.inner.map((k) => l.array.shape[k + 1]).join(' * ')}`;
    return `stride ${d.stride} (${bytes})${d.span === undefined ? '' : ` span ${d.span}`}`;
  });
  return `${l.array.name}: ${l.array.elementBytes} bytes x [${dims.join('; ')}]`;
}

export function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/**
 * The interleaving test of two LMADs (the paper's §4.2, on the byte strides): a modulus S such
 * that every address of either array is its first address plus a multiple of S. Constant byte
 * strides give S as their gcd; a stride with a size only known at run time must be a multiple
 * of S, which the check tests (`divisible`: the product of those sizes of `array` is a multiple
 * of `modulus`). Then the elements never meet when the first addresses differ modulo S by at
 * least the one's element size and at most S minus the other's. Undefined where no S > 0 leaves
 * room for both elements (the range test alone decides).
 */
export interface StrideTest {
  readonly modulus: bigint;
  readonly divisible: readonly { readonly array: ScopArray; readonly sizes: readonly number[]; readonly modulus: bigint }[];
}

export function strideTest(a: Lmad, b: Lmad): StrideTest | undefined {
  let modulus = 0n;
  const symbolic: { array: ScopArray; bytes: bigint; sizes: number[] }[] = [];
  for (const l of [a, b]) {
    const e = BigInt(l.array.elementBytes);
    for (const d of l.dimensions) {
      if (d.stride === 0n) continue;
      let bytes = e * d.stride;
      const sizes: number[] = [];
      for (const k of d.inner) {
        const c = constantSize(l.array.sizes[k]!);
        if (c === undefined) sizes.push(k);
        else bytes *= c;
      }
      if (sizes.length === 0) modulus = gcd(modulus, bytes);
      else symbolic.push({ array: l.array, bytes, sizes });
    }
  }
  if (modulus < BigInt(a.array.elementBytes + b.array.elementBytes)) return undefined;
  const divisible: StrideTest['divisible'][number][] = [];
  for (const s of symbolic) {
    const m = modulus / gcd(modulus, s.bytes);
    // Arrays of one shape share their sizes' values: test each product once.
    const same = (d: StrideTest['divisible'][number]) => d.modulus === m && d.sizes.join() === s.sizes.join() && (d.array === s.array || d.array.shape.join() === s.array.shape.join());
    if (m !== 1n && !divisible.some(same)) divisible.push({ array: s.array, sizes: s.sizes, modulus: m });
  }
  return { modulus, divisible };
}
