// The parser: LLVM 14 textual IR (as llvm-dis-14 and clang-14 -S print it) to the model.
// Linear: a hand-written lexer, forward references resolved through placeholders whose
// uses move to the definition in O(uses), names looked up in hash maps.
import { compactParsedBody, compactParsedModule } from './compact';
import { IrParseError, Lexer, Tok } from './lexer';
import {
  blockAddress,
  constAggregate,
  constExpr,
  constFPText,
  constInt,
  constNull,
  constString,
  createAlias,
  createArgument,
  createBlock,
  createFunction,
  createGlobalVariable,
  createInstruction,
  createModule,
  dsoLocalEquivalent,
  inlineAsm,
  metadataText,
  metadataWrapping,
  poison,
  tokenNone,
  undef,
  zeroInitializer,
} from './nodes';
import { numberLocals } from './numbering';
import {
  arrayOf,
  floatType,
  functionType,
  i1,
  indexedType,
  intType,
  labelType,
  literalStruct,
  metadataType,
  pointerTo,
  tokenType,
  typesEqual,
  vectorOf,
  voidType,
  x86AmxType,
  x86MmxType,
} from './type-ops';
import {
  FastMathFlag,
  InstFlag,
  type BasicBlock,
  type CallInfo,
  type FloatKind,
  type FunctionType,
  type GlobalValue,
  type Instruction,
  type IrFunction,
  type MetadataAttachment,
  type Module,
  type Opcode,
  type PointerType,
  type Predicate,
  type StructType,
  type Type,
  type Value,
} from './types';
import { appendOperand as appendOp, replaceAllUsesWith } from './uses';

export { IrParseError };

/** Parses LLVM 14 textual IR. Throws `IrParseError` (with line:column) on text it cannot read. */
export function parseModule(text: string, sourceName = '<input>'): Module {
  return new Parser(text, sourceName).parse();
}

const floatKinds = new Set<string>(['half', 'bfloat', 'float', 'double', 'x86_fp80', 'fp128', 'ppc_fp128']);
const binaryOps = new Set<string>([
  'add', 'fadd', 'sub', 'fsub', 'mul', 'fmul', 'udiv', 'sdiv', 'fdiv', 'urem', 'srem', 'frem',
  'shl', 'lshr', 'ashr', 'and', 'or', 'xor',
]);
const castOps = new Set<string>([
  'trunc', 'zext', 'sext', 'fptrunc', 'fpext', 'fptoui', 'fptosi', 'uitofp', 'sitofp',
  'ptrtoint', 'inttoptr', 'bitcast', 'addrspacecast',
]);
const fastMathWords: ReadonlyMap<string, number> = new Map([
  ['fast', FastMathFlag.Fast],
  ['reassoc', FastMathFlag.Reassoc],
  ['nnan', FastMathFlag.NoNaNs],
  ['ninf', FastMathFlag.NoInfs],
  ['nsz', FastMathFlag.NoSignedZeros],
  ['arcp', FastMathFlag.AllowReciprocal],
  ['contract', FastMathFlag.AllowContract],
  ['afn', FastMathFlag.ApproxFunc],
]);
const constantWords = new Set<string>([
  'true', 'false', 'null', 'undef', 'poison', 'zeroinitializer', 'none', 'asm', 'blockaddress',
  'dso_local_equivalent', 'getelementptr', 'select', 'icmp', 'fcmp', 'extractelement', 'insertelement',
  'shufflevector', 'extractvalue', 'insertvalue', 'fneg', ...binaryOps, ...castOps,
]);
const linkageWords = new Set<string>([
  'private', 'internal', 'available_externally', 'linkonce', 'weak', 'common', 'appending', 'extern_weak',
  'linkonce_odr', 'weak_odr', 'external', 'dso_local', 'dso_preemptable', 'default', 'hidden', 'protected',
  'dllimport', 'dllexport',
]);

function isCallingConv(w: string): boolean {
  return (
    w.endsWith('cc') ||
    w.startsWith('spir_') || w.startsWith('amdgpu_') || w.startsWith('ptx_') || w.startsWith('avr_') ||
    w.startsWith('aarch64_') || w.startsWith('arm_') || w === 'hhvm_ccc'
  );
}

interface FunctionState {
  fn: IrFunction;
  locals: Map<string, Value>;
}

/** Which parser method reads each opcode the binary and cast tables do not cover. */
const INSTRUCTION_GROUPS = new Map<string, 'compareOrValue' | 'memoryInstruction' | 'controlInstruction' | 'aggregateInstruction' | 'exceptionPadInstruction'>([
  ['icmp', 'compareOrValue'], ['fcmp', 'compareOrValue'], ['phi', 'compareOrValue'], ['select', 'compareOrValue'], ['fneg', 'compareOrValue'], ['freeze', 'compareOrValue'], ['va_arg', 'compareOrValue'],
  ['load', 'memoryInstruction'], ['store', 'memoryInstruction'], ['getelementptr', 'memoryInstruction'], ['alloca', 'memoryInstruction'], ['fence', 'memoryInstruction'], ['cmpxchg', 'memoryInstruction'], ['atomicrmw', 'memoryInstruction'],
  ['br', 'controlInstruction'], ['ret', 'controlInstruction'], ['switch', 'controlInstruction'], ['unreachable', 'controlInstruction'], ['indirectbr', 'controlInstruction'], ['resume', 'controlInstruction'], ['call', 'controlInstruction'], ['tail', 'controlInstruction'], ['musttail', 'controlInstruction'], ['notail', 'controlInstruction'], ['invoke', 'controlInstruction'], ['callbr', 'controlInstruction'],
  ['extractvalue', 'aggregateInstruction'], ['insertvalue', 'aggregateInstruction'], ['extractelement', 'aggregateInstruction'], ['insertelement', 'aggregateInstruction'], ['shufflevector', 'aggregateInstruction'],
  ['landingpad', 'exceptionPadInstruction'], ['catchswitch', 'exceptionPadInstruction'], ['catchpad', 'exceptionPadInstruction'], ['cleanuppad', 'exceptionPadInstruction'], ['catchret', 'exceptionPadInstruction'], ['cleanupret', 'exceptionPadInstruction'],
]);

class Parser {
  private readonly lex: Lexer;
  private readonly m: Module;
  private readonly namedTypes = new Map<string, StructType>();
  private readonly definedTypes = new Set<StructType>();
  /** Forward-referenced values (locals and globals), replaced when defined. */
  private readonly placeholders = new Set<Value>();
  private readonly globalRefs = new Map<string, Value>();
  /** `blockaddress(@f, %bb)` seen before `@f` was parsed: fn name -> block name -> block. */
  private readonly pendingBlocks = new Map<string, Map<string, BasicBlock>>();
  private cur: FunctionState | undefined;

  constructor(
    private readonly text: string,
    sourceName: string,
  ) {
    this.lex = new Lexer(text, sourceName);
    this.m = createModule(sourceName);
  }

  parse(): Module {
    const lex = this.lex;
    lex.next();
    while (lex.tok() !== Tok.Eof) this.topLevel();
    for (const p of this.placeholders) {
      const name = [...this.globalRefs].find(([, v]) => v === p)?.[0];
      throw lex.error(`use of undefined value ${name !== undefined ? '@' + name : ''}`.trim(), this.text.length);
    }
    for (const [fn] of this.pendingBlocks) throw lex.error(`blockaddress refers to undefined function @${fn}`);
    compactParsedModule(this.m);
    return this.m;
  }

  /* ------------------------------------------------------------ helpers */

