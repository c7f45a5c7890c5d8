#!/usr/bin/env node
// @ts-check
// Generates the typed layer of isl-wasm from isl's annotated headers, the way
// isl's own C++ and Python bindings are generated (isl/interface/).
//
//   node generate.mjs HEADERS.i SRC_DIR OUT_TS OUT_EXPORTS_JSON
//
// HEADERS.i is isl's public headers run through the C preprocessor with the
// ownership annotations kept as tokens (__isl_give, __isl_take, __isl_keep,
// __isl_export, __isl_constructor). The generator emits:
//   - OUT_TS: the raw module interface (one typed declaration per wasm export,
//     ownership in its JSDoc), the enums, and one class per isl type whose
//     methods never consume their receiver or arguments (each __isl_take
//     argument is copied first) and turn isl's NULL / isl_bool / isl_stat /
//     isl_size error values into thrown errors;
//   - OUT_EXPORTS_JSON: the functions the wasm module must export, i.e. those
//     the generated classes call plus those the hand-written sources in
//     SRC_DIR call as `m._isl_…` (and our C glue, `m._tsopt_…`).
// Methods are generated for the functions isl exports to its bindings
// (__isl_export / __isl_constructor / __isl_overload) plus the EXTRA list below.
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** isl types that become classes; lists are added by LIST_ELEMENTS. */
const CLASS_TYPES = [
  'id', 'space', 'local_space', 'val', 'multi_val', 'point',
  'aff', 'pw_aff', 'multi_aff', 'pw_multi_aff', 'multi_pw_aff',
  'union_pw_aff', 'union_pw_multi_aff', 'multi_union_pw_aff',
  'constraint', 'basic_set', 'set', 'basic_map', 'map', 'union_set', 'union_map',
  'union_access_info', 'union_flow', 'schedule_constraints', 'schedule', 'schedule_node',
  'ast_build', 'ast_expr', 'ast_node',
];
const LIST_ELEMENTS = [
  'id', 'val', 'aff', 'pw_aff', 'pw_multi_aff', 'union_pw_aff', 'union_pw_multi_aff',
  'constraint', 'basic_set', 'set', 'basic_map', 'map', 'union_set', 'ast_expr', 'ast_node',
];

/** Functions isl does not export to its bindings that our API still offers. */
const EXTRA = new Set(`
isl_set_dim_min isl_set_dim_max isl_set_project_out isl_map_project_out isl_basic_set_project_out
isl_basic_map_project_out isl_union_map_project_out isl_union_set_project_out
isl_set_remove_redundancies isl_map_remove_redundancies isl_basic_set_remove_redundancies
isl_union_set_remove_redundancies isl_union_map_remove_redundancies
isl_set_dim isl_map_dim isl_basic_set_dim isl_basic_map_dim isl_space_dim isl_local_space_dim
isl_set_get_dim_name isl_map_get_dim_name isl_basic_set_get_dim_name isl_space_get_dim_name
isl_set_get_dim_id isl_map_get_dim_id isl_space_get_dim_id isl_set_set_dim_name isl_map_set_dim_name
isl_set_get_tuple_name isl_map_get_tuple_name isl_set_set_tuple_name isl_map_set_tuple_name
isl_basic_set_get_constraint_list isl_basic_map_get_constraint_list isl_basic_set_n_constraint
isl_constraint_get_coefficient_val isl_constraint_get_constant_val isl_constraint_is_equality
isl_constraint_get_space isl_constraint_get_local_space isl_constraint_dim isl_constraint_get_div
isl_constraint_is_lower_bound isl_constraint_is_upper_bound isl_constraint_to_str
isl_aff_get_coefficient_val isl_aff_get_constant_val isl_aff_dim isl_pw_aff_dim
isl_val_get_num_si isl_val_get_den_si isl_val_int_from_si isl_val_get_d
isl_union_map_intersect_params isl_union_set_intersect_params
isl_set_eliminate isl_map_eliminate isl_set_fix_si isl_map_fix_si
isl_union_flow_copy isl_union_flow_to_str isl_union_access_info_to_str
isl_schedule_node_band_member_set_coincident isl_schedule_node_band_set_permutable
isl_schedule_node_band_set_ast_build_options isl_schedule_node_band_get_ast_build_options
isl_schedule_node_band_member_set_ast_loop_type isl_schedule_node_band_member_get_ast_loop_type
isl_schedule_node_get_subtree_schedule_union_map isl_schedule_node_get_prefix_schedule_union_map
isl_schedule_node_band_get_partial_schedule_union_map isl_schedule_node_get_parent_type
isl_schedule_node_band_get_space isl_schedule_node_get_tree_depth isl_schedule_node_get_ancestor
isl_ast_expr_get_op_n_arg isl_ast_expr_get_op_arg isl_ast_expr_to_C_str isl_ast_node_to_C_str
isl_ast_build_set_iterators isl_ast_build_set_options isl_ast_build_node_from_schedule_map
isl_ast_node_get_annotation isl_ast_node_for_is_degenerate
isl_ast_node_get_type isl_ast_expr_get_type isl_ast_expr_op_get_type isl_schedule_node_get_type
isl_union_map_intersect_domain isl_union_map_intersect_range isl_map_intersect_domain isl_map_intersect_range
isl_set_get_basic_set_list isl_map_get_basic_map_list
isl_pw_aff_is_equal isl_pw_multi_aff_is_equal isl_multi_pw_aff_is_equal isl_pw_aff_plain_is_equal
isl_union_pw_aff_plain_is_equal isl_union_pw_multi_aff_plain_is_equal isl_pw_multi_aff_plain_is_equal
isl_pw_aff_to_str isl_multi_val_from_val_list isl_multi_val_to_str isl_multi_val_get_val
`.trim().split(/\s+/));

