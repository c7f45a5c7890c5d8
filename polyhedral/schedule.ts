// The original schedule of a SCoP: statements in program order, loops as in the
// source. Given in two forms that say the same thing:
//   - the 2D+1 map (Polly's original schedule, what isl's dataflow and our
//     parallelism test use): { Stmt_S[i0, i1] -> [c0, i0, c1, i1, c2] }, where
//     c_k is the position of the statement's enclosing loop (or of the statement)
//     among its siblings, padded with zeros to the SCoP's maximal length;
//   - an isl schedule tree (domain → sequence → band → ...), in isl's YAML
//     notation, the form AST generation and the schedule optimizer start from.
import type { BasicBlock } from '../ir';
import type { ScopLoop } from '../analysis/scop-detection-types';

export interface ScheduledStatement {
  readonly name: string;
  readonly block: BasicBlock;
  /** Outermost first. */
  readonly loops: readonly ScopLoop[];
}

interface TreeNode {
  readonly loop: ScopLoop | undefined;
  readonly order: number;
  readonly children: TreeNode[];
  readonly statement: ScheduledStatement | undefined;
}

/** The loop/statement tree, children in program order (reverse post-order of the SCoP's blocks). */
function buildTree(statements: readonly ScheduledStatement[], rpo: ReadonlyMap<BasicBlock, number>): TreeNode {
  const root: TreeNode = { loop: undefined, order: -1, children: [], statement: undefined };
  const loopNodes = new Map<ScopLoop, TreeNode>();
  const nodeFor = (loops: readonly ScopLoop[]): TreeNode => {
    let parent = root;
    for (const loop of loops) {
      let node = loopNodes.get(loop);
      if (!node) {
        node = { loop, order: rpo.get(loop.loop.header) ?? Number.MAX_SAFE_INTEGER, children: [], statement: undefined };
        loopNodes.set(loop, node);
        parent.children.push(node);
      }
      parent = node;
    }
    return parent;
  };
  for (const s of statements) {
    nodeFor(s.loops).children.push({ loop: undefined, order: rpo.get(s.block) ?? Number.MAX_SAFE_INTEGER, children: [], statement: s });
  }
  const sort = (n: TreeNode): void => {
    n.children.sort((a, b) => a.order - b.order || (a.statement ? 1 : 0) - (b.statement ? 1 : 0));
    n.children.forEach(sort);
  };
  sort(root);
  return root;
}

/** Maximal loop depth of the statements: the schedule has 2 * depth + 1 dimensions. */
export function scheduleDepth(statements: readonly ScheduledStatement[]): number {
  return Math.max(0, ...statements.map((s) => s.loops.length));
}

export interface OriginalSchedule {
  /** `{ Stmt_S[i0, i1] -> [0, i0, 1, i1, 0] }` (isl map text without parameters), by statement name. */
  readonly statements: Map<string, string>;
  /**
   * Per loop, the constant schedule dimensions before its counter (t0, t2, ..., t(2k-2)):
   * the instances of the loop's statements are the schedule points with these values.
   */
  readonly loopPositions: Map<ScopLoop, number[]>;
}

/** The 2D+1 schedule of every statement and where each loop sits in it. */
export function originalSchedule(statements: readonly ScheduledStatement[], rpo: ReadonlyMap<BasicBlock, number>): OriginalSchedule {
  const root = buildTree(statements, rpo);
  const width = 2 * scheduleDepth(statements) + 1;
  const out = new Map<string, string>();
  const loopPositions = new Map<ScopLoop, number[]>();
  const walk = (node: TreeNode, prefix: string[], positions: number[]): void => {
    node.children.forEach((child, position) => {
      if (child.statement) {
        const s = child.statement;
        const time = [...prefix, String(position)];
        while (time.length < width) time.push('0');
        out.set(s.name, `{ ${s.name}[${dims(s.loops.length)}] -> [${time.join(', ')}] }`);
      } else {
        loopPositions.set(child.loop!, [...positions, position]);
        walk(child, [...prefix, String(position), `i${prefix.length / 2}`], [...positions, position]);
      }
    });
  };
  walk(root, [], []);
  return { statements: out, loopPositions };
}

function dims(n: number): string {
  return Array.from({ length: n }, (_, k) => `i${k}`).join(', ');
}

/**
 * The schedule tree in isl's notation (`isl_schedule_read_from_str`), with
 * `domain` the text of the union of the statement domains (parameters included).
 */
export function scheduleTreeText(statements: readonly ScheduledStatement[], rpo: ReadonlyMap<BasicBlock, number>, domain: string): string {
  const root = buildTree(statements, rpo);
  const statementsUnder = (n: TreeNode): ScheduledStatement[] => (n.statement ? [n.statement] : n.children.flatMap(statementsUnder));
  const filter = (n: TreeNode): string => `{ ${statementsUnder(n).map((s) => `${s.name}[${dims(s.loops.length)}]`).join('; ')} }`;
  const subtree = (n: TreeNode): string | undefined => {
    if (n.statement) return undefined;
    const inner = sequence(n.children);
    if (!n.loop) return inner;
    const depth = n.loop.depth - 1;
    const band = `[{ ${statementsUnder(n).map((s) => `${s.name}[${dims(s.loops.length)}] -> [(i${depth})]`).join('; ')} }]`;
    return inner === undefined ? `{ schedule: ${quote(band)} }` : `{ schedule: ${quote(band)}, child: ${inner} }`;
  };
  const sequence = (children: readonly TreeNode[]): string | undefined => {
    if (children.length === 1) return subtree(children[0]!);
    const items = children.map((c) => {
      const sub = subtree(c);
      return sub === undefined ? `{ filter: ${quote(filter(c))} }` : `{ filter: ${quote(filter(c))}, child: ${sub} }`;
    });
    return `{ sequence: [ ${items.join(', ')} ] }`;
  };
  const body = sequence(root.children);
  return body === undefined ? `{ domain: ${quote(domain)} }` : `{ domain: ${quote(domain)}, child: ${body} }`;
}

function quote(s: string): string {
  return `"${s.replace(/"/g, '\\"')}"`;
}