  private expectPunct(c: string): void {
    if (!this.lex.isPunct(c)) throw this.lex.error(`expected '${c}'`);
    this.lex.next();
  }
  private expectWord(w: string): void {
    if (!this.lex.isWord(w)) throw this.lex.error(`expected '${w}'`);
    this.lex.next();
  }
  private eatWord(w: string): boolean {
    if (!this.lex.isWord(w)) return false;
    this.lex.next();
    return true;
  }
  private eatPunct(c: string): boolean {
    if (!this.lex.isPunct(c)) return false;
    this.lex.next();
    return true;
  }
  private expectInt(): number {
    if (this.lex.tok() !== Tok.Int) throw this.lex.error('expected an integer');
    const v = Number(this.lex.tokenText);
    this.lex.next();
    return v;
  }
  private expectString(): string {
    if (this.lex.tok() !== Tok.String) throw this.lex.error('expected a string');
    const s = this.lex.tokenText;
    this.lex.next();
    return s.slice(1, -1);
  }
  /** Text from `start` to the end of its line, and moves the lexer to the next line. */
  private restOfLine(start: number): string {
    const end = this.lex.lineEnd(start);
    const s = this.text.slice(start, end).trim();
    this.lex.reset(end);
    return s;
  }
  /** Skips a balanced (...) group starting at the current '(' token. */
  private skipParens(): void {
    let depth = 0;
    do {
      if (this.lex.tok() === Tok.Eof) throw this.lex.error('unbalanced parentheses');
      if (this.lex.isPunct('(')) depth++;
      else if (this.lex.isPunct(')')) depth--;
      this.lex.next();
    } while (depth > 0);
  }
  /**
   * Metadata written in place (`!12`, `!{...}`, `!"s"`, `!DIExpression(...)`) as raw text,
   * scanned by characters with balanced brackets; the lexer continues after it.
   */
  private rawMetadata(): string {
    const t = this.text;
    const start = this.lex.start;
    let p = start + 1;
    const c = t.charCodeAt(p);
    if (c === 34) p = t.indexOf('"', p + 1) + 1;
    else {
      while (p < t.length && isMetadataNameChar(t.charCodeAt(p))) p++;
      if (t[p] === '(' || t[p] === '{') p = this.balanced(p);
    }
    this.lex.reset(p);
    return t.slice(start, p);
  }
  private balanced(p: number): number {
    const t = this.text;
    let depth = 0;
    for (; p < t.length; p++) {
      const c = t[p];
      if (c === '"') p = t.indexOf('"', p + 1);
      else if (c === '(' || c === '{') depth++;
      else if (c === ')' || c === '}') {
        depth--;
        if (depth === 0) return p + 1;
      }
    }
    throw this.lex.error('unbalanced metadata');
  }

  /* ------------------------------------------------------------ top level */

  private topLevel(): void {
    const lex = this.lex;
    const m = this.m;
    switch (lex.tok()) {
      case Tok.Word: {
        const w = lex.tokenText;
        if (w === 'source_filename') {
          lex.next();
          this.expectPunct('=');
          m.sourceFilename = this.expectString();
        } else if (w === 'target') {
          lex.next();
          const what = lex.tokenText;
          lex.next();
          this.expectPunct('=');
          const s = this.expectString();
          if (what === 'datalayout') m.dataLayout = s;
          else if (what === 'triple') m.triple = s;
          else throw lex.error(`unknown target property ${what}`);
        } else if (w === 'module') {
          m.moduleAsm.push(this.restOfLine(lex.start));
        } else if (w === 'define' || w === 'declare') {
          this.parseFunction(w === 'define');
        } else if (w === 'attributes') {
          lex.next();
          if (lex.tok() !== Tok.AttrGroup) throw lex.error('expected #N');
          const n = Number(lex.tokenText.slice(1));
          lex.next();
          if (!lex.isPunct('=')) throw lex.error("expected '='");
          m.attributeGroups.set(n, this.restOfLine(lex.end));
        } else {
          throw lex.error(`unexpected '${w}' at top level`);
        }
        return;
      }
      case Tok.LocalVar:
        return this.parseNamedType();
      case Tok.GlobalVar:
        return this.parseGlobal();
      case Tok.ComdatVar:
        m.comdats.push(this.restOfLine(lex.start));
        return;
      case Tok.MetadataVar: {
        const name = lex.tokenName;
        lex.next();
        if (!lex.isPunct('=')) throw lex.error("expected '='");
        const body = this.restOfLine(lex.end);
        if (/^[0-9]+$/.test(name)) m.metadata.set(Number(name), body);
        else m.namedMetadata.set(name, body);
        return;
      }
      default:
        throw lex.error(`unexpected '${lex.tokenText}' at top level`);
    }
  }

  private namedType(name: string): StructType {
    let t = this.namedTypes.get(name);
    if (!t) {
      t = { kind: 'struct', name, elements: undefined, packed: false };
      this.namedTypes.set(name, t);
    }
    return t;
  }

  private parseNamedType(): void {
    const lex = this.lex;
    const t = this.namedType(lex.tokenName);
    lex.next();
    this.expectPunct('=');
    this.expectWord('type');
    if (this.definedTypes.has(t)) throw lex.error(`redefinition of type %${t.name}`);
    this.definedTypes.add(t);
    this.m.namedTypes.push(t);
    if (this.eatWord('opaque')) return;
    const body = this.parseType();
    if (body.kind !== 'struct' || body.name !== undefined) throw lex.error('expected a struct body');
    t.elements = body.elements;
    t.packed = body.packed;
  }

  /** `@g = ... global T init, ...`, `@a = ... alias T, T* @b`. */
  private parseGlobal(): void {
    const lex = this.lex;
    const name = lex.tokenName;
    lex.next();
    this.expectPunct('=');
    const prefixStart = lex.start;
    let prefixEnd = prefixStart;
    let addrSpace = 0;
    for (;;) {
      if (lex.tok() !== Tok.Word) throw lex.error('expected global, constant or alias');
      const w = lex.tokenText;
      if (w === 'global' || w === 'constant' || w === 'alias' || w === 'ifunc') break;
      lex.next();
      if (w === 'addrspace') {
        this.expectPunct('(');
        addrSpace = this.expectInt();
        this.expectPunct(')');
      } else if (w === 'thread_local' && lex.isPunct('(')) {
        this.skipParens();
      }
      prefixEnd = lex.start;
    }
    const prefix = this.text.slice(prefixStart, prefixEnd).trim();
    const what = lex.tokenText;
    lex.next();
    let g: GlobalValue;
    if (what === 'alias' || what === 'ifunc') {
      const valueType = this.parseType();
      this.expectPunct(',');
      const aliaseeType = this.parseType();
      const aliasee = this.parseValue(aliaseeType);
      const type = what === 'alias' ? pointerTo(valueType, addrSpace) : (aliaseeType as PointerType);
      const a = createAlias(this.m, name, valueType, type, what === 'ifunc');
      a.prefix = prefix;
      appendOp(a, aliasee);
      a.suffix = lex.start < lex.lineEnd(prefixStart) ? this.restOfLine(lex.start) : '';
      this.m.aliases.push(a);
      g = a;
    } else {
      const valueType = this.parseType();
      const gv = createGlobalVariable(this.m, name, valueType, addrSpace);
      gv.prefix = prefix;
      gv.isConstant = what === 'constant';
      const eol = lex.lineEnd(prefixStart);
      if (lex.start < eol && !lex.isPunct(',') && lex.tok() !== Tok.AttrGroup) {
        appendOp(gv, this.parseValue(valueType));
        gv.hasInitializer = true;
      }
      gv.suffix = lex.start < lex.lineEnd(prefixStart) ? this.restOfLine(lex.start) : '';
      this.m.globals.push(gv);
      g = gv;
    }
    this.defineGlobal(name, g);
  }