/** Functions never wrapped as methods (lifetimes and printing are handled by the base class). */
const SKIP_SUFFIXES = ['_free', '_copy', '_get_ctx', '_dump', '_cow'];

// ---------------------------------------------------------------- parsing

/**
 * Splits text at `separator` where the `open`/`close` nesting depth is zero.
 * @param {string} text @param {string} separator @param {string} open @param {string} close
 */
function splitTopLevel(text, separator, open, close) {
  /** @type {string[]} */ const out = [];
  let depth = 0, start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === open) depth++;
    else if (ch === close) depth--;
    else if (ch === separator && depth === 0) {
      out.push(text.slice(start, i).replace(/\s+/g, ' ').trim());
      start = i + 1;
    }
  }
  const last = text.slice(start).replace(/\s+/g, ' ').trim();
  if (last !== '') out.push(last);
  return out;
}

/**
 * @typedef {{ annotation: string, base: string, stars: number, isConst: boolean, isEnum: boolean, name: string, text: string }} CType
 * @typedef {{ name: string, ret: CType, params: CType[], exported: boolean, text: string }} CFunction
 * @typedef {{ name: string, members: [string, number][] }} CEnum
 */

const ANNOTATION = /__isl_(give|take|keep|null|export|constructor|overload)\b/g;

/** @param {string} text @returns {CType | undefined} */
function parseType(text) {
  if (text.includes('(')) return undefined; // function pointer
  const annotations = [...text.matchAll(ANNOTATION)].map((m) => m[1]);
  let rest = text.replace(ANNOTATION, ' ').replace(/\s+/g, ' ').trim();
  const isConst = /\bconst\b/.test(rest);
  rest = rest.replace(/\bconst\b/g, ' ');
  const isEnum = /\benum\b/.test(rest);
  rest = rest.replace(/\b(struct|enum)\b/g, ' ').replace(/\s+/g, ' ').trim();
  const tokens = rest.replace(/\*/g, ' * ').split(' ').filter((t) => t !== '');
  const stars = tokens.filter((t) => t === '*').length;
  const words = tokens.filter((t) => t !== '*');
  if (words.length === 0 || words.some((w) => !/^\w+$/.test(w))) return undefined;
  const last = words[words.length - 1];
  const hasName = words.length >= 2 && !/^(int|long|char|unsigned|signed|short|double|float|void)$/.test(last);
  const name = hasName ? last : '';
  const base = (hasName ? words.slice(0, -1) : words).join(' ');
  const annotation = annotations.find((a) => a === 'give' || a === 'take' || a === 'keep' || a === 'null') ?? '';
  return { annotation, base, stars, isConst, isEnum, name, text };
}

