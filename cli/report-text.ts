// `--report-format=text` for a person: what the passes published for a SCoP, each field under a
// name in words and its value in words (no JSON), and the run-time check printed once (in the
// SCoP's part of the report) and named, not repeated, where the passes refer to it.

/** Field names in words; a field without one is spelled from its camelCase name. */
const FIELD_NAMES: Record<string, string> = {
  codeGrowth: 'code growth (instructions)',
  fastPathParallelLoops: 'parallel loops in the fast path',
  fastPathFrom: 'fast path generated from',
  fastPathKept: 'fast path kept',
  profitability: 'because',
  islOperations: 'isl operations',
  islOperationsBySteps: 'isl operations by step',
  islStepMs: 'isl time by step (ms)',
  vectorWidths: 'vector widths',
};

export function fieldName(key: string): string {
  return FIELD_NAMES[key] ?? key.replace(/([a-z0-9])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`);
}

/** A published value in words: yes/no, lists joined by commas, objects as `name value` pairs. */
export function describeValue(v: unknown): string {
  if (v === null || v === undefined) return '(none)';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    if (v.length === 0) return '(none)';
    return v.map(describeValue).join(v.some((x) => typeof x === 'object' && x !== null) ? '; ' : ', ');
  }
  return Object.entries(v as Record<string, unknown>).map(([k, x]) => `${fieldName(k)} ${describeValue(x)}`).join(', ');
}

interface CheckPart {
  readonly label: string;
  readonly c: string;
}

interface VectorizedLoop {
  readonly depth: number;
  readonly width: number;
  readonly by: string;
}

/** `loop-vectorize: depth 1 (width 2) x2, depth 2 (width 2); slp: depth 0 (width 2) x2`. */
function vectorizedLoopsText(loops: readonly VectorizedLoop[]): string {
  if (loops.length === 0) return '(none)';
  const byPass = new Map<string, Map<string, number>>();
  for (const l of loops) {
    const counts = byPass.get(l.by) ?? new Map<string, number>();
    const key = `depth ${l.depth} (width ${l.width})`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    byPass.set(l.by, counts);
  }
  return [...byPass].map(([by, counts]) => `${by}: ${[...counts].map(([k, n]) => (n > 1 ? `${k} x${n}` : k)).join(', ')}`).join('; ');
}

/** The check as versioning combines its parts (each in parentheses when there are several). */
export function conjunction(parts: readonly CheckPart[]): string {
  if (parts.length === 0) return '1';
  return parts.length === 1 ? parts[0]!.c : parts.map((p) => `(${p.c})`).join(' && ');
}

/**
 * The lines for what the passes published on one SCoP. `check` is the run-time check the SCoP's
 * part of the report printed: parts that make it up are only named, and a remark quoting it
 * refers to it instead.
 */
export function publishedFieldLines(fields: readonly [string, unknown][], check: string, indent: string): string[] {
  const lines: string[] = [];
  for (const [key, value] of fields) {
    if (key === 'runtimeCheckParts' && Array.isArray(value)) {
      const parts = value as CheckPart[];
      if (parts.length === 0) lines.push(`${indent}run-time check: none needed`);
      else if (conjunction(parts) === check) lines.push(`${indent}run-time check: the one above, in parts ${parts.map((p) => p.label).join(', ')}`);
      else {
        lines.push(`${indent}run-time check, in parts:`);
        for (const p of parts) lines.push(`${indent}  ${p.label}: ${p.c}`);
      }
    } else if (key === 'vectorizedLoops' && Array.isArray(value)) {
      lines.push(`${indent}vectorized loops: ${vectorizedLoopsText(value as VectorizedLoop[])}`);
    } else {
      lines.push(`${indent}${fieldName(key)}: ${describeValue(value)}`);
    }
  }
  return lines;
}

/** A remark's message with the run-time check, when it quotes the one printed above, named instead. */
export function remarkText(message: string, checks: readonly string[]): string {
  if (checks.includes('1')) message = message.split('under run-time check: 1; parts: (none)').join('under no run-time check');
  for (const check of checks) {
    if (check.length <= 1 || !message.includes(check)) continue;
    return message.split(`run-time check: ${check}`).join('the run-time check above').split(check).join('the run-time check above');
  }
  return message;
}
