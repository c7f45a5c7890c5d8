// The report's C text of a run-time check is the condition the IR computes (issue 18: a [P+α]
// size printed as `(Q + 1) * 2 + R` for `(Q + 1) * (2 + R)`). For every versioned SCoP of
// the kernel functions below, the C text of `runtimeCheck` is parsed (C precedence, `2^k` the
// report's power of two) and evaluated exactly, and the check's i1 in tsopt's IR is
// interpreted, at random parameter values and array addresses: both must agree every time,
// and both outcomes must occur.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { calledFunction, parseModule, type Instruction, type IntegerType, type IrFunction, type Value } from '../../ir';
import { compileToIr, kernelsDir, repoRoot, runOk, tempDir } from '../support/tools';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const work = tempDir('tsopt-check-text-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// ---- the IR side: the values the check computes from the function's arguments
function evalIr(v: Value, args: ReadonlyMap<string, bigint>, memo: Map<Value, bigint>): bigint {
  if (v.kind === 'const-int') return v.value;
  if (v.kind === 'argument') {
    const x = args.get(v.name ?? '');
    if (x === undefined) throw new Error(`no value for argument %${v.name}`);
    return x;
  }
  if (v.kind !== 'instruction') throw new Error(`cannot evaluate a ${v.kind}`);
  const known = memo.get(v);
  if (known !== undefined) return known;
  const i: Instruction = v;
  const bits = (x: Value) => (x.type as IntegerType).bits;
  const ops = () => i.operands.map((o) => evalIr(o, args, memo));
  const w = i.type.kind === 'int' ? (i.type as IntegerType).bits : 64;
  const u = (x: bigint, n: number) => BigInt.asUintN(n, x);
  let r: bigint;
  switch (i.opcode) {
    case 'add': { const [a, b] = ops(); r = a! + b!; break; }
    case 'sub': { const [a, b] = ops(); r = a! - b!; break; }
    case 'mul': { const [a, b] = ops(); r = a! * b!; break; }
    case 'sdiv': { const [a, b] = ops(); r = a! / b!; break; }
    case 'srem': { const [a, b] = ops(); r = a! % b!; break; }
    case 'udiv': { const [a, b] = ops(); r = u(a!, w) / u(b!, w); break; }
    case 'urem': { const [a, b] = ops(); r = u(a!, w) % u(b!, w); break; }
    case 'shl': { const [a, b] = ops(); r = a! << b!; break; }
    case 'ashr': { const [a, b] = ops(); r = a! >> b!; break; }
    case 'lshr': { const [a, b] = ops(); r = u(a!, w) >> b!; break; }
    case 'and': { const [a, b] = ops(); r = u(a!, w) & u(b!, w); break; }
    case 'or': { const [a, b] = ops(); r = u(a!, w) | u(b!, w); break; }
    case 'xor': { const [a, b] = ops(); r = u(a!, w) ^ u(b!, w); break; }
    case 'sext': case 'ptrtoint': case 'freeze': r = ops()[0]!; break;
    case 'zext': r = u(ops()[0]!, bits(i.operands[0]!)); break;
    case 'trunc': r = ops()[0]!; break;
    case 'select': { const [c, a, b] = ops(); r = c !== 0n ? a! : b!; break; }
    case 'icmp': {
      const [a, b] = ops();
      const n = bits(i.operands[0]!);
      const p = i.predicate!;
      const [x, y] = p.startsWith('u') ? [u(a!, n), u(b!, n)] : [a!, b!];
      r = BigInt({ eq: x === y, ne: x !== y, slt: x < y, sle: x <= y, sgt: x > y, sge: x >= y, ult: x < y, ule: x <= y, ugt: x > y, uge: x >= y }[p as string]! ? 1 : 0);
      break;
    }
    case 'call': {
      const name = calledFunction(i)?.name ?? '';
      const [a, b] = i.operands.slice(1).map((o) => evalIr(o, args, memo));
      if (/^llvm\.smax\./.test(name)) r = a! > b! ? a! : b!;
      else if (/^llvm\.smin\./.test(name)) r = a! < b! ? a! : b!;
      else throw new Error(`cannot evaluate a call to ${name}`);
      break;
    }
    default: throw new Error(`cannot evaluate ${i.opcode}`);
  }
  r = BigInt.asIntN(w, r);
  memo.set(v, r);
  return r;
}

// ---- the C side: a C expression parser with the report's `2^k`
type Env = ReadonlyMap<string, bigint>;
function evalC(text: string, env: Env): bigint {
  const tokens = text.match(/\d+|[A-Za-z_][A-Za-z0-9_]*|&&|\|\||<=|>=|==|!=|<<|>>|[-+*/%()<>!?:,^]/g) ?? [];
  if (tokens.join('') !== text.replace(/\s+/g, '')) throw new Error(`unexpected characters in ${text}`);
  let pos = 0;
  const peek = () => tokens[pos];
  const take = (t?: string) => {
    const x = tokens[pos++];
    if (t !== undefined && x !== t) throw new Error(`expected ${t} at token ${pos - 1} of ${text}, got ${x}`);
    return x!;
  };
  const floorDiv = (a: bigint, b: bigint) => (a % b !== 0n && (a < 0n) !== (b < 0n) ? a / b - 1n : a / b);
  const b01 = (x: boolean) => (x ? 1n : 0n);
  const levels: string[][] = [['||'], ['&&'], ['==', '!='], ['<', '<=', '>', '>='], ['<<', '>>'], ['+', '-'], ['*', '/', '%']];
  const apply = (op: string, a: bigint, b: bigint): bigint => {
    switch (op) {
      case '||': return b01(a !== 0n || b !== 0n);
      case '&&': return b01(a !== 0n && b !== 0n);
      case '==': return b01(a === b);
      case '!=': return b01(a !== b);
      case '<': return b01(a < b);
      case '<=': return b01(a <= b);
      case '>': return b01(a > b);
      case '>=': return b01(a >= b);
      case '<<': return a << b;
      case '>>': return a >> b;
      case '+': return a + b;
      case '-': return a - b;
      case '*': return a * b;
      case '/': return a / b; // C: towards zero, as BigInt
      default: return a % b; // C: the sign of the dividend, as BigInt
    }
  };
  const ternary = (): bigint => {
    const c = binary(0);
    if (peek() !== '?') return c;
    take('?');
    const a = ternary();
    take(':');
    const b = ternary();
    return c !== 0n ? a : b;
  };
  const binary = (level: number): bigint => {
    if (level === levels.length) return unary();
    let acc = binary(level + 1);
    while (levels[level]!.includes(peek() ?? '')) {
      const op = take();
      acc = apply(op, acc, binary(level + 1));
    }
    return acc;
  };
  const unary = (): bigint => {
    if (peek() === '-') { take(); return -unary(); }
    if (peek() === '!') { take(); return b01(unary() === 0n); }
    if (peek() === '(' && tokens[pos + 1] === 'char' && tokens[pos + 2] === '*' && tokens[pos + 3] === ')') { pos += 4; return unary(); }
    return power();
  };
  const power = (): bigint => {
    const base = primary();
    if (peek() !== '^') return base;
    take('^');
    return base ** primary();
  };
  const primary = (): bigint => {
    const t = take();
    if (t === '(') { const v = ternary(); take(')'); return v; }
    if (/^\d+$/.test(t)) return BigInt(t);
    if (peek() === '(') {
      take('(');
      const a: bigint[] = [ternary()];
      while (peek() === ',') { take(','); a.push(ternary()); }
      take(')');
      if (t === 'min') return a.reduce((x, y) => (x < y ? x : y));
      if (t === 'max') return a.reduce((x, y) => (x > y ? x : y));
      if (t === 'floord') return floorDiv(a[0]!, a[1]!);
      if (t === 'select') return a[0] !== 0n ? a[1]! : a[2]!;
      throw new Error(`unknown function ${t}`);
    }
    const v = env.get(t);
    if (v === undefined) throw new Error(`no value for ${t} in ${text}`);
    return v;
  };
  const v = ternary();
  if (pos !== tokens.length) throw new Error(`trailing tokens at ${pos} of ${text}`);
  return v;
}

// ---- the kernels
const sources: [string, string[]][] = [
  [path.join(kernelsDir, 'delin-stencil-alpha.c'), []],
  [path.join(kernelsDir, 'delin-stencil-alpha.c'), ['-DTSOPT_VLA']],
  [path.join(kernelsDir, 'gemm.c'), []],
  [path.join(kernelsDir, 'jacobi-2d.c'), ['-DTSOPT_VLA']],
  [path.join(__dirname, 'fixtures', 'interleaved.c'), []],
];

/** A small deterministic generator (tests must not depend on chance). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

test.each(sources)('%s %p: the C text of every check computes what the IR computes', (source, flags) => {
  const flagsText = flags.join('');
  const name = `${path.basename(source, '.c')}${flagsText}`;
  const bitcode = compileToIr(source, ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-g', '-fno-discard-value-names', `-I${kernelsDir}`, ...flags]);
  const reportFile = path.join(work, `${name}.json`);
  const text = runOk('node', [tsopt, '--passes=versioning', '--verify-each', '--no-post', '-S', `--report=${reportFile}`], bitcode).toString();
  const report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as { functions: { name: string; scops: { versioned?: boolean; runtimeCheck: string }[] }[] };
  const module = parseModule(text);
  const random = lcg(18);
  let checked = 0;
  const outcomes = new Set<bigint>();
  for (const f of report.functions.filter((x) => x.name.startsWith('kernel_'))) {
    const fn = module.functions.find((x) => x.name === f.name) as IrFunction;
    f.scops.filter((s) => s.versioned === true).forEach((scop, k) => {
      // The k-th versioned SCoP's check block; its branch condition is the whole check.
      const blocks = fn.blocks.filter((b) => /^tsopt\.scop\d+\.check$/.test(b.name ?? ''));
      const term = blocks[k]!.instructions[blocks[k]!.instructions.length - 1]!;
      const cond = term.operands[0]!;
      for (let round = 0; round < 300; round++) {
        const args = new Map<string, bigint>();
        let firstPointer: bigint | undefined;
        for (const a of fn.args) {
          if (a.type.kind === 'ptr') {
            // Arrays at or around the first one's address: overlapping, touching and apart.
            firstPointer ??= 1n << 24n;
            args.set(a.name!, a === fn.args.find((x) => x.type.kind === 'ptr') ? firstPointer : firstPointer + 8n * BigInt(Math.floor(random() * 600) - 300));
          } else if (a.type.kind === 'int') {
            args.set(a.name!, BigInt(Math.floor(random() * 24) - 4));
          }
        }
        const ir = evalIr(cond, args, new Map()) !== 0n ? 1n : 0n;
        const c = evalC(scop.runtimeCheck, args) !== 0n ? 1n : 0n;
        if (ir !== c) throw new Error(`${f.name}: at ${[...args].map(([x, y]) => `${x}=${y}`).join(' ')} the IR check is ${ir}, its C text ${c}: ${scop.runtimeCheck}`);
        outcomes.add(ir);
      }
      checked++;
    });
  }
  expect(checked).toBeGreaterThan(0);
  expect([...outcomes].sort()).toEqual([0n, 1n]);
}, 120_000);