/** @param {string} text */
function parseHeaders(text) {
  /** @type {Map<string, CFunction>} */ const functions = new Map();
  /** @type {Map<string, CEnum>} */ const enums = new Map();
  for (const stmt of splitTopLevel(text, ';', '{', '}')) {
    const en = /^enum (isl_\w+) \{(.*)\}$/.exec(stmt);
    if (en) {
      /** @type {[string, number][]} */ const members = [];
      /** @type {Map<string, number>} */ const values = new Map();
      let next = 0;
      for (const item of en[2].split(',').map((s) => s.trim()).filter((s) => s !== '')) {
        const [name, expr] = item.split('=').map((s) => s.trim());
        let value = next;
        if (expr !== undefined) {
          const t = /^(-?\d+)$|^(\w+)(?: ?\+ ?(\d+))?$/.exec(expr);
          if (!t) throw new Error(`enum ${en[1]}: cannot evaluate ${expr}`);
          value = t[1] !== undefined ? Number(t[1]) : (values.get(t[2]) ?? NaN) + Number(t[3] ?? 0);
        }
        values.set(name, value);
        members.push([name, value]);
        next = value + 1;
      }
      enums.set(en[1], { name: en[1], members });
      continue;
    }
    if (stmt.includes('{') || stmt.startsWith('typedef') || stmt.startsWith('static')) continue;
    const fn = /^(.*?)\b(isl_\w+)\s*\((.*)\)$/.exec(stmt);
    if (!fn || fn[1].includes('(')) continue;
    const ret = parseType(fn[1]);
    if (!ret) continue;
    const params = splitTopLevel(fn[3], ',', '(', ')').filter((p) => p !== 'void').map(parseType);
    if (params.some((p) => p === undefined)) {
      functions.set(fn[2], { name: fn[2], ret, params: [], exported: false, text: stmt + ' /*unsupported*/' });
      continue;
    }
    const exported = /__isl_(export|constructor|overload)\b/.test(fn[1]);
    functions.set(fn[2], { name: fn[2], ret, params: /** @type {CType[]} */ (params), exported, text: stmt });
  }
  return { functions, enums };
}

// ---------------------------------------------------------------- naming

/** @param {string} s */
const pascal = (s) => s.split('_').filter((w) => w !== '').map((w) => w[0].toUpperCase() + w.slice(1)).join('');
/** @param {string} s */
const camel = (s) => { const p = pascal(s); return p[0].toLowerCase() + p.slice(1); };
/** isl type (without isl_) → class name; e.g. union_pw_aff → UnionPwAff, set_list → SetList. */
/** @param {string} t */
const className = (t) => (t === 'ast_node' || t === 'ast_expr' ? pascal(t) : pascal(t)).replace(/^Id$/, 'Id');
const RESERVED = new Set(('break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
  'import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await arguments eval').split(' '));
/** @param {string} n */
const safeName = (n) => (RESERVED.has(n) || n === '' ? n + '_' : n);

// ---------------------------------------------------------------- generation

const HELP = `node generate.mjs HEADERS.i SRC_DIR OUT_TS OUT_EXPORTS_JSON`;

