// The printer: the model back to LLVM 14 textual IR that llvm-as-14 reads into the same module.
// Unnamed values get LLVM's sequential numbers; duplicate names are made unique here.
import { isUnnamed, numberLocals } from './numbering';
import { printIdentifier, printStructBody, printType } from './type-ops';
import {
  FastMathFlag,
  InstFlag,
  type BasicBlock,
  type GlobalAlias,
  type GlobalVariable,
  type Instruction,
  type IrFunction,
  type MetadataAttachment,
  type Module,
  type Type,
  type Value,
} from './types';

/** The module as LLVM textual IR. */
export function printModule(m: Module): string {
  return new Printer().module(m);
}

/** One function (definition or declaration) as it appears in `printModule`, for golden tests and debugging. */
export function printFunction(fn: IrFunction): string {
  return new Printer().function(fn);
}

/** One instruction as it would appear in its function (for messages and debugging). */
export function printInstruction(inst: Instruction): string {
  const p = new Printer();
  const fn = inst.parent?.parent;
  if (fn) p.enterFunction(fn);
  return p.instruction(inst).trim();
}

/** `T v` or just `v` of any value, e.g. for remarks. */
export function printValue(v: Value, withType = true): string {
  const p = new Printer();
  const fn = v.kind === 'instruction' ? v.parent?.parent : v.kind === 'argument' ? v.parent : v.kind === 'block' ? v.parent : undefined;
  if (fn) p.enterFunction(fn);
  return withType ? p.typed(v) : p.ref(v);
}

const fastMathNames: [number, string][] = [
  [FastMathFlag.Reassoc, 'reassoc'],
  [FastMathFlag.NoNaNs, 'nnan'],
  [FastMathFlag.NoInfs, 'ninf'],
  [FastMathFlag.NoSignedZeros, 'nsz'],
  [FastMathFlag.AllowReciprocal, 'arcp'],
  [FastMathFlag.AllowContract, 'contract'],
  [FastMathFlag.ApproxFunc, 'afn'],
];

function fastMathText(f: number): string {
  if (f === 0) return '';
  if ((f & FastMathFlag.Fast) === FastMathFlag.Fast) return 'fast ';
  let s = '';
  for (const [bit, name] of fastMathNames) if (f & bit) s += name + ' ';
  return s;
}

function wrapText(f: number): string {
  let s = '';
  if (f & InstFlag.NoUnsignedWrap) s += 'nuw ';
  if (f & InstFlag.NoSignedWrap) s += 'nsw ';
  if (f & InstFlag.Exact) s += 'exact ';
  return s;
}

function join(...parts: (string | undefined)[]): string {
  let out = '';
  for (const p of parts) {
    if (p === undefined || p === '') continue;
    out = out === '' ? p : out + ' ' + p;
  }
  return out;
}

class Printer {
  private readonly typeNames = new Map<Type, string>();
  /** Printed references of the locals of each function printed or referenced so far. */
  private readonly localNames = new Map<IrFunction, Map<Value, string>>();
  private locals: Map<Value, string> = new Map();

  type(t: Type): string {
    let s = this.typeNames.get(t);
    if (s === undefined) {
      s = printType(t);
      this.typeNames.set(t, s);
    }
    return s;
  }

  module(m: Module): string {
    const out: string[] = [];
    if (m.sourceFilename !== undefined) out.push(`source_filename = "${m.sourceFilename}"`);
    if (m.dataLayout !== undefined) out.push(`target datalayout = "${m.dataLayout}"`);
    if (m.triple !== undefined) out.push(`target triple = "${m.triple}"`);
    for (const a of m.moduleAsm) out.push(a);
    out.push('');
    for (const t of m.namedTypes) out.push(`${printIdentifier('%', t.name!)} = type ${printStructBody(t)}`);
    if (m.namedTypes.length) out.push('');
    for (const c of m.comdats) out.push(c);
    if (m.comdats.length) out.push('');
    for (const g of m.globals) out.push(this.global(g));
    for (const a of m.aliases) out.push(this.alias(a));
    if (m.globals.length || m.aliases.length) out.push('');
    for (const f of m.functions) {
      out.push(this.function(f));
      out.push('');
    }
    for (const [n, body] of m.attributeGroups) out.push(`attributes #${n} = ${body}`);
    if (m.attributeGroups.size) out.push('');
    for (const [n, body] of m.namedMetadata) out.push(`!${n} = ${body}`);
    for (const [n, body] of m.metadata) out.push(`!${n} = ${body}`);
    out.push('');
    return out.join('\n');
  }

