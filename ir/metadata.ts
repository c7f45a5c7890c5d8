// Reading the verbatim metadata table: enough to resolve `!dbg` to a source location.
import type { Instruction, Module } from './types';

/** A specialized node `!DIName(field: value, ...)` split into its top-level fields. */
export interface MetadataNode {
  /** `DILocation`, `DIFile`, ... ; `''` for a tuple `!{...}`. */
  tag: string;
  distinct: boolean;
  /** Field values verbatim (`5`, `!7`, `"k.c"`). For tuples, keys are "0", "1", ... */
  fields: Map<string, string>;
}

/** Parses one metadata body (`distinct !DILocation(line: 3, scope: !5)`); undefined when it is something else. */
export function parseMetadataBody(body: string): MetadataNode | undefined {
  let s = body.trim();
  let distinct = false;
  if (s.startsWith('distinct ')) {
    distinct = true;
    s = s.slice(9).trimStart();
  }
  if (!s.startsWith('!')) return undefined;
  let tag: string;
  let open: number;
  if (s.startsWith('!{')) {
    tag = '';
    open = 1;
  } else {
    open = s.indexOf('(');
    if (open < 0) return undefined;
    tag = s.slice(1, open);
  }
  const close = tag === '' ? '}' : ')';
  const fields = new Map<string, string>();
  const parts = splitTopLevel(s.slice(open + 1, s.lastIndexOf(close)));
  parts.forEach((part, i) => {
    if (tag === '') {
      fields.set(String(i), part);
      return;
    }
    const colon = part.indexOf(':');
    if (colon > 0) fields.set(part.slice(0, colon).trim(), part.slice(colon + 1).trim());
  });
  return { tag, distinct, fields };
}

/** Splits on commas outside quotes, parentheses, braces and brackets. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '(' || c === '{' || c === '[' || c === '<') depth++;
    else if (c === ')' || c === '}' || c === ']' || c === '>') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = s.slice(start).trim();
  if (last !== '' || out.length > 0) out.push(last);
  return out;
}

/** Parsed nodes per module, keyed by number; an entry is reused only while its body text is unchanged. */
const parsedNodes = new WeakMap<Module, Map<number, { body: string; node: MetadataNode | undefined }>>();

/** The node that `ref` (`!12`) names in the module's metadata table, or an inline node. */
export function resolveMetadata(m: Module, ref: string): MetadataNode | undefined {
  const r = ref.trim();
  if (/^![0-9]+$/.test(r)) {
    const n = Number(r.slice(1));
    const body = m.metadata.get(n);
    if (body === undefined) return undefined;
    let cache = parsedNodes.get(m);
    if (!cache) parsedNodes.set(m, (cache = new Map()));
    const hit = cache.get(n);
    if (hit && hit.body === body) return hit.node;
    const node = parseMetadataBody(body);
    cache.set(n, { body, node });
    return node;
  }
  return parseMetadataBody(r);
}

function unquote(s: string | undefined): string | undefined {
  if (s === undefined || !s.startsWith('"')) return undefined;
  return s.slice(1, -1).replace(/\\([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

export interface DebugLocation {
  file: string;
  directory: string;
  line: number;
  column: number;
}

/** The file:line of an instruction from its `!dbg` attachment (scope chain → DIFile), or undefined. */
export function debugLocation(inst: Instruction, m: Module): DebugLocation | undefined {
  const dbg = inst.metadata.find((a) => a.name === 'dbg');
  if (!dbg) return undefined;
  const loc = resolveMetadata(m, dbg.ref);
  if (!loc || loc.tag !== 'DILocation') return undefined;
  const line = Number(loc.fields.get('line') ?? 0);
  const column = Number(loc.fields.get('column') ?? 0);
  let scopeRef = loc.fields.get('scope');
  for (let depth = 0; scopeRef && depth < 64; depth++) {
    const scope = resolveMetadata(m, scopeRef);
    if (!scope) break;
    if (scope.tag === 'DIFile') return fileLocation(scope, line, column);
    const fileRef = scope.fields.get('file');
    if (fileRef) {
      const file = resolveMetadata(m, fileRef);
      if (file && file.tag === 'DIFile') return fileLocation(file, line, column);
    }
    scopeRef = scope.fields.get('scope');
  }
  return undefined;
}

function fileLocation(file: MetadataNode, line: number, column: number): DebugLocation {
  return {
    file: unquote(file.fields.get('filename')) ?? '',
    directory: unquote(file.fields.get('directory')) ?? '',
    line,
    column,
  };
}

/** `file:line` for remarks, or undefined without debug info. */
export function debugLocationString(inst: Instruction, m: Module): string | undefined {
  const d = debugLocation(inst, m);
  return d ? `${d.file}:${d.line}` : undefined;
}

/** Adds a metadata node to the table and returns its reference (`!N`). */
export function addMetadata(m: Module, body: string): string {
  let next = 0;
  for (const k of m.metadata.keys()) if (k >= next) next = k + 1;
  m.metadata.set(next, body);
  return '!' + next;
}
