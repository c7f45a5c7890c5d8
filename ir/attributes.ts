// Reading the verbatim attribute text: `#3 nounwind "frame-pointer"="all" align 8` as a set.
import type { Instruction, IrFunction, Module } from './types';

/**
 * The attributes named by verbatim attribute text, with attribute groups (`#N`) expanded
 * through `m.attributeGroups`. Entries are as LLVM prints them: `nounwind`, `readnone`,
 * `align 8`, `dereferenceable(16)`, `"frame-pointer"="all"`.
 */
export function attributeSet(m: Module, text: string): Set<string> {
  const out = new Set<string>();
  for (const word of splitAttributes(text)) {
    if (/^#[0-9]+$/.test(word)) {
      const body = m.attributeGroups.get(Number(word.slice(1)));
      if (body) for (const w of splitAttributes(body.replace(/^\{|\}$/g, ''))) out.add(w);
    } else out.add(word);
  }
  return out;
}

/** Attribute words at top level; `align N` stays one entry, `x(...)` and quoted pairs too. */
function splitAttributes(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && /\s/.test(text[i]!)) i++;
    if (i >= n) break;
    const start = i;
    let depth = 0;
    while (i < n) {
      const c = text[i]!;
      if (c === '"') {
        i = text.indexOf('"', i + 1) + 1 || n;
        continue;
      }
      if (c === '(') depth++;
      else if (c === ')') depth--;
      else if (depth === 0 && /\s/.test(c)) break;
      i++;
    }
    let word = text.slice(start, i);
    if (word === 'align' || word === 'alignstack') {
      // `align 8` is one attribute
      const m = /^\s+[0-9]+/.exec(text.slice(i));
      if (m) {
        word += ' ' + m[0].trim();
        i += m[0].length;
      }
    }
    if (word !== '{' && word !== '}') out.push(word);
  }
  return out;
}

/** `#N`, the module's attribute group whose text is `{ attrs }`, added when there is none. */
export function attributeGroup(m: Module, attrs: string): string {
  const body = `{ ${attrs} }`;
  let group: number | undefined;
  for (const [n, b] of m.attributeGroups) if (b === body) group = n;
  if (group === undefined) {
    group = 0;
    for (const n of m.attributeGroups.keys()) if (n >= group) group = n + 1;
    m.attributeGroups.set(group, body);
  }
  return `#${group}`;
}

/** The function attributes of a function (from its suffix, e.g. `#0`). */
export function functionAttributes(fn: IrFunction): Set<string> {
  return attributeSet(fn.parent, fn.suffix);
}

/** The function attributes in force at a call: the call site's plus the callee's (direct calls). */
export function callAttributes(call: Instruction, m: Module): Set<string> {
  if (!call.call) throw new TypeError(`${call.opcode} is not a call`);
  const out = attributeSet(m, call.call.fnAttrs);
  const callee = call.operands[0];
  if (callee && callee.kind === 'function') for (const a of functionAttributes(callee)) out.add(a);
  return out;
}

/** Whether a call neither reads nor writes memory visible to the caller (readnone at the call or callee). */
export function callIsReadNone(call: Instruction, m: Module): boolean {
  return callAttributes(call, m).has('readnone');
}