  private global(g: GlobalVariable): string {
    let s = join(printIdentifier('@', g.name), '=', g.prefix, g.isConstant ? 'constant' : 'global', this.type(g.valueType));
    if (g.hasInitializer) s += ' ' + this.ref(g.operands[0]!);
    if (g.suffix) s += g.suffix.startsWith(',') ? g.suffix : ' ' + g.suffix;
    return s;
  }

  private alias(a: GlobalAlias): string {
    let s = join(printIdentifier('@', a.name), '=', a.prefix, a.isIFunc ? 'ifunc' : 'alias', this.type(a.valueType));
    s += ', ' + this.typed(a.operands[0]!);
    if (a.suffix) s += a.suffix.startsWith(',') ? a.suffix : ' ' + a.suffix;
    return s;
  }

  enterFunction(fn: IrFunction): void {
    this.locals = this.namesOf(fn);
  }

  /** `%name` / `%N` of every local of `fn`, with duplicate names made unique. */
  private namesOf(fn: IrFunction): Map<Value, string> {
    let names = this.localNames.get(fn);
    if (names) return names;
    names = new Map();
    const slots = numberLocals(fn);
    const taken = new Set<string>();
    const add = (v: Value, name: string | undefined): void => {
      const slot = slots.get(v);
      if (slot !== undefined) {
        names!.set(v, '%' + slot);
        return;
      }
      let n = name!;
      if (taken.has(n)) {
        let k = 1;
        while (taken.has(n + k)) k++;
        n = n + k;
      }
      taken.add(n);
      names!.set(v, printIdentifier('%', n));
    };
    // names are made unique in definition order, like LLVM's symbol table
    for (const a of fn.args) add(a, a.name);
    for (const b of fn.blocks) {
      add(b, b.name);
      for (const i of b.instructions) if (i.type.kind !== 'void') add(i, i.name);
    }
    this.localNames.set(fn, names);
    return names;
  }

  function(f: IrFunction): string {
    const params: string[] = [];
    if (!f.isDeclaration) this.enterFunction(f);
    const ft = f.functionType;
    ft.params.forEach((t, i) => {
      const a = f.args[i]!;
      params.push(join(this.type(t), a.attrs, f.isDeclaration ? undefined : this.ref(a)));
    });
    if (ft.varArg) params.push('...');
    // a declaration's attachments go right after `declare`, a definition's before `{`
    const mds = f.metadata.map((md) => `!${md.name} ${md.ref}`).join(' ');
    let head = join(
      f.isDeclaration ? 'declare' : 'define',
      f.isDeclaration ? mds : undefined,
      f.prefix,
      f.returnAttrs,
      this.type(ft.returnType),
      `${printIdentifier('@', f.name)}(${params.join(', ')})`,
      f.suffix,
    );
    if (f.hasPersonality) head += ' personality ' + this.typed(f.operands[0]!);
    if (f.isDeclaration) return head;
    if (mds) head += ' ' + mds;
    const out = [head + ' {'];
    f.blocks.forEach((b, i) => {
      if (i > 0) out.push('');
      if (i > 0 || !isUnnamed(b.name)) out.push(this.label(b));
      for (const inst of b.instructions) out.push(this.instruction(inst));
    });
    out.push('}');
    return out.join('\n');
  }

  private label(b: BasicBlock): string {
    const ref = this.locals.get(b) ?? '%<detached>';
    return ref.slice(1) + ':';
  }