  private defineGlobal(name: string, g: GlobalValue): void {
    const prev = this.globalRefs.get(name);
    if (prev) {
      if (!this.placeholders.has(prev)) throw this.lex.error(`redefinition of @${name}`);
      this.placeholders.delete(prev);
      replaceAllUsesWith(prev, g);
    }
    this.globalRefs.set(name, g);
    this.m.symbols.set(name, g);
  }

  /* ------------------------------------------------------------ functions */

  private parseFunction(isDefinition: boolean): void {
    const lex = this.lex;
    lex.next();
    // a declaration's attachments come first: `declare !dbg !5 i32 @f(...)`
    const leadingMetadata: MetadataAttachment[] = [];
    while (lex.tok() === Tok.MetadataVar) {
      const mdName = lex.tokenName;
      lex.next();
      leadingMetadata.push({ name: mdName, ref: this.rawMetadata() });
    }
    // linkage, visibility, calling convention: then return attributes up to the type
    const prefixStart = lex.start;
    let prefixEnd = prefixStart;
    while (lex.tok() === Tok.Word && !this.startsType()) {
      const w = lex.tokenText;
      if (!linkageWords.has(w) && !isCallingConv(w)) break;
      lex.next();
      if (w === 'cc') lex.next();
      prefixEnd = lex.start;
    }
    const prefix = this.text.slice(prefixStart, prefixEnd).trim();
    const returnAttrs = this.attributesUntilType();
    const returnType = this.parseType();
    if (lex.tok() !== Tok.GlobalVar) throw lex.error('expected function name');
    const name = lex.tokenName;
    lex.next();
    this.expectPunct('(');
    const params: Type[] = [];
    const argNames: (string | undefined)[] = [];
    const argAttrs: string[] = [];
    let varArg = false;
    while (!lex.isPunct(')')) {
      if (lex.tok() === Tok.Ellipsis) {
        varArg = true;
        lex.next();
        break;
      }
      params.push(this.parseType());
      argAttrs.push(this.attributesUntil(() => lex.tok() === Tok.LocalVar || lex.isPunct(',') || lex.isPunct(')')));
      if (lex.tok() === Tok.LocalVar) {
        argNames.push(lex.tokenName);
        lex.next();
      } else argNames.push(undefined);
      if (!this.eatPunct(',')) break;
    }
    this.expectPunct(')');
    const fnType = functionType(returnType, params, varArg);
    // unnamed_addr, addrspace, #0, section, comdat, align, gc, prefix/prologue: verbatim
    const eol = lex.lineEnd(prefixStart);
    const suffixStart = lex.start;
    let suffixEnd = suffixStart;
    let addrSpace = 0;
    while (lex.start < eol && !lex.isPunct('{') && !lex.isWord('personality') && lex.tok() !== Tok.MetadataVar) {
      if (lex.isWord('addrspace')) {
        lex.next();
        this.expectPunct('(');
        addrSpace = this.expectInt();
        this.expectPunct(')');
      } else if (lex.isWord('prefix') || lex.isWord('prologue')) {
        lex.next();
        this.parseValue(this.parseType());
      } else if (lex.isPunct('(')) this.skipParens();
      else lex.next();
      suffixEnd = lex.start < eol ? lex.start : Math.min(lex.start, eol);
    }
    const fn = createFunction(this.m, name, fnType, addrSpace);
    fn.prefix = prefix;
    fn.returnAttrs = returnAttrs;
    fn.suffix = this.text.slice(suffixStart, Math.max(suffixStart, suffixEnd)).trim();
    fn.isDeclaration = !isDefinition;
    fn.metadata.push(...leadingMetadata);
    fn.args.forEach((a, i) => {
      a.attrs = argAttrs[i]!;
      const n = argNames[i];
      a.name = n !== undefined && !isNumeric(n) ? n : undefined;
    });
    this.defineGlobal(name, fn);
    this.m.functions.push(fn);
    if (lex.start < eol && this.eatWord('personality')) {
      appendOp(fn, this.parseValue(this.parseType()));
      fn.hasPersonality = true;
    }
    while (lex.start < eol && lex.tok() === Tok.MetadataVar) {
      const mdName = lex.tokenName;
      lex.next();
      fn.metadata.push({ name: mdName, ref: this.rawMetadata() });
    }
    if (!isDefinition) return;
    this.expectPunct('{');
    this.parseBody(fn, argNames);
  }

  /** Whether the current token begins a type. */
  private startsType(): boolean {
    const lex = this.lex;
    switch (lex.tok()) {
      case Tok.LocalVar:
        return true;
      case Tok.Punct:
        return lex.ch === 123 || lex.ch === 91 || lex.ch === 60; // { [ <
      case Tok.Word: {
        const w = lex.tokenText;
        if (w.charCodeAt(0) === 105 && w.length > 1 && isNumeric(w.slice(1))) return true; // iN
        return (
          floatKinds.has(w) || w === 'void' || w === 'ptr' || w === 'label' || w === 'metadata' || w === 'token' ||
          w === 'x86_mmx' || w === 'x86_amx'
        );
      }
      default:
        return false;
    }
  }

  /** Attribute words verbatim up to the next type. */
  private attributesUntilType(): string {
    return this.attributesUntil(() => this.startsType());
  }

  /** Attribute words (`noundef`, `align 8`, `byval(%T)`, `#3`) verbatim until `stop()`. */
  private attributesUntil(stop: () => boolean): string {
    const lex = this.lex;
    const start = lex.start;
    let end = start;
    while (!stop()) {
      if (lex.tok() === Tok.Word) {
        const w = lex.tokenText;
        lex.next();
        if (w === 'align' && lex.tok() === Tok.Int) lex.next();
        else if (lex.isPunct('(')) this.skipParens();
      } else if (lex.tok() === Tok.AttrGroup || lex.tok() === Tok.String) {
        lex.next();
        if (lex.isPunct('=')) {
          lex.next();
          lex.next();
        }
      } else throw lex.error(`unexpected '${lex.tokenText}' in attributes`);
      end = this.lastEnd;
    }
    return this.text.slice(start, end);
  }

  /** End offset of the token before the current one. */
  private get lastEnd(): number {
    // the lexer skips only whitespace and comments between tokens; walk back over whitespace
    let p = this.lex.start;
    const t = this.text;
    while (p > 0 && (t[p - 1] === ' ' || t[p - 1] === '\n' || t[p - 1] === '\t' || t[p - 1] === '\r')) p--;
    return p;
  }

  private parseBody(fn: IrFunction, argNames: (string | undefined)[]): void {
    const lex = this.lex;
    const locals = new Map<string, Value>();
    const pending = this.pendingBlocks.get(fn.name);
    if (pending) {
      for (const [k, b] of pending) locals.set(k, b);
      this.pendingBlocks.delete(fn.name);
    }
    let unnamedArgs = 0;
    fn.args.forEach((a, i) => {
      const n = argNames[i];
      if (n === undefined) return;
      if (isNumeric(n)) unnamedArgs++;
      this.defineLocalIn(locals, n, a);
    });
    this.cur = { fn, locals };
    fn.isDeclaration = false;
    let block: BasicBlock | undefined;
    while (!lex.isPunct('}')) {
      if (lex.tok() === Tok.LabelDef) {
        block = this.defineBlock(lex.tokenName);
        lex.next();
      } else if (!block) {
        block = this.defineBlock(String(unnamedArgs));
      }
      const inst = this.parseInstruction();
      inst.parent = block;
      block.instructions.push(inst);
    }
    lex.next();
    for (const [name, v] of locals) {
      if (this.placeholders.has(v)) throw lex.error(`use of undefined value %${name} in @${fn.name}`);
      if (v.kind === 'block' && v.parent === undefined) throw lex.error(`use of undefined label %${name} in @${fn.name}`);
    }
    this.cur = undefined;
    compactParsedBody(fn);
  }