function main() {
  const [headersFile, srcDir, outTs, outExports] = process.argv.slice(2);
  if (!outExports) throw new Error(HELP);
  const { functions, enums } = parseHeaders(readFileSync(headersFile, 'utf8'));

  const types = [...CLASS_TYPES, ...LIST_ELEMENTS.map((e) => `${e}_list`)];
  for (const t of types) {
    for (const need of ['copy', 'free']) {
      if (!functions.has(`isl_${t}_${need}`)) throw new Error(`isl_${t}_${need} not found in the headers`);
    }
  }
  const typeSet = new Set(types);
  const byLength = [...types].sort((a, b) => b.length - a.length);

  /** @type {Set<string>} raw functions the generated code calls */
  const used = new Set();
  /** @type {Map<string, string[]>} class type → method source */
  const methods = new Map(types.map((t) => [t, []]));
  /** @type {Map<string, Set<string>>} class type → method names (instance and static) */
  const names = new Map(types.map((t) => [t, new Set()]));

  /** @param {CType} p */
  const objectType = (p) => (p.stars === 1 && p.base.startsWith('isl_') && typeSet.has(p.base.slice(4)) ? p.base.slice(4) : undefined);
  /** @param {CType} p */
  const isCtx = (p) => p.base === 'isl_ctx' && p.stars === 1;
  /** @param {string} e */
  const enumName = (e) => (e === 'isl_error' ? 'IslErrorCode' : pascal(e.replace(/^isl_/, '')));

  /**
   * TS type and argument expression of one C parameter, or undefined when the parameter
   * cannot be expressed (callbacks, out-parameters, user pointers).
   * @param {CType} p @param {string} v
   * @returns {{ ts: string, pre: string[], arg: string, post: string[] } | undefined}
   */
  function mapParam(p, v) {
    const ot = objectType(p);
    if (ot) {
      if (p.annotation !== 'take' && p.annotation !== 'keep') return undefined;
      const raw = `${v}$`;
      const arg = p.annotation === 'take' ? (used.add(`isl_${ot}_copy`), `m._isl_${ot}_copy(${raw})`) : raw;
      return { ts: className(ot), pre: [`const ${raw} = c.own(${v});`], arg, post: [] };
    }
    if (isCtx(p)) return { ts: 'Ctx', pre: [`const ${v}$ = ${v}.ptr;`], arg: `${v}$`, post: [] };
    if (p.stars === 1 && p.base === 'char' && p.isConst) {
      return { ts: 'string', pre: [`const ${v}$ = c.cString(${v});`], arg: `${v}$`, post: [`m._free(${v}$);`] };
    }
    if (p.stars !== 0) return undefined;
    if (p.base === 'isl_bool') return { ts: 'boolean', pre: [], arg: `${v} ? 1 : 0`, post: [] };
    if (p.isEnum && enums.has(p.base)) return { ts: enumName(p.base), pre: [], arg: v, post: [] };
    if (/^(int|unsigned|unsigned int|long|unsigned long|double|size_t|isl_size|uint32_t|int32_t)$/.test(p.base)) {
      return { ts: 'number', pre: [], arg: v, post: [] };
    }
    return undefined;
  }

  /**
   * TS type and conversion of a return value, or undefined when not expressible.
   * @param {CType} r @param {string} fname
   * @returns {{ ts: string, wrap: (e: string) => string } | undefined}
   */
  function mapReturn(r, fname) {
    const ot = objectType(r);
    if (ot) {
      if (r.annotation !== 'give') return undefined;
      return { ts: className(ot), wrap: (e) => `new ${className(ot)}(c, c.give(${e}, '${fname}'))` };
    }
    if (r.stars === 1 && r.base === 'char') {
      if (r.annotation === 'give') return { ts: 'string', wrap: (e) => `c.takeString(${e}, '${fname}')` };
      if (r.isConst) return { ts: 'string | null', wrap: (e) => `c.readString(${e})` };
      return undefined;
    }
    if (r.stars !== 0) return undefined;
    if (r.base === 'isl_bool') return { ts: 'boolean', wrap: (e) => `c.bool(${e}, '${fname}')` };
    if (r.base === 'isl_size') return { ts: 'number', wrap: (e) => `c.size(${e}, '${fname}')` };
    if (r.base === 'isl_stat') return { ts: 'void', wrap: (e) => `c.stat(${e}, '${fname}')` };
    if (r.base === 'void') return { ts: 'void', wrap: (e) => `${e}` };
    if (r.isEnum && enums.has(r.base)) {
      const en = enums.get(r.base);
      const hasError = en?.members.some(([n, v]) => v === -1 && n.endsWith('_error'));
      const ts = enumName(r.base);
      return { ts, wrap: (e) => (hasError ? `c.enumValue(${e}, '${fname}') as ${ts}` : `${e} as ${ts}`) };
    }
    if (/^(int|unsigned|unsigned int|long|double)$/.test(r.base)) return { ts: 'number', wrap: (e) => e };
    return undefined;
  }

  /** @param {CFunction} f */
  function ownerOf(f) {
    const t = byLength.find((c) => f.name.startsWith(`isl_${c}_`));
    if (!t) return undefined;
    const first = f.params[0];
    const instance = first !== undefined && objectType(first) === t;
    return { t, instance, rest: f.name.slice(`isl_${t}_`.length) };
  }

  const docOf = (/** @type {CFunction} */ f) => f.text.replace(/__isl_(export|constructor|overload) /g, '').replace(/\*\//g, '* /');

  for (const f of functions.values()) {
    const listFunction = /^isl_\w+_list_(size|get_at|add|alloc|concat|drop|insert|clear|to_str)$/.test(f.name);
    if (!(f.exported || EXTRA.has(f.name) || listFunction || f.name.endsWith('_to_str'))) continue;
    if (SKIP_SUFFIXES.some((s) => f.name.endsWith(s))) continue;
    const owner = ownerOf(f);
    if (!owner) continue;
    const ret = mapReturn(f.ret, f.name);
    const params = f.params.map((p, i) => mapParam(p, i === 0 && owner.instance ? 'this' : safeName(p.name || `arg${i}`)));
    if (!ret || params.some((p) => p === undefined) || f.text.endsWith('/*unsupported*/')) {
      if (EXTRA.has(f.name)) throw new Error(`EXTRA function ${f.name} cannot be mapped: ${f.text}`);
      continue;
    }
    const ps = /** @type {NonNullable<ReturnType<typeof mapParam>>[]} */ (params);
    let name = camel(owner.rest);
    if (name === 'toStr') name = 'toStr';
    if (!owner.instance && (name === 'name' || name === 'length' || name === 'prototype' || name === 'caller')) name += '_';
    const nameSet = /** @type {Set<string>} */ (names.get(owner.t));
    if (nameSet.has(name)) continue;
    nameSet.add(name);
    used.add(f.name);
    const declared = f.params.map((p, i) => ({ p, i })).filter(({ i }) => !(i === 0 && owner.instance));
    const sig = declared.map(({ p, i }) => `${safeName(p.name || `arg${i}`)}: ${ps[i].ts}`).join(', ');
    const pre = ps.flatMap((p) => p.pre).map((s) => s.replace('c.own(this)', 'this.ptr'));
    const post = ps.flatMap((p) => p.post);
    const call = `m._${f.name}(${ps.map((p) => p.arg).join(', ')})`;
    const ctxExpr = owner.instance ? 'this.ctx'
      : (() => {
        const ci = f.params.findIndex(isCtx);
        if (ci >= 0) return safeName(f.params[ci].name || `arg${ci}`);
        const oi = f.params.findIndex((p) => objectType(p) !== undefined);
        return oi >= 0 ? `${safeName(f.params[oi].name || `arg${oi}`)}.ctx` : undefined;
      })();
    if (ctxExpr === undefined) { nameSet.delete(name); used.delete(f.name); continue; }
    const body = [`const c = ${ctxExpr}, m = c.m;`, ...pre];
    if (post.length === 0) body.push(ret.ts === 'void' ? `${ret.wrap(call)};` : `return ${ret.wrap(call)};`);
    else {
      body.push(`const r = ${call};`, ...post);
      body.push(ret.ts === 'void' ? `${ret.wrap('r')};` : `return ${ret.wrap('r')};`);
    }
    const head = owner.instance ? `${name}(${sig}): ${ret.ts}` : `static ${name}(${sig}): ${ret.ts}`;
    /** @type {string[]} */ (methods.get(owner.t)).push(
      `  /** \`${docOf(f)}\` */\n  ${head} {\n${body.map((l) => `    ${l}`).join('\n')}\n  }`);
  }

  // Raw functions used by the hand-written sources.
  for (const file of readdirSync(srcDir)) {
    if (!file.endsWith('.ts')) continue;
    for (const m of readFileSync(join(srcDir, file), 'utf8').matchAll(/\bm\._(isl_\w+)\b/g)) {
      if (!functions.has(m[1])) throw new Error(`${file}: ${m[1]} is not declared in isl's headers`);
      used.add(m[1]);
    }
  }
  for (const t of types) { used.add(`isl_${t}_copy`); used.add(`isl_${t}_free`); }

  // ------------------------------------------------------------ emit
  const out = [];
  out.push('// Generated by isl-wasm/tools/generate.mjs from isl 0.25\'s headers. Do not edit.');
  out.push('/* eslint-disable */');
  out.push("import { IslObject, type IslPtr } from '../object';", "import type { Ctx } from '../ctx';", '');
  for (const e of enums.values()) {
    if (!['isl_dim_type', 'isl_error', 'isl_schedule_node_type', 'isl_ast_expr_op_type', 'isl_ast_expr_type', 'isl_ast_node_type', 'isl_ast_loop_type'].includes(e.name)) continue;
    const prefix = commonPrefix(e.members.map(([n]) => n));
    out.push(`/** \`enum ${e.name}\` */`, `export enum ${enumName(e.name)} {`);
    for (const [n, v] of e.members) out.push(`  ${/^\d/.test(n.slice(prefix.length)) ? `_${n.slice(prefix.length)}` : n.slice(prefix.length)} = ${v},`);
    out.push('}', '');
  }
  out.push('/** The wasm module\'s exports; pointers are branded by isl type, ownership is in each comment. */');
  out.push('export interface RawModule {');
  out.push('  HEAPU8: Uint8Array;', '  _malloc(size: number): number;', '  _free(ptr: number): void;', '  _tsopt_heap_in_use(): number;', '  _tsopt_ctx_operations(ctx: IslPtr<\'isl_ctx\'>): number;', '  _tsopt_meter(ctx: IslPtr<\'isl_ctx\'> | 0): void;', '  _tsopt_set_allocations_per_operation(n: number): void;');
  for (const n of [...used].sort()) {
    const f = /** @type {CFunction} */ (functions.get(n));
    const rawType = (/** @type {CType} */ p) => {
      const ot = p.stars === 1 && p.base.startsWith('isl_') ? p.base : undefined;
      if (ot === 'isl_ctx') return 'IslPtr<\'isl_ctx\'>';
      if (ot && typeSet.has(ot.slice(4))) return `IslPtr<'${ot}'>`;
      if (p.base === 'void' && p.stars === 0) return 'void';
      return 'number';
    };
    out.push(`  /** \`${docOf(f)}\` */`);
    out.push(`  _${n}(${f.params.map((p, i) => `${safeName(p.name || `arg${i}`)}: ${rawType(p)}`).join(', ')}): ${rawType(f.ret)};`);
  }
  out.push('}', '');
  for (const t of types) {
    const cls = className(t);
    const doc = t.endsWith('_list') ? `A list of \`isl_${t.slice(0, -5)}\`.` : `\`isl_${t}\`.`;
    out.push(`/** ${doc} */`);
    out.push(`export class ${cls} extends IslObject<'isl_${t}'> {`);
    out.push(`  declare private readonly brand_${t}: never;`);
    out.push(`  protected override freeRaw(p: IslPtr<'isl_${t}'>): void { this.ctx.m._isl_${t}_free(p); }`);
    out.push(`  /** A new handle to the same isl object (isl_${t}_copy), owned by the current scope. */`);
    out.push(`  copy(): ${cls} { const c = this.ctx; return new ${cls}(c, c.m._isl_${t}_copy(this.ptr)); }`);
    const ns = /** @type {Set<string>} */ (names.get(t));
    if (ns.has('toStr')) out.push('  override toString(): string { return this.toStr(); }');
    if (t.endsWith('_list') && ns.has('size') && ns.has('getAt')) {
      const el = className(t.slice(0, -5));
      out.push(`  /** The elements, each a new object in the current scope. */`);
      out.push(`  toArray(): ${el}[] { const n = this.size(), r: ${el}[] = []; for (let i = 0; i < n; i++) r.push(this.getAt(i)); return r; }`);
    }
    out.push(.../** @type {string[]} */ (methods.get(t)));
    out.push('}', '');
  }
  mkdirSync(dirname(outTs), { recursive: true });
  writeFileSync(outTs, out.join('\n'));
  const exportsList = ['_malloc', '_free', '_tsopt_heap_in_use', '_tsopt_ctx_operations', '_tsopt_meter', '_tsopt_set_allocations_per_operation', ...[...used].sort().map((n) => `_${n}`)];
  mkdirSync(dirname(outExports), { recursive: true });
  writeFileSync(outExports, JSON.stringify(exportsList) + '\n');
  process.stdout.write(`generate.mjs: ${types.length} classes, ${used.size} isl functions exported\n`);
}

/** @param {string[]} names */
function commonPrefix(names) {
  let p = names[0];
  for (const n of names) while (!n.startsWith(p)) p = p.slice(0, -1);
  return p.slice(0, p.lastIndexOf('_') + 1);
}

main();