  /** The reference to a value without its type. */
  ref(v: Value): string {
    switch (v.kind) {
      case 'instruction':
      case 'argument':
      case 'block': {
        const s = this.locals.get(v);
        if (s !== undefined) return s;
        const fn = v.kind === 'argument' ? v.parent : v.kind === 'block' ? v.parent : v.parent?.parent;
        const other = fn ? this.namesOf(fn).get(v) : undefined;
        return other ?? (v.name !== undefined ? printIdentifier('%', v.name) : '%<detached>');
      }
      case 'function':
      case 'global':
      case 'alias':
        return printIdentifier('@', v.name);
      case 'const-int':
        if (v.type.bits === 1) return v.value === 0n ? 'false' : 'true';
        return v.value.toString();
      case 'const-fp':
        return v.text;
      case 'const-null':
        return 'null';
      case 'undef':
        return 'undef';
      case 'poison':
        return 'poison';
      case 'zeroinitializer':
        return 'zeroinitializer';
      case 'token-none':
        return 'none';
      case 'const-string':
        return `c"${v.text}"`;
      case 'const-aggregate': {
        const elems = v.operands.map((o) => this.typed(o)).join(', ');
        const t = v.type;
        if (t.kind === 'array') return `[${elems}]`;
        if (t.kind === 'vector') return `<${elems}>`;
        if (t.kind === 'struct') {
          const body = elems === '' ? '{}' : `{ ${elems} }`;
          return t.packed ? `<${body}>` : body;
        }
        return `{ ${elems} }`;
      }
      case 'const-expr':
        return this.constExpr(v);
      case 'blockaddress':
        return `blockaddress(${this.ref(v.operands[0]!)}, ${this.ref(v.operands[1]!)})`;
      case 'dso-local-equivalent':
        return `dso_local_equivalent ${this.ref(v.operands[0]!)}`;
      case 'inline-asm':
        return v.text;
      case 'metadata':
        if (v.text !== undefined) return v.text;
        if (v.argList) return `!DIArgList(${v.operands.map((o) => this.typed(o)).join(', ')})`;
        return this.typed(v.operands[0]!);
    }
  }

  /** `T v` */
  typed(v: Value): string {
    return this.type(v.type) + ' ' + this.ref(v);
  }

  private constExpr(v: Extract<Value, { kind: 'const-expr' }>): string {
    const ops = v.operands;
    switch (v.opcode) {
      case 'getelementptr': {
        const parts = [this.type(v.sourceElementType!)];
        ops.forEach((o, i) => parts.push((v.inRangeIndex === i - 1 ? 'inrange ' : '') + this.typed(o)));
        return `getelementptr ${v.flags & InstFlag.InBounds ? 'inbounds ' : ''}(${parts.join(', ')})`;
      }
      case 'trunc': case 'zext': case 'sext': case 'fptrunc': case 'fpext': case 'fptoui': case 'fptosi':
      case 'uitofp': case 'sitofp': case 'ptrtoint': case 'inttoptr': case 'bitcast': case 'addrspacecast':
        return `${v.opcode} (${this.typed(ops[0]!)} to ${this.type(v.type)})`;
      case 'icmp':
      case 'fcmp':
        return `${v.opcode} ${v.predicate} (${ops.map((o) => this.typed(o)).join(', ')})`;
      case 'extractvalue':
      case 'insertvalue':
        return `${v.opcode} (${[...ops.map((o) => this.typed(o)), ...v.indices!.map(String)].join(', ')})`;
      default:
        return `${v.opcode} ${wrapText(v.flags)}(${ops.map((o) => this.typed(o)).join(', ')})`;
    }
  }

  instruction(inst: Instruction): string {
    let s = '  ';
    if (inst.type.kind !== 'void') s += this.ref(inst) + ' = ';
    s += this.body(inst);
    if (inst.align !== undefined && inst.opcode !== 'alloca') s += `, align ${inst.align}`;
    s += this.attachments(inst.metadata);
    return s;
  }

  private attachments(mds: readonly MetadataAttachment[]): string {
    let s = '';
    for (const md of mds) s += `, !${md.name} ${md.ref}`;
    return s;
  }