  private defineBlock(name: string): BasicBlock {
    const st = this.cur!;
    let b = st.locals.get(name);
    if (b === undefined) {
      b = createBlock();
      st.locals.set(name, b);
    } else if (b.kind !== 'block' || b.parent !== undefined) throw this.lex.error(`redefinition of %${name}`);
    b.name = isNumeric(name) ? undefined : name;
    b.parent = st.fn;
    st.fn.blocks.push(b);
    return b;
  }

  private defineLocalIn(locals: Map<string, Value>, name: string, v: Value): void {
    const prev = locals.get(name);
    if (prev !== undefined) {
      if (!this.placeholders.has(prev)) throw this.lex.error(`redefinition of %${name}`);
      this.placeholders.delete(prev);
      replaceAllUsesWith(prev, v);
    }
    locals.set(name, v);
  }

  private blockRef(name: string): BasicBlock {
    const st = this.cur;
    if (!st) throw this.lex.error('label outside a function');
    const v = st.locals.get(name);
    if (v === undefined) {
      const b = createBlock(isNumeric(name) ? undefined : name);
      st.locals.set(name, b);
      return b;
    }
    if (v.kind !== 'block') throw this.lex.error(`%${name} is not a label`);
    return v;
  }

  /** `label %x` */
  private parseLabel(): BasicBlock {
    this.expectWord('label');
    const lex = this.lex;
    if (lex.tok() !== Tok.LocalVar) throw lex.error('expected a label');
    const b = this.blockRef(lex.tokenName);
    lex.next();
    return b;
  }

  /* ------------------------------------------------------------ types */

  parseType(): Type {
    const lex = this.lex;
    let t: Type;
    switch (lex.tok()) {
      case Tok.Word: {
        const w = lex.tokenText;
        lex.next();
        if (w.charCodeAt(0) === 105 && isNumeric(w.slice(1))) t = intType(Number(w.slice(1)));
        else if (floatKinds.has(w)) t = floatType(w as FloatKind);
        else if (w === 'void') t = voidType;
        else if (w === 'label') t = labelType;
        else if (w === 'metadata') t = metadataType;
        else if (w === 'token') t = tokenType;
        else if (w === 'x86_mmx') t = x86MmxType;
        else if (w === 'x86_amx') t = x86AmxType;
        else if (w === 'ptr') {
          let as = 0;
          if (lex.isWord('addrspace')) {
            lex.next();
            this.expectPunct('(');
            as = this.expectInt();
            this.expectPunct(')');
          }
          t = { kind: 'ptr', pointee: undefined, addrSpace: as };
        } else throw lex.error(`expected a type, found '${w}'`, lex.start - 1);
        break;
      }
      case Tok.LocalVar:
        t = this.namedType(lex.tokenName);
        lex.next();
        break;
      case Tok.Punct:
        if (lex.ch === 123) {
          // {
          lex.next();
          t = literalStruct(this.typeList('}'));
        } else if (lex.ch === 91) {
          // [
          lex.next();
          const n = this.expectInt();
          this.expectWord('x');
          const el = this.parseType();
          this.expectPunct(']');
          t = arrayOf(el, n);
        } else if (lex.ch === 60) {
          // <
          lex.next();
          if (lex.isPunct('{')) {
            lex.next();
            t = literalStruct(this.typeList('}'), true);
            this.expectPunct('>');
          } else {
            const scalable = this.eatWord('vscale');
            if (scalable) this.expectWord('x');
            const n = this.expectInt();
            this.expectWord('x');
            const el = this.parseType();
            this.expectPunct('>');
            t = vectorOf(el, n, scalable);
          }
        } else throw lex.error(`expected a type, found '${lex.tokenText}'`);
        break;
      default:
        throw lex.error(`expected a type, found '${lex.tokenText}'`);
    }
    for (;;) {
      if (lex.isPunct('*')) {
        lex.next();
        t = pointerTo(t);
      } else if (lex.isWord('addrspace')) {
        lex.next();
        this.expectPunct('(');
        const as = this.expectInt();
        this.expectPunct(')');
        this.expectPunct('*');
        t = pointerTo(t, as);
      } else if (lex.isPunct('(')) {
        lex.next();
        const params: Type[] = [];
        let varArg = false;
        while (!lex.isPunct(')')) {
          if (lex.tok() === Tok.Ellipsis) {
            lex.next();
            varArg = true;
            break;
          }
          params.push(this.parseType());
          if (!this.eatPunct(',')) break;
        }
        this.expectPunct(')');
        t = functionType(t, params, varArg);
      } else return t;
    }
  }

  private typeList(close: string): Type[] {
    const out: Type[] = [];
    if (this.eatPunct(close)) return out;
    for (;;) {
      out.push(this.parseType());
      if (this.eatPunct(close)) return out;
      this.expectPunct(',');
    }
  }

  /* ------------------------------------------------------------ values */

  private placeholder(type: Type): Value {
    const p = createInstruction('freeze', type, []);
    this.placeholders.add(p);
    return p;
  }

  private localRef(name: string, type: Type): Value {
    const st = this.cur;
    if (!st) throw this.lex.error(`local value %${name} outside a function`);
    const v = st.locals.get(name);
    if (v !== undefined) return v;
    const p = this.placeholder(type);
    st.locals.set(name, p);
    return p;
  }

  private globalRef(name: string, type: Type): Value {
    const v = this.globalRefs.get(name);
    if (v !== undefined) return v;
    const p = this.placeholder(type);
    this.globalRefs.set(name, p);
    return p;
  }

  /** `T v` */
  private typedValue(): Value {
    return this.parseValue(this.parseType());
  }

  /** A value of known type: local, global, constant, constant expression, metadata, inline asm. */
  parseValue(type: Type): Value {
    const lex = this.lex;
    if (type.kind === 'metadata') {
      const k = lex.tok();
      if (k === Tok.MetadataVar || k === Tok.Exclaim) return this.metadataOperand();
      return metadataWrapping([this.typedValue()], false);
    }
    switch (lex.tok()) {
      case Tok.LocalVar: {
        const v = this.localRef(lex.tokenName, type);
        lex.next();
        return v;
      }
      case Tok.GlobalVar: {
        const v = this.globalRef(lex.tokenName, type);
        lex.next();
        return v;
      }
      case Tok.Int: {
        const text = lex.tokenText;
        const at = lex.start;
        lex.next();
        if (type.kind !== 'int') throw lex.error('integer constant for a non-integer type', at);
        return constInt(type, BigInt(text));
      }
      case Tok.Float: {
        const text = lex.tokenText;
        const at = lex.start;
        lex.next();
        if (type.kind === 'int') {
          if (!/^0x[0-9A-Fa-f]+$/.test(text)) throw lex.error('floating-point constant for an integer type', at);
          return constInt(type, BigInt.asIntN(type.bits, BigInt(text)));
        }
        if (type.kind !== 'float') throw lex.error('floating-point constant for a non-FP type', at);
        return constFPText(type, text);
      }
      case Tok.CString: {
        const text = lex.tokenText.slice(2, -1);
        lex.next();
        return constString(type, text);
      }
      case Tok.Punct:
        return this.aggregate(type);
      case Tok.Word:
        return this.wordValue(type);
      default:
        throw lex.error(`expected a value, found '${lex.tokenText}'`);
    }
  }

