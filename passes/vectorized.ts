// Which fast paths opt-14's vectorizers vectorized, read from the post pipeline's output.
// opt's remarks cannot say it: generated loops carry no debug location. The output itself can:
// versioning gives every fast-path loop a loop ID with a `tsopt.loop` marker naming the SCoP
// and the loop's depth, and every fast-path load and store an alias scope in a domain named
// after the SCoP (codegen/metadata.ts: fastPathName). opt keeps the marker when it adds
// `llvm.loop.isvectorized` or unroll hints, and its vectorizers copy the alias scopes onto the
// vector loads and stores they make; a loop unrolled away loses its ID but not its accesses'
// scopes. So a fast path is vectorized when a vector load or store carries one of its scopes,
// or a loop carrying its marker holds vector code. Two SCoPs of one function at one location
// (two nests on one source line with debug info) share a name and are reported together.
import { resolveMetadata, type Instruction, type Module, type Type } from '../ir';
import { unescape } from '../ir/lexer';
import { AnalysisManager } from '../analysis/analysis-manager';
import { loopAnalysis, type Loop } from '../analysis/loops';
import { FAST_PATH_LOOP_MARKER } from '../codegen/metadata';

export interface VectorizedLoop {
  /** Depth of the fast-path loop in its SCoP (0: outermost). */
  readonly depth: number;
  /** The most elements of a vector value in the loop's own blocks. */
  readonly width: number;
  /** `loop-vectorize` when opt marked the loop `llvm.loop.isvectorized`, else `slp` (vector code in a scalar loop). */
  readonly by: 'loop-vectorize' | 'slp';
}

export interface FastPathVectorization {
  readonly vectorized: boolean;
  /** Fast-path loops still in the output that hold vector code, by depth. */
  readonly vectorizedLoops: VectorizedLoop[];
  /** The distinct element counts of the fast path's vector values (loads, stores, loop code), ascending. */
  readonly vectorWidths: number[];
}

/** `!"text"` → text, else undefined. */
export function metadataString(operand: string | undefined): string | undefined {
  const m = /^!"(.*)"$/.exec(operand?.trim() ?? '');
  return m ? unescape(m[1]!) : undefined;
}

function vectorLength(t: Type): number {
  return t.kind === 'vector' && !t.scalable ? t.length : 0;
}

/** The widest vector the instruction makes or stores (0: none). */
export function vectorWidthOf(inst: Instruction): number {
  const stored = inst.opcode === 'store' ? vectorLength(inst.operands[0]!.type) : 0;
  return Math.max(vectorLength(inst.type), stored);
}

/** One operand node of a loop ID: its tag (`llvm.loop.isvectorized`, `tsopt.loop`, ..) and its fields by position. */
export interface LoopIdEntry {
  readonly tag: string;
  readonly fields: ReadonlyMap<string, string>;
}

/** The entries of the loop IDs on the latches of `loop` (opt's and tsopt's markers alike). */
export function loopIdEntries(m: Module, loop: Loop): LoopIdEntry[] {
  const refs = new Set(loop.latches.map((l) => l.instructions[l.instructions.length - 1]?.metadata.find((md) => md.name === 'llvm.loop')?.ref).filter((r): r is string => r !== undefined));
  const out: LoopIdEntry[] = [];
  for (const ref of refs) {
    for (const operand of resolveMetadata(m, ref)?.fields.values() ?? []) {
      const node = resolveMetadata(m, operand);
      const tag = metadataString(node?.fields.get('0'));
      if (tag !== undefined) out.push({ tag, fields: node!.fields });
    }
  }
  return out;
}

/** The fast path a loop's `tsopt.loop` marker names, with its depth and whether opt vectorized the loop. */
function loopMarker(m: Module, loop: Loop): { name: string; depth: number; isVectorized: boolean } | undefined {
  let marker: { name: string; depth: number } | undefined;
  let isVectorized = false;
  for (const { tag, fields } of loopIdEntries(m, loop)) {
    if (tag === 'llvm.loop.isvectorized') isVectorized = !/^i32 0$/.test(fields.get('1') ?? '');
    if (tag !== FAST_PATH_LOOP_MARKER) continue;
    const name = metadataString(fields.get('1'));
    const depth = /^i32 (\d+)$/.exec(fields.get('2') ?? '');
    if (name !== undefined && depth) marker = { name, depth: Number(depth[1]) };
  }
  return marker && { ...marker, isVectorized };
}

/** The names of the alias-scope domains of the scopes in `!alias.scope` list `ref`. */
export function scopeDomainNames(m: Module, ref: string, cache: Map<string, string[]>): string[] {
  let names = cache.get(ref);
  if (names) return names;
  names = [];
  for (const scopeRef of resolveMetadata(m, ref)?.fields.values() ?? []) {
    const scope = resolveMetadata(m, scopeRef);
    const domainRef = scope?.fields.get('1');
    const domain = domainRef !== undefined ? resolveMetadata(m, domainRef) : undefined;
    const name = metadataString(domain?.fields.get('1'));
    if (name !== undefined) names.push(name);
  }
  cache.set(ref, names);
  return names;
}

interface Found {
  loops: VectorizedLoop[];
  widths: Set<number>;
}

/** Per fast-path name (fastPathName), what opt vectorized of it in `m`; fast paths with nothing vectorized are absent. */
export function fastPathVectorization(m: Module): Map<string, FastPathVectorization> {
  const found = new Map<string, Found>();
  const entry = (name: string): Found => {
    let f = found.get(name);
    if (!f) found.set(name, (f = { loops: [], widths: new Set() }));
    return f;
  };
  const am = new AnalysisManager();
  const domainNames = new Map<string, string[]>();
  for (const fn of m.functions) {
    if (fn.isDeclaration) continue;
    for (const block of fn.blocks) {
      for (const inst of block.instructions) {
        const width = vectorWidthOf(inst);
        const scopes = width > 0 ? inst.metadata.find((md) => md.name === 'alias.scope') : undefined;
        if (scopes) for (const name of scopeDomainNames(m, scopes.ref, domainNames)) entry(name).widths.add(width);
      }
    }
    const info = am.get(loopAnalysis, fn);
    for (const loop of info.all) {
      const marker = loopMarker(m, loop);
      if (!marker) continue;
      let width = 0;
      for (const block of loop.blocks) {
        if (info.loopFor(block) !== loop) continue;
        for (const inst of block.instructions) width = Math.max(width, vectorWidthOf(inst));
      }
      if (width === 0) continue;
      const f = entry(marker.name);
      f.loops.push({ depth: marker.depth, width, by: marker.isVectorized ? 'loop-vectorize' : 'slp' });
      f.widths.add(width);
    }
    // One function at a time: the loop forests of a whole module at once weigh more than its IR.
    am.invalidate(fn, 'none');
  }
  return new Map([...found].map(([name, f]) => [name, {
    vectorized: true,
    vectorizedLoops: f.loops.sort((a, b) => a.depth - b.depth),
    vectorWidths: [...f.widths].sort((a, b) => a - b),
  }]));
}

/** What the report says of a fast path opt did not vectorize. */
export const notVectorized: FastPathVectorization = { vectorized: false, vectorizedLoops: [], vectorWidths: [] };