  private body(inst: Instruction): string {
    const ops = inst.operands;
    const op = inst.opcode;
    switch (op) {
      case 'add': case 'sub': case 'mul': case 'shl': case 'udiv': case 'sdiv': case 'lshr': case 'ashr':
      case 'urem': case 'srem': case 'and': case 'or': case 'xor':
      case 'fadd': case 'fsub': case 'fmul': case 'fdiv': case 'frem':
        return `${op} ${wrapText(inst.flags)}${fastMathText(inst.fastMath)}${this.typed(ops[0]!)}, ${this.ref(ops[1]!)}`;
      case 'fneg':
        return `fneg ${fastMathText(inst.fastMath)}${this.typed(ops[0]!)}`;
      case 'trunc': case 'zext': case 'sext': case 'fptrunc': case 'fpext': case 'fptoui': case 'fptosi':
      case 'uitofp': case 'sitofp': case 'ptrtoint': case 'inttoptr': case 'bitcast': case 'addrspacecast':
        return `${op} ${this.typed(ops[0]!)} to ${this.type(inst.type)}`;
      case 'icmp':
      case 'fcmp':
        return `${op} ${fastMathText(inst.fastMath)}${inst.predicate} ${this.typed(ops[0]!)}, ${this.ref(ops[1]!)}`;
      case 'load': {
        const atomic = inst.atomic ? 'atomic ' : '';
        const vol = inst.flags & InstFlag.Volatile ? 'volatile ' : '';
        return `load ${atomic}${vol}${this.type(inst.type)}, ${this.typed(ops[0]!)}${this.ordering(inst)}`;
      }
      case 'store': {
        const atomic = inst.atomic ? 'atomic ' : '';
        const vol = inst.flags & InstFlag.Volatile ? 'volatile ' : '';
        return `store ${atomic}${vol}${this.typed(ops[0]!)}, ${this.typed(ops[1]!)}${this.ordering(inst)}`;
      }
      case 'getelementptr': {
        const parts = [this.type(inst.sourceElementType!), ...ops.map((o) => this.typed(o))];
        return `getelementptr ${inst.flags & InstFlag.InBounds ? 'inbounds ' : ''}${parts.join(', ')}`;
      }
      case 'phi': {
        const blocks = inst.incomingBlocks!;
        const inc = ops.map((o, i) => `[ ${this.ref(o)}, ${this.ref(blocks[i]!)} ]`).join(', ');
        return `phi ${fastMathText(inst.fastMath)}${this.type(inst.type)} ${inc}`;
      }
      case 'select':
        return `select ${fastMathText(inst.fastMath)}${ops.map((o) => this.typed(o)).join(', ')}`;
      case 'br':
        if (ops.length === 1) return `br ${this.typed(ops[0]!)}`;
        return `br ${ops.map((o) => this.typed(o)).join(', ')}`;
      case 'ret':
        return ops.length === 0 ? 'ret void' : `ret ${this.typed(ops[0]!)}`;
      case 'switch': {
        let s = `switch ${this.typed(ops[0]!)}, ${this.typed(ops[1]!)} [`;
        for (let i = 2; i < ops.length; i += 2) s += `\n    ${this.typed(ops[i]!)}, ${this.typed(ops[i + 1]!)}`;
        return s + '\n  ]';
      }
      case 'indirectbr':
        return `indirectbr ${this.typed(ops[0]!)}, [${ops.slice(1).map((o) => this.typed(o)).join(', ')}]`;
      case 'unreachable':
        return 'unreachable';
      case 'resume':
        return `resume ${this.typed(ops[0]!)}`;
      case 'call':
      case 'invoke':
      case 'callbr':
        return this.call(inst);
      case 'alloca': {
        let s = 'alloca ';
        if (inst.flags & InstFlag.InAlloca) s += 'inalloca ';
        if (inst.flags & InstFlag.SwiftError) s += 'swifterror ';
        s += this.type(inst.allocatedType!);
        if (ops.length) s += ', ' + this.typed(ops[0]!);
        if (inst.align !== undefined) s += `, align ${inst.align}`;
        if (inst.addrSpace) s += `, addrspace(${inst.addrSpace})`;
        return s;
      }
      case 'extractvalue':
      case 'insertvalue':
        return `${op} ${[...ops.map((o) => this.typed(o)), ...inst.indices!.map(String)].join(', ')}`;
      case 'extractelement':
      case 'insertelement':
      case 'shufflevector':
        return `${op} ${ops.map((o) => this.typed(o)).join(', ')}`;
      case 'freeze':
        return `freeze ${this.typed(ops[0]!)}`;
      case 'va_arg':
        return `va_arg ${this.typed(ops[0]!)}, ${this.type(inst.type)}`;
      case 'landingpad': {
        let s = `landingpad ${this.type(inst.type)}`;
        if (inst.flags & InstFlag.Cleanup) s += '\n          cleanup';
        ops.forEach((o, i) => (s += `\n          ${inst.clauses![i]} ${this.typed(o)}`));
        return s;
      }
      case 'fence':
        return `fence${this.ordering(inst)}`;
      case 'cmpxchg': {
        let s = 'cmpxchg ';
        if (inst.flags & InstFlag.Weak) s += 'weak ';
        if (inst.flags & InstFlag.Volatile) s += 'volatile ';
        return s + ops.map((o) => this.typed(o)).join(', ') + this.ordering(inst);
      }
      case 'atomicrmw': {
        const vol = inst.flags & InstFlag.Volatile ? 'volatile ' : '';
        return `atomicrmw ${vol}${inst.rmwOperation} ${ops.map((o) => this.typed(o)).join(', ')}${this.ordering(inst)}`;
      }
      case 'catchswitch': {
        const unwind = inst.unwindToCaller ? 'to caller' : this.typed(ops[ops.length - 1]!);
        const handlers = ops.slice(1, inst.unwindToCaller ? ops.length : ops.length - 1).map((o) => this.typed(o));
        return `catchswitch within ${this.ref(ops[0]!)} [${handlers.join(', ')}] unwind ${unwind}`;
      }
      case 'catchpad':
      case 'cleanuppad':
        return `${op} within ${this.ref(ops[0]!)} [${ops.slice(1).map((o) => this.typed(o)).join(', ')}]`;
      case 'catchret':
        return `catchret from ${this.ref(ops[0]!)} to ${this.typed(ops[1]!)}`;
      case 'cleanupret':
        return `cleanupret from ${this.ref(ops[0]!)} unwind ${inst.unwindToCaller ? 'to caller' : this.typed(ops[1]!)}`;
      default:
        throw new Error(`printer: unsupported instruction ${op}`);
    }
  }