  private aggregate(type: Type): Value {
    const lex = this.lex;
    let close: string;
    let packed = false;
    if (lex.isPunct('[')) close = ']';
    else if (lex.isPunct('{')) close = '}';
    else if (lex.isPunct('<')) {
      lex.next();
      if (lex.isPunct('{')) {
        packed = true;
        close = '}';
      } else {
        const elems = this.valueList('>');
        return constAggregate(type, elems);
      }
    } else throw lex.error(`expected a value, found '${lex.tokenText}'`);
    lex.next();
    const elems = this.valueList(close);
    if (packed) this.expectPunct('>');
    return constAggregate(type, elems);
  }

  /** Typed values separated by commas, up to `close` (consumed). */
  private valueList(close: string): Value[] {
    const out: Value[] = [];
    if (this.eatPunct(close)) return out;
    for (;;) {
      out.push(this.typedValue());
      if (this.eatPunct(close)) return out;
      this.expectPunct(',');
    }
  }

  private metadataOperand(): Value {
    const lex = this.lex;
    if (lex.tok() === Tok.MetadataVar && lex.tokenText === '!DIArgList') {
      lex.next();
      this.expectPunct('(');
      const vals: Value[] = [];
      while (!lex.isPunct(')')) {
        vals.push(this.typedValue());
        if (!this.eatPunct(',')) break;
      }
      this.expectPunct(')');
      return metadataWrapping(vals, true);
    }
    return metadataText(this.rawMetadata());
  }

  private wordValue(type: Type): Value {
    const lex = this.lex;
    const w = lex.tokenText;
    switch (w) {
      case 'true':
      case 'false':
        lex.next();
        if (type.kind !== 'int') throw lex.error('boolean constant for a non-integer type');
        return constInt(type, w === 'true' ? 1 : 0);
      case 'null':
        lex.next();
        return constNull(type);
      case 'undef':
        lex.next();
        return undef(type);
      case 'poison':
        lex.next();
        return poison(type);
      case 'zeroinitializer':
        lex.next();
        return zeroInitializer(type);
      case 'none':
        lex.next();
        return tokenNone();
      case 'asm': {
        const start = lex.start;
        lex.next();
        while (lex.tok() === Tok.Word) lex.next(); // sideeffect alignstack inteldialect unwind
        if (lex.tok() !== Tok.String) throw lex.error('expected inline asm string');
        lex.next();
        this.expectPunct(',');
        if (lex.tok() !== Tok.String) throw lex.error('expected inline asm constraints');
        const end = lex.end;
        lex.next();
        return inlineAsm(type, this.text.slice(start, end));
      }
      case 'blockaddress': {
        lex.next();
        this.expectPunct('(');
        if (lex.tok() !== Tok.GlobalVar) throw lex.error('expected a function');
        const fnName = lex.tokenName;
        const fnType = pointerTo(voidType);
        const fn = this.globalRef(fnName, fnType);
        lex.next();
        this.expectPunct(',');
        if (lex.tok() !== Tok.LocalVar) throw lex.error('expected a block');
        const block = this.blockOf(fnName, fn, lex.tokenName);
        lex.next();
        this.expectPunct(')');
        return blockAddress(type, fn, block);
      }
      case 'dso_local_equivalent': {
        lex.next();
        if (lex.tok() !== Tok.GlobalVar) throw lex.error('expected a function');
        const fn = this.globalRef(lex.tokenName, type);
        lex.next();
        return dsoLocalEquivalent(type, fn);
      }
      default:
        if (constantWords.has(w)) return this.constantExpression(type);
        throw lex.error(`expected a value, found '${w}'`);
    }
  }

  /** The block named `name` of function `@fnName` for blockaddress, wherever we are in the text. */
  private blockOf(fnName: string, fn: Value, name: string): BasicBlock {
    if (this.cur && this.cur.fn.name === fnName) return this.blockRef(name);
    if (fn.kind === 'function' && !fn.isDeclaration) {
      const numbers = numberLocals(fn);
      const found = fn.blocks.find((b) => (b.name !== undefined ? b.name === name : String(numbers.get(b)) === name));
      if (!found) throw this.lex.error(`no block %${name} in @${fnName}`);
      return found;
    }
    let blocks = this.pendingBlocks.get(fnName);
    if (!blocks) {
      blocks = new Map();
      this.pendingBlocks.set(fnName, blocks);
    }
    let b = blocks.get(name);
    if (!b) {
      b = createBlock(isNumeric(name) ? undefined : name);
      blocks.set(name, b);
    }
    return b;
  }

  private constantExpression(type: Type): Value {
    const lex = this.lex;
    const op = lex.tokenText as Opcode;
    lex.next();
    let flags = 0;
    if (op === 'getelementptr') {
      if (this.eatWord('inbounds')) flags |= InstFlag.InBounds;
      this.expectPunct('(');
      const sourceElementType = this.parseType();
      this.expectPunct(',');
      const ops: Value[] = [];
      let inRangeIndex: number | undefined;
      for (;;) {
        if (this.eatWord('inrange')) inRangeIndex = ops.length - 1;
        ops.push(this.typedValue());
        if (this.eatPunct(')')) break;
        this.expectPunct(',');
      }
      return constExpr(op, type, ops, { flags, sourceElementType, ...(inRangeIndex !== undefined ? { inRangeIndex } : {}) });
    }
    if (castOps.has(op)) {
      this.expectPunct('(');
      const v = this.typedValue();
      this.expectWord('to');
      const to = this.parseType();
      this.expectPunct(')');
      return constExpr(op, to, [v]);
    }
    if (op === 'icmp' || op === 'fcmp') {
      const predicate = lex.tokenText as Predicate;
      lex.next();
      this.expectPunct('(');
      const ops = this.valueList(')');
      return constExpr(op, type, ops, { predicate });
    }
    if (op === 'extractvalue' || op === 'insertvalue') {
      this.expectPunct('(');
      const ops: Value[] = [this.typedValue()];
      const indices: number[] = [];
      while (this.eatPunct(',')) {
        if (lex.tok() === Tok.Int) indices.push(this.expectInt());
        else ops.push(this.typedValue());
      }
      this.expectPunct(')');
      return constExpr(op, type, ops, { indices });
    }
    flags = this.wrapFlags();
    this.expectPunct('(');
    const ops = this.valueList(')');
    return constExpr(op, type, ops, { flags });
  }

  /** nuw / nsw / exact words. */
  private wrapFlags(): number {
    let flags = 0;
    for (;;) {
      if (this.eatWord('nuw')) flags |= InstFlag.NoUnsignedWrap;
      else if (this.eatWord('nsw')) flags |= InstFlag.NoSignedWrap;
      else if (this.eatWord('exact')) flags |= InstFlag.Exact;
      else return flags;
    }
  }

  private fastMathFlags(): number {
    let f = 0;
    for (;;) {
      const lex = this.lex;
      if (lex.tok() !== Tok.Word) return f;
      const bit = fastMathWords.get(lex.tokenText);
      if (bit === undefined) return f;
      f |= bit;
      lex.next();
    }
  }

  /* ------------------------------------------------------------ instructions */

