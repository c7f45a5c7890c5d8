// A generator of random affine loop kernels in C, for the robustness tests: loop nests over
// arrays with random bounds (parameters, constants, triangular), strides, downward loops,
// conditions on counters, subscripts that are affine in the counters or linearized by hand
// (A[i*n + j], A[(i*n + j)*m + k]), scalar reductions, and a main that calls the kernel with
// distinct arrays, with two pointer arguments naming the same array, and with overlapping
// ones. Same seed, same program. Every subscript stays inside the arrays main allocates, for
// every size main passes, so the programs are free of undefined behaviour and their printed
// hashes (of every array's bytes) must not depend on the compiler.

/** mulberry32: a tiny deterministic PRNG. */
class Random {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Largest size main passes for a parameter; counters stay within [0, MAX_SIZE + 2]. */
const MAX_SIZE = 9;
const COUNTER_MAX = MAX_SIZE + 2;
const PARAMS = ['n', 'm'];

interface Loop {
  counter: string;
  header: string;
}

interface Ctx {
  rnd: Random;
  arrays: string[];
  elem: 'double' | 'unsigned';
  index: 'long' | 'int' | 'unsigned';
  /** Largest element index any subscript may use: the arrays hold ALLOC elements. */
  alloc: number;
  /**
   * Strided kernels: every subscript is `S * (subscript) + r`, r one residue per
   * array but now and then another, so arrays called with base offsets into one buffer
   * interleave or meet. Its choices come from a generator of their own.
   */
  stride?: { readonly rnd: Random; readonly s: number; readonly residue: ReadonlyMap<string, number> };
}

/** A loop over `counter` whose values stay in [0, COUNTER_MAX]; `outer` are enclosing counters. */
function makeLoop(ctx: Ctx, counter: string, outer: readonly string[]): Loop {
  const { rnd, index } = ctx;
  const param = rnd.pick(PARAMS);
  const prev = outer.length > 0 ? rnd.pick(outer) : undefined;
  const t = index;
  const kind = rnd.int(0, index === 'unsigned' ? 4 : 6);
  switch (kind) {
    case 0:
      return { counter, header: `for (${t} ${counter} = 0; ${counter} < ${param}; ${counter}++)` };
    case 1:
      return { counter, header: `for (${t} ${counter} = ${rnd.int(0, 2)}; ${counter} < ${param} + ${rnd.int(0, 2)}; ${counter} += ${rnd.int(1, 3)})` };
    case 2: // triangular
      return prev
        ? { counter, header: `for (${t} ${counter} = ${prev}; ${counter} < ${param}; ${counter}++)` }
        : { counter, header: `for (${t} ${counter} = 0; ${counter} < ${rnd.int(1, COUNTER_MAX)}; ${counter}++)` };
    case 3: // triangular, other side
      return prev
        ? { counter, header: `for (${t} ${counter} = 0; ${counter} <= ${prev} && ${counter} < ${param}; ${counter}++)` }
        : { counter, header: `for (${t} ${counter} = 1; ${counter} <= ${param}; ${counter}++)` };
    case 4: // constant bound
      return { counter, header: `for (${t} ${counter} = 0; ${counter} < ${rnd.int(1, COUNTER_MAX)}; ${counter}++)` };
    case 5: // downward
      return { counter, header: `for (${t} ${counter} = ${param} - 1; ${counter} >= 0; ${counter}--)` };
    default: // min of two bounds
      return { counter, header: `for (${t} ${counter} = 0; ${counter} < ${param} && ${counter} < ${rnd.int(2, COUNTER_MAX)}; ${counter} += ${rnd.int(1, 2)})` };
  }
}

/** A subscript over `counters` within [0, ctx.alloc). */
function makeSubscript(ctx: Ctx, counters: readonly string[]): string {
  const { rnd } = ctx;
  const cast = (c: string) => (ctx.index === 'unsigned' ? `(long)${c}` : c);
  if (counters.length >= 2 && rnd.chance(0.45)) {
    // linearized by hand: rows of length n (or m); the column may leave its row (a broken delinearization)
    const row = rnd.pick(PARAMS);
    const [a, b] = [rnd.pick(counters), rnd.pick(counters)];
    const off = rnd.int(0, 2);
    if (counters.length >= 3 && rnd.chance(0.4)) {
      const c = rnd.pick(counters);
      const inner = rnd.pick(PARAMS);
      return `(${cast(a)} * ${row} + ${cast(b)}) * ${inner} + ${cast(c)} + ${off}`;
    }
    return `${cast(a)} * ${row} + ${cast(b)} + ${off}`;
  }
  // affine: offset + sum of coefficient * counter, offset keeping it non-negative
  let lowest = 0;
  const terms: string[] = [];
  for (const c of counters) {
    const coef = rnd.pick([0, 0, 1, 1, 1, 2, -1, 3]);
    if (coef === 0) continue;
    terms.push(`${coef} * ${cast(c)}`);
    if (coef < 0) lowest += coef * COUNTER_MAX;
  }
  const off = -lowest + rnd.int(0, 3);
  return [String(off), ...terms].join(' + ');
}

/** Element counts the subscripts can reach: COUNTER_MAX and MAX_SIZE bound every term. */
function allocFor(): number {
  const c = COUNTER_MAX;
  const s = MAX_SIZE;
  return Math.max((c * s + c) * s + c + 3, 3 * c * 4 + 3 * c + 4) + 8;
}

function makeValue(ctx: Ctx, counters: readonly string[], reads: () => string): string {
  const { rnd } = ctx;
  if (ctx.elem === 'unsigned') {
    const parts = [reads(), ...(rnd.chance(0.6) ? [reads()] : []), ...(rnd.chance(0.5) ? [`(unsigned)(${rnd.pick(counters)})`] : [])];
    return parts.join(rnd.pick([' + ', ' ^ ', ' * 3u + ']));
  }
  // |c1| + |c2| <= 1 keeps values bounded however often a statement runs: no inf, no NaN
  const [c1, c2] = rnd.pick([[0.5, 0.5], [0.25, 0.75], [-0.5, 0.5], [0.5, -0.25], [1, 0]]);
  const extra = rnd.chance(0.5) ? ` + (double)(${rnd.pick(counters)}) * 0.125` : ' + 1.0';
  return `${c1} * ${reads()} + ${c2} * ${reads()}${extra}`;
}

function makeNest(ctx: Ctx, nestNo: number, lines: string[]): void {
  const { rnd } = ctx;
  const depth = rnd.int(1, 3);
  const loops: Loop[] = [];
  const names = ['i', 'j', 'k'].map((c) => `${c}${nestNo}`);
  for (let d = 0; d < depth; d++) loops.push(makeLoop(ctx, names[d], names.slice(0, d)));
  const counters = loops.map((l) => l.counter);
  const access = (cs: readonly string[]) => {
    const a = rnd.pick(ctx.arrays);
    const sub = makeSubscript(ctx, cs);
    const st = ctx.stride;
    if (!st) return `${a}[${sub}]`;
    const r = st.rnd.chance(0.1) ? st.rnd.int(0, st.s - 1) : st.residue.get(a)!;
    return `${a}[${st.s} * (${sub}) + ${r}]`;
  };
  const indent = (d: number) => '  '.repeat(d + 1);
  const reduction = depth >= 2 && rnd.chance(0.3);
  loops.forEach((l, d) => {
    lines.push(`${indent(d)}${l.header} {`);
    if (reduction && d === depth - 2) lines.push(`${indent(d + 1)}${ctx.elem} acc = 0;`);
  });
  const inner = indent(depth);
  const stmts = rnd.int(1, 2);
  for (let s = 0; s < stmts; s++) {
    const cond = rnd.chance(0.3)
      ? rnd.pick([
          `if (${rnd.pick(counters)} > ${rnd.pick(counters)}) `,
          `if ((${rnd.pick(counters)} + ${rnd.int(0, 1)}) % 2 == 0) `,
          `if (${rnd.pick(counters)} < ${rnd.pick(PARAMS)} - ${rnd.int(1, 3)}) `,
        ])
      : '';
    if (reduction && s === 0) {
      lines.push(`${inner}${cond}acc ${ctx.elem === 'double' ? '= 0.5 * acc + 0.5 *' : '+='} ${access(counters)};`);
    } else {
      lines.push(`${inner}${cond}${access(counters)} = ${makeValue(ctx, counters, () => access(counters))};`);
    }
  }
  for (let d = depth - 1; d >= 0; d--) {
    if (reduction && d === depth - 2) lines.push(`${indent(d + 1)}${access(counters.slice(0, d + 1))} = acc;`);
    lines.push(`${indent(d)}}`);
  }
}

export interface GeneratedKernel {
  readonly seed: number;
  /** kernel.c: only the kernel, the file that goes through tsopt. */
  readonly kernel: string;
  /** main.c: allocation, the calls and the hashes, always built by clang -O3 alone. */
  readonly main: string;
}

/**
 * The C program for `seed`, in two files so that tsopt's work is the kernel alone: a `kernel`
 * function, and a main that calls it several ways and prints hashes.
 */
export function generateKernel(seed: number, options: { strided?: boolean } = {}): GeneratedKernel {
  const rnd = new Random(seed * 7919 + 17);
  const nArrays = rnd.int(2, 3);
  const arrays = ['A', 'B', 'C'].slice(0, nArrays);
  // The strided variant draws from its own generator: the plain kernel of a seed stays the same.
  const srnd = new Random(seed * 104729 + 3);
  const s = srnd.int(2, 3);
  const stride = options.strided ? { rnd: srnd, s, residue: new Map(arrays.map((a) => [a, srnd.int(0, s - 1)])) } : undefined;
  const ctx: Ctx = {
    rnd,
    arrays,
    elem: rnd.chance(0.7) ? 'double' : 'unsigned',
    index: rnd.pick(['long', 'long', 'int', 'unsigned'] as const),
    alloc: stride ? s * allocFor() + s : allocFor(),
    stride,
  };
  const body: string[] = [];
  const nests = rnd.int(1, 3);
  for (let k = 0; k < nests; k++) makeNest(ctx, k, body);
  const ptrs = ctx.arrays.map((a) => `${ctx.elem} *${a}`).join(', ');
  const sizes = Array.from({ length: 3 }, () => [rnd.int(0, MAX_SIZE), rnd.int(0, MAX_SIZE)]);
  sizes[0] = [MAX_SIZE, rnd.int(MAX_SIZE - 3, MAX_SIZE)];
  const calls = [
    ctx.arrays.map((_, i) => `buf[${i}]`), // distinct
    ctx.arrays.map((_, i) => `buf[${i === nArrays - 1 ? 0 : i}]`), // last argument aliases the first
    ctx.arrays.map((_, i) => `buf[0] + ${i * rnd.int(1, 7)}`), // overlapping windows of one array
  ];
  // Strided: twice more into one buffer at random base offsets below two strides, interleaving or meeting.
  if (stride) for (let c = 0; c < 2; c++) calls.push(ctx.arrays.map(() => `buf[0] + ${srnd.int(0, 2 * stride.s - 1)}`));
  const idx = ctx.index;
  const signature = `void kernel(${idx} n, ${idx} m, ${ptrs})`;
  const kernel = `// tsopt robustness kernel, seed ${seed}${stride ? ' strided' : ''} (test/robustness/loopgen.ts); main.c calls it
${signature} {
${body.join('\n')}
}
`;
  const main = `// main of tsopt robustness kernel ${seed} (test/robustness/loopgen.ts)
#include <stdio.h>
#include <stdlib.h>

#define ALLOC ${ctx.alloc + 8 * nArrays}
${signature};

static volatile int sizes[${sizes.length}][2] = {${sizes.map((s) => `{${s[0]}, ${s[1]}}`).join(', ')}};

static unsigned long long hash(const void *p, size_t bytes) {
  const unsigned char *b = p;
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

int main(void) {
  ${ctx.elem} *buf[3];
  for (int a = 0; a < 3; a++) buf[a] = malloc(sizeof(${ctx.elem}) * ALLOC);
  for (int call = 0; call < ${calls.length}; call++) {
    for (int s = 0; s < ${sizes.length}; s++) {
      for (int a = 0; a < 3; a++)
        for (int e = 0; e < ALLOC; e++) buf[a][e] = (${ctx.elem})((e * 7 + a * 13 + s) % 23)${ctx.elem === 'double' ? ' * 0.25' : ''};
      ${idx} n = sizes[s][0], m = sizes[s][1];
      switch (call) {
${calls.map((args, c) => `        case ${c}: kernel(n, m, ${args.join(', ')}); break;`).join('\n')}
      }
      printf("call %d sizes %d: %016llx %016llx %016llx\\n", call, s, hash(buf[0], sizeof(${ctx.elem}) * ALLOC),
             hash(buf[1], sizeof(${ctx.elem}) * ALLOC), hash(buf[2], sizeof(${ctx.elem}) * ALLOC));
    }
  }
  return 0;
}
`;
  return { seed, kernel, main };
}