  private ordering(inst: Instruction): string {
    const a = inst.atomic;
    if (!a) return '';
    let s = '';
    if (a.syncScope !== undefined) s += ` syncscope("${a.syncScope}")`;
    s += ' ' + a.ordering;
    if (a.failureOrdering !== undefined) s += ' ' + a.failureOrdering;
    return s;
  }

  private call(inst: Instruction): string {
    const c = inst.call!;
    const ops = inst.operands;
    const nargs = c.argAttrs.length;
    let s = '';
    if (inst.flags & InstFlag.Tail) s += 'tail ';
    else if (inst.flags & InstFlag.MustTail) s += 'musttail ';
    else if (inst.flags & InstFlag.NoTail) s += 'notail ';
    s += inst.opcode + ' ';
    s += fastMathText(inst.fastMath);
    const ft = c.functionType;
    const ret = ft.returnType;
    const fullType = ft.varArg || (ret.kind === 'ptr' && ret.pointee?.kind === 'function');
    s += join(c.callingConv, c.returnAttrs, c.addrSpace, this.type(fullType ? ft : ret)) + ' ';
    s += this.ref(ops[0]!) + '(';
    const args: string[] = [];
    for (let i = 0; i < nargs; i++) {
      const a = ops[1 + i]!;
      args.push(join(this.type(a.type), c.argAttrs[i], this.ref(a)));
    }
    s += args.join(', ') + ')';
    if (c.fnAttrs) s += ' ' + c.fnAttrs;
    let next = 1 + nargs;
    if (c.bundles) {
      const bundles = c.bundles.map((bundle) => {
        const vals = ops.slice(next, next + bundle.count).map((o) => this.typed(o));
        next += bundle.count;
        return `"${bundle.tag}"(${vals.join(', ')})`;
      });
      s += ` [ ${bundles.join(', ')} ]`;
    }
    if (inst.opcode === 'invoke') s += ` to ${this.typed(ops[next]!)} unwind ${this.typed(ops[next + 1]!)}`;
    if (inst.opcode === 'callbr') {
      const indirect = ops.slice(next + 1).map((o) => this.typed(o));
      s += ` to ${this.typed(ops[next]!)} [${indirect.join(', ')}]`;
    }
    return s;
  }
}