  private parseInstruction(): Instruction {
    const lex = this.lex;
    let name: string | undefined;
    if (lex.tok() === Tok.LocalVar) {
      name = lex.tokenName;
      lex.next();
      this.expectPunct('=');
    }
    if (lex.tok() !== Tok.Word) throw lex.error(`expected an instruction, found '${lex.tokenText}'`);
    const inst = this.instructionBody();
    if (name !== undefined) {
      if (inst.type.kind === 'void') throw lex.error(`instructions returning void cannot have a name`);
      inst.name = isNumeric(name) ? undefined : name;
      this.defineLocalIn(this.cur!.locals, name, inst);
    }
    return inst;
  }

  /** The tail shared by all instructions: `, align N`, `, !md !N` ... */
  private tail(inst: Instruction): Instruction {
    const lex = this.lex;
    while (lex.isPunct(',')) {
      lex.next();
      this.tailItem(inst);
    }
    return inst;
  }
  private tailItem(inst: Instruction): void {
    const lex = this.lex;
    if (lex.tok() === Tok.MetadataVar) {
      const name = lex.tokenName;
      lex.next();
      inst.metadata.push({ name, ref: this.rawMetadata() } as MetadataAttachment);
    } else if (lex.isWord('align')) {
      lex.next();
      inst.align = this.expectInt();
    } else if (lex.isWord('addrspace')) {
      lex.next();
      this.expectPunct('(');
      inst.addrSpace = this.expectInt();
      this.expectPunct(')');
      if (inst.opcode === 'alloca' && inst.type.kind === 'ptr') inst.type = pointerTo(inst.allocatedType!, inst.addrSpace);
    } else throw lex.error(`unexpected '${lex.tokenText}' after instruction`);
  }

  private instructionBody(): Instruction {
    const lex = this.lex;
    const word = lex.tokenText;
    const start = lex.start;
    lex.next();
    if (binaryOps.has(word)) {
      const op = word as Opcode;
      const flags = this.wrapFlags();
      const fmf = this.fastMathFlags();
      const t = this.parseType();
      const a = this.parseValue(t);
      this.expectPunct(',');
      const b = this.parseValue(t);
      return this.tail(createInstruction(op, t, [a, b], { flags, fastMath: fmf }));
    }
    if (castOps.has(word)) {
      const v = this.typedValue();
      this.expectWord('to');
      const to = this.parseType();
      return this.tail(createInstruction(word as Opcode, to, [v]));
    }
    const group = INSTRUCTION_GROUPS.get(word);
    if (group === undefined) throw lex.error(`unsupported instruction '${word}'`, start);
    return this[group](word, start);
  }

  /** The instruction after its opcode `word`: comparisons, PHIs, select, fneg, freeze and va_arg. */
  private compareOrValue(word: string, start: number): Instruction {
    const lex = this.lex;
    switch (word) {
      case 'icmp':
      case 'fcmp': {
        const fmf = this.fastMathFlags();
        const predicate = lex.tokenText as Predicate;
        lex.next();
        const t = this.parseType();
        const a = this.parseValue(t);
        this.expectPunct(',');
        const b = this.parseValue(t);
        const rt = t.kind === 'vector' ? vectorOf(i1, t.length, t.scalable) : i1;
        return this.tail(createInstruction(word, rt, [a, b], { predicate, fastMath: fmf }));
      }
      case 'phi': {
        const fastMath = this.fastMathFlags();
        const t = this.parseType();
        const ops: Value[] = [];
        const incomingBlocks: BasicBlock[] = [];
        for (;;) {
          this.expectPunct('[');
          ops.push(this.parseValue(t));
          this.expectPunct(',');
          if (lex.tok() !== Tok.LocalVar) throw lex.error('expected a block');
          incomingBlocks.push(this.blockRef(lex.tokenName));
          lex.next();
          this.expectPunct(']');
          if (!this.eatPunct(',')) return createInstruction('phi', t, ops, { fastMath, incomingBlocks });
          if (!lex.isPunct('[')) {
            const inst = createInstruction('phi', t, ops, { fastMath, incomingBlocks });
            this.tailItem(inst);
            return this.tail(inst);
          }
        }
      }
      case 'select': {
        const fastMath = this.fastMathFlags();
        const c = this.typedValue();
        this.expectPunct(',');
        const a = this.typedValue();
        this.expectPunct(',');
        const b = this.typedValue();
        return this.tail(createInstruction('select', a.type, [c, a, b], { fastMath }));
      }
      case 'fneg': {
        const fastMath = this.fastMathFlags();
        const v = this.typedValue();
        return this.tail(createInstruction('fneg', v.type, [v], { fastMath }));
      }
      case 'freeze': {
        const v = this.typedValue();
        return this.tail(createInstruction('freeze', v.type, [v]));
      }
      case 'va_arg': {
        const v = this.typedValue();
        this.expectPunct(',');
        const t = this.parseType();
        return this.tail(createInstruction('va_arg', t, [v]));
      }
      default:
        throw lex.error(`unsupported instruction '${word}'`, start);
    }
  }

  /** The instruction after its opcode `word`: loads, stores, GEPs, allocas and the atomics. */
  private memoryInstruction(word: string, start: number): Instruction {
    const lex = this.lex;
    switch (word) {
      case 'load':
        return this.parseLoad();
      case 'store':
        return this.parseStore();
      case 'getelementptr': {
        const flags = this.eatWord('inbounds') ? InstFlag.InBounds : 0;
        const sourceElementType = this.parseType();
        const ops: Value[] = [];
        while (this.eatPunct(',')) {
          if (lex.tok() === Tok.MetadataVar) {
            const inst = createInstruction('getelementptr', gepResultType(sourceElementType, ops), ops, {
              flags,
              sourceElementType,
            });
            this.tailItem(inst);
            return this.tail(inst);
          }
          ops.push(this.typedValue());
        }
        return createInstruction('getelementptr', gepResultType(sourceElementType, ops), ops, { flags, sourceElementType });
      }
      case 'alloca': {
        let flags = 0;
        for (;;) {
          if (this.eatWord('inalloca')) flags |= InstFlag.InAlloca;
          else if (this.eatWord('swifterror')) flags |= InstFlag.SwiftError;
          else break;
        }
        const allocatedType = this.parseType();
        const inst = createInstruction('alloca', pointerTo(allocatedType), [], { flags, allocatedType });
        if (this.eatPunct(',')) {
          if (lex.tok() === Tok.Word && (lex.isWord('align') || lex.isWord('addrspace'))) this.tailItem(inst);
          else if (lex.tok() === Tok.MetadataVar) this.tailItem(inst);
          else appendOp(inst, this.typedValue());
        }
        return this.tail(inst);
      }
      case 'fence': {
        const atomic = this.atomicOrdering();
        return this.tail(createInstruction('fence', voidType, [], { atomic }));
      }
      case 'cmpxchg': {
        let flags = 0;
        if (this.eatWord('weak')) flags |= InstFlag.Weak;
        if (this.eatWord('volatile')) flags |= InstFlag.Volatile;
        const p = this.typedValue();
        this.expectPunct(',');
        const cmp = this.typedValue();
        this.expectPunct(',');
        const nv = this.typedValue();
        const atomic = this.atomicOrdering();
        atomic.failureOrdering = lex.tokenText;
        lex.next();
        const rt = literalStruct([cmp.type, i1]);
        return this.tail(createInstruction('cmpxchg', rt, [p, cmp, nv], { flags, atomic }));
      }
      case 'atomicrmw': {
        const flags = this.eatWord('volatile') ? InstFlag.Volatile : 0;
        const rmwOperation = lex.tokenText;
        lex.next();
        const p = this.typedValue();
        this.expectPunct(',');
        const v = this.typedValue();
        const atomic = this.atomicOrdering();
        return this.tail(createInstruction('atomicrmw', v.type, [p, v], { flags, atomic, rmwOperation }));
      }
      default:
        throw lex.error(`unsupported instruction '${word}'`, start);
    }
  }

  /** The instruction after its opcode `word`: terminators and calls. */
  private controlInstruction(word: string, start: number): Instruction {
    const lex = this.lex;
    switch (word) {
      case 'br': {
        if (lex.isWord('label')) return this.tail(createInstruction('br', voidType, [this.parseLabel()]));
        const c = this.typedValue();
        this.expectPunct(',');
        const t = this.parseLabel();
        this.expectPunct(',');
        const f = this.parseLabel();
        return this.tail(createInstruction('br', voidType, [c, t, f]));
      }
      case 'ret': {
        const t = this.parseType();
        if (t.kind === 'void') return this.tail(createInstruction('ret', voidType, []));
        return this.tail(createInstruction('ret', voidType, [this.parseValue(t)]));
      }
      case 'call':
      case 'tail':
      case 'musttail':
      case 'notail': {
        let flags = 0;
        if (word !== 'call') {
          flags = word === 'tail' ? InstFlag.Tail : word === 'musttail' ? InstFlag.MustTail : InstFlag.NoTail;
          this.expectWord('call');
        }
        return this.parseCall('call', flags);
      }
      case 'invoke':
        return this.parseCall('invoke', 0);
      case 'switch': {
        const c = this.typedValue();
        this.expectPunct(',');
        const ops: Value[] = [c, this.parseLabel()];
        this.expectPunct('[');
        while (!lex.isPunct(']')) {
          ops.push(this.typedValue());
          this.expectPunct(',');
          ops.push(this.parseLabel());
        }
        lex.next();
        return this.tail(createInstruction('switch', voidType, ops));
      }
      case 'unreachable':
        return this.tail(createInstruction('unreachable', voidType, []));
      case 'resume':
        return this.tail(createInstruction('resume', voidType, [this.typedValue()]));
      case 'indirectbr': {
        const ops = [this.typedValue()];
        this.expectPunct(',');
        this.expectPunct('[');
        while (!lex.isPunct(']')) {
          ops.push(this.parseLabel());
          if (!this.eatPunct(',')) break;
        }
        this.expectPunct(']');
        return this.tail(createInstruction('indirectbr', voidType, ops));
      }
      case 'callbr':
        return this.parseCall('callbr', 0);
      default:
        throw lex.error(`unsupported instruction '${word}'`, start);
    }
  }

  /** The instruction after its opcode `word`: aggregate and vector element operations. */
  private aggregateInstruction(word: string, start: number): Instruction {
    const lex = this.lex;
    switch (word) {
      case 'extractvalue':
      case 'insertvalue': {
        const agg = this.typedValue();
        const ops = [agg];
        if (word === 'insertvalue') {
          this.expectPunct(',');
          ops.push(this.typedValue());
        }
        const indices: number[] = [];
        const inst = createInstruction(word, voidType, ops, { indices });
        while (this.eatPunct(',')) {
          if (lex.tok() !== Tok.Int) {
            this.tailItem(inst);
            break;
          }
          indices.push(this.expectInt());
        }
        inst.type = word === 'insertvalue' ? agg.type : extractedType(agg.type, indices);
        return this.tail(inst);
      }
      case 'extractelement': {
        const v = this.typedValue();
        this.expectPunct(',');
        const idx = this.typedValue();
        const el = v.type.kind === 'vector' ? v.type.element : voidType;
        return this.tail(createInstruction('extractelement', el, [v, idx]));
      }
      case 'insertelement': {
        const v = this.typedValue();
        this.expectPunct(',');
        const e = this.typedValue();
        this.expectPunct(',');
        const idx = this.typedValue();
        return this.tail(createInstruction('insertelement', v.type, [v, e, idx]));
      }
      case 'shufflevector': {
        const a = this.typedValue();
        this.expectPunct(',');
        const b = this.typedValue();
        this.expectPunct(',');
        const mask = this.typedValue();
        const el = a.type.kind === 'vector' ? a.type.element : voidType;
        const mt = mask.type.kind === 'vector' ? mask.type : undefined;
        const rt = vectorOf(el, mt ? mt.length : 0, mt ? mt.scalable : false);
        return this.tail(createInstruction('shufflevector', rt, [a, b, mask]));
      }
      default:
        throw lex.error(`unsupported instruction '${word}'`, start);
    }
  }

  /** The instruction after its opcode `word`: landing pads and the funclet pads and their returns. */
  private exceptionPadInstruction(word: string, start: number): Instruction {
    const lex = this.lex;
    switch (word) {
      case 'landingpad': {
        const t = this.parseType();
        const flags = this.eatWord('cleanup') ? InstFlag.Cleanup : 0;
        const clauses: ('catch' | 'filter')[] = [];
        const ops: Value[] = [];
        for (;;) {
          if (this.eatWord('catch')) clauses.push('catch');
          else if (this.eatWord('filter')) clauses.push('filter');
          else break;
          ops.push(this.typedValue());
        }
        return this.tail(createInstruction('landingpad', t, ops, { flags, clauses }));
      }
      case 'catchswitch': {
        // catchswitch within %parent [label %h, ...] unwind (to caller | label %u)
        this.expectWord('within');
        const ops: Value[] = [this.parseValue(tokenType)];
        this.expectPunct('[');
        while (!lex.isPunct(']')) {
          ops.push(this.parseLabel());
          if (!this.eatPunct(',')) break;
        }
        this.expectPunct(']');
        this.expectWord('unwind');
        const unwindToCaller = this.eatWord('to');
        if (unwindToCaller) this.expectWord('caller');
        else ops.push(this.parseLabel());
        return this.tail(createInstruction('catchswitch', tokenType, ops, { unwindToCaller }));
      }
      case 'catchpad':
      case 'cleanuppad': {
        // catchpad within %cs [T v, ...]
        this.expectWord('within');
        const ops: Value[] = [this.parseValue(tokenType)];
        this.expectPunct('[');
        while (!lex.isPunct(']')) {
          ops.push(this.typedValue());
          if (!this.eatPunct(',')) break;
        }
        this.expectPunct(']');
        return this.tail(createInstruction(word, tokenType, ops));
      }
      case 'catchret': {
        // catchret from %pad to label %dest
        this.expectWord('from');
        const pad = this.parseValue(tokenType);
        this.expectWord('to');
        return this.tail(createInstruction('catchret', voidType, [pad, this.parseLabel()]));
      }
      case 'cleanupret': {
        // cleanupret from %pad unwind (to caller | label %u)
        this.expectWord('from');
        const ops: Value[] = [this.parseValue(tokenType)];
        this.expectWord('unwind');
        const unwindToCaller = this.eatWord('to');
        if (unwindToCaller) this.expectWord('caller');
        else ops.push(this.parseLabel());
        return this.tail(createInstruction('cleanupret', voidType, ops, { unwindToCaller }));
      }
      default:
        throw lex.error(`unsupported instruction '${word}'`, start);
    }
  }

  /** `[syncscope("x")] ordering` */
  private atomicOrdering(): { syncScope?: string; ordering: string; failureOrdering?: string } {
    const lex = this.lex;
    let syncScope: string | undefined;
    if (this.eatWord('syncscope')) {
      this.expectPunct('(');
      syncScope = this.expectString();
      this.expectPunct(')');
    }
    const ordering = lex.tokenText;
    lex.next();
    return syncScope !== undefined ? { syncScope, ordering } : { ordering };
  }

  private parseLoad(): Instruction {
    const atomic = this.eatWord('atomic');
    const flags = this.eatWord('volatile') ? InstFlag.Volatile : 0;
    const t = this.parseType();
    this.expectPunct(',');
    const p = this.typedValue();
    const inst = createInstruction('load', t, [p], { flags });
    if (atomic) inst.atomic = this.atomicOrdering();
    return this.tail(inst);
  }

  private parseStore(): Instruction {
    const atomic = this.eatWord('atomic');
    const flags = this.eatWord('volatile') ? InstFlag.Volatile : 0;
    const v = this.typedValue();
    this.expectPunct(',');
    const p = this.typedValue();
    const inst = createInstruction('store', voidType, [v, p], { flags });
    if (atomic) inst.atomic = this.atomicOrdering();
    return this.tail(inst);
  }

  private parseCall(opcode: 'call' | 'invoke' | 'callbr', flags: number): Instruction {
    const lex = this.lex;
    const fastMath = this.fastMathFlags();
    let callingConv: string | undefined;
    if (lex.tok() === Tok.Word && !this.startsType() && isCallingConv(lex.tokenText)) {
      const ccStart = lex.start;
      const w = lex.tokenText;
      lex.next();
      if (w === 'cc') lex.next();
      callingConv = this.text.slice(ccStart, this.lastEnd);
    }
    const returnAttrs = this.attributesUntil(() => this.startsType() || lex.isWord('addrspace'));
    let addrSpace: string | undefined;
    if (lex.isWord('addrspace')) {
      const s = lex.start;
      lex.next();
      this.skipParens();
      addrSpace = this.text.slice(s, this.lastEnd);
    }
    const t = this.parseType();
    const explicitFnType = t.kind === 'function' ? t : undefined;
    // the callee's type is a pointer to the function type; built once the arguments are known
    const calleeStart = lex.start;
    // A global callee is resolved after the arguments, when its type is known (it is often
    // declared further down, so it needs a typed placeholder); others are parsed right away.
    let callee: Value | undefined;
    let calleeName: string | undefined;
    if (lex.tok() === Tok.GlobalVar) {
      calleeName = lex.tokenName;
      lex.next();
    } else callee = this.parseValue(pointerTo(explicitFnType ?? functionType(t, [])));
    this.expectPunct('(');
    const args: Value[] = [];
    const argAttrs: string[] = [];
    while (!lex.isPunct(')')) {
      const at = this.parseType();
      argAttrs.push(at.kind === 'metadata' ? '' : this.attributesUntil(() => this.startsValue()));
      args.push(this.parseValue(at));
      if (!this.eatPunct(',')) break;
    }
    this.expectPunct(')');
    let fnType: FunctionType | undefined = explicitFnType;
    if (!fnType) {
      // share the callee's own function type when it matches (most direct calls)
      const known = calleeName !== undefined ? this.globalRefs.get(calleeName) : callee;
      const ft = known && known.kind === 'function' ? known.functionType : undefined;
      fnType =
        ft && !ft.varArg && ft.params.length === args.length && typesEqual(ft.returnType, t) &&
        args.every((a, i) => typesEqual(a.type, ft.params[i]!))
          ? ft
          : functionType(t, args.map((a) => a.type), false);
    }
    if (calleeName !== undefined) callee = this.globalRef(calleeName, pointerTo(fnType));
    if (callee!.kind === 'inline-asm') callee!.type = pointerTo(fnType);
    const eol = lex.lineEnd(calleeStart);
    const fnAttrs = this.attributesUntil(
      () => lex.start >= eol || lex.isPunct(',') || lex.isPunct('[') || lex.isWord('to') || lex.tok() === Tok.Eof,
    );
    const call: CallInfo = { functionType: fnType, returnAttrs, argAttrs, fnAttrs };
    if (callingConv !== undefined) call.callingConv = callingConv;
    if (addrSpace !== undefined) call.addrSpace = addrSpace;
    const ops = [callee!, ...args];
    if (lex.start < eol && lex.isPunct('[')) {
      lex.next();
      call.bundles = [];
      while (!lex.isPunct(']')) {
        const tag = this.expectString();
        this.expectPunct('(');
        let count = 0;
        while (!lex.isPunct(')')) {
          ops.push(this.typedValue());
          count++;
          if (!this.eatPunct(',')) break;
        }
        this.expectPunct(')');
        call.bundles.push({ tag, count });
        if (!this.eatPunct(',')) break;
      }
      this.expectPunct(']');
    }
    let indirectCount: number | undefined;
    if (opcode === 'invoke') {
      this.expectWord('to');
      ops.push(this.parseLabel());
      this.expectWord('unwind');
      ops.push(this.parseLabel());
    } else if (opcode === 'callbr') {
      // to label %default [label %indirect, ...]
      this.expectWord('to');
      ops.push(this.parseLabel());
      this.expectPunct('[');
      indirectCount = 0;
      while (!lex.isPunct(']')) {
        ops.push(this.parseLabel());
        indirectCount++;
        if (!this.eatPunct(',')) break;
      }
      this.expectPunct(']');
    }
    return this.tail(createInstruction(opcode, fnType.returnType, ops, { flags, fastMath, call, indirectCount }));
  }

  /** Whether the current token begins a value (as opposed to a parameter attribute). */
  private startsValue(): boolean {
    const lex = this.lex;
    switch (lex.tok()) {
      case Tok.LocalVar:
      case Tok.GlobalVar:
      case Tok.Int:
      case Tok.Float:
      case Tok.CString:
      case Tok.Exclaim:
      case Tok.MetadataVar:
        return true;
      case Tok.Punct:
        return lex.ch === 91 || lex.ch === 123 || lex.ch === 60;
      case Tok.Word:
        return constantWords.has(lex.tokenText);
      default:
        return false;
    }
  }
}


/** [-a-zA-Z$._0-9\\] */
function isMetadataNameChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) ||
    c === 45 || c === 36 || c === 46 || c === 95 || c === 92
  );
}

function isNumeric(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Result type of `getelementptr T, T* p, idx...` (vector of pointers for vector GEPs). */
export function gepResultType(sourceElementType: Type, ops: readonly Value[]): Type {
  let t: Type | undefined = sourceElementType;
  for (let i = 2; i < ops.length; i++) {
    const idx = ops[i]!;
    const field = idx.kind === 'const-int' ? Number(idx.value) : fieldOfVectorConstant(idx);
    t = t === undefined ? undefined : indexedType(t, field);
  }
  const base = ops[0]?.type;
  const as = base && base.kind === 'ptr' ? base.addrSpace : base && base.kind === 'vector' && base.element.kind === 'ptr' ? base.element.addrSpace : 0;
  const opaque = base !== undefined && (base.kind === 'ptr' ? base.pointee === undefined : base.kind === 'vector' && base.element.kind === 'ptr' && base.element.pointee === undefined);
  const ptr: PointerType = opaque ? { kind: 'ptr', pointee: undefined, addrSpace: as } : pointerTo(t ?? voidType, as);
  for (const o of ops) if (o.type.kind === 'vector') return vectorOf(ptr, o.type.length, o.type.scalable);
  return ptr;
}

function fieldOfVectorConstant(v: Value): number | undefined {
  if (v.kind === 'const-aggregate' && v.operands[0]?.kind === 'const-int') return Number(v.operands[0].value);
  if (v.kind === 'zeroinitializer') return 0;
  return undefined;
}

function extractedType(t: Type, indices: readonly number[]): Type {
  let cur: Type | undefined = t;
  for (const i of indices) cur = cur === undefined ? undefined : indexedType(cur, i);
  return cur ?? voidType;
}
