// isl's AST as plain data, for passes that emit IR from it: nodes tagged by
// `kind` (for, if, block, user, mark), expressions as trees of operations,
// identifiers and integers. Reading the tree does not keep any isl object
// alive: everything is copied out inside a scope.
import { AstExprOpType, AstExprType, AstNodeType, type AstExpr, type AstNode } from './generated/isl';
import { valToBigInt } from './readback';

/** An isl_ast_expr. `op` names are isl's (`isl_ast_expr_op_<op>`), e.g. add, mul, fdiv_q, min, call. */
export type AstExprTree =
  | { readonly kind: 'op'; readonly op: AstOpName; readonly args: readonly AstExprTree[] }
  | { readonly kind: 'id'; readonly name: string }
  | { readonly kind: 'int'; readonly value: bigint };

export type AstOpName = Exclude<keyof typeof AstExprOpType, 'error'>;

/** An isl_ast_node. */
export type AstNodeTree =
  | {
      readonly kind: 'for';
      /** The loop iterator (an id expression). */
      readonly iterator: AstExprTree;
      readonly init: AstExprTree;
      /** The loop condition, in terms of the iterator. */
      readonly cond: AstExprTree;
      readonly inc: AstExprTree;
      readonly body: AstNodeTree;
      /** isl_ast_node_for_is_degenerate: the body runs exactly once. */
      readonly degenerate: boolean;
    }
  | { readonly kind: 'if'; readonly cond: AstExprTree; readonly then: AstNodeTree; readonly else?: AstNodeTree }
  | { readonly kind: 'block'; readonly children: readonly AstNodeTree[] }
  /** A statement instance: usually a call expression `S(i, j)`. */
  | { readonly kind: 'user'; readonly expr: AstExprTree }
  | { readonly kind: 'mark'; readonly mark: string; readonly node: AstNodeTree };

/** The expression as a plain tree. */
export function readAstExpr(expr: AstExpr): AstExprTree {
  return expr.ctx.scope(() => {
    switch (expr.getType()) {
      case AstExprType.id:
        return { kind: 'id', name: expr.idGetId().getName() ?? '' };
      case AstExprType.int:
        return { kind: 'int', value: valToBigInt(expr.intGetVal()) };
      case AstExprType.op: {
        const n = expr.opGetNArg();
        const args: AstExprTree[] = [];
        for (let i = 0; i < n; i++) args.push(readAstExpr(expr.opGetArg(i)));
        const op = AstExprOpType[expr.opGetType()] as AstOpName;
        return { kind: 'op', op, args };
      }
      default:
        throw new Error(`unexpected isl_ast_expr type ${expr.getType()}`);
    }
  });
}

/** The AST below `node` as a plain tree. */
export function readAstNode(node: AstNode): AstNodeTree {
  return node.ctx.scope((): AstNodeTree => {
    switch (node.getType()) {
      case AstNodeType.for:
        return {
          kind: 'for',
          iterator: readAstExpr(node.forGetIterator()),
          init: readAstExpr(node.forGetInit()),
          cond: readAstExpr(node.forGetCond()),
          inc: readAstExpr(node.forGetInc()),
          body: readAstNode(node.forGetBody()),
          degenerate: node.forIsDegenerate(),
        };
      case AstNodeType.if:
        return {
          kind: 'if',
          cond: readAstExpr(node.ifGetCond()),
          then: readAstNode(node.ifGetThenNode()),
          ...(node.ifHasElseNode() ? { else: readAstNode(node.ifGetElseNode()) } : {}),
        };
      case AstNodeType.block:
        return { kind: 'block', children: node.blockGetChildren().toArray().map(readAstNode) };
      case AstNodeType.user:
        return { kind: 'user', expr: readAstExpr(node.userGetExpr()) };
      case AstNodeType.mark:
        return { kind: 'mark', mark: node.markGetId().getName() ?? '', node: readAstNode(node.markGetNode()) };
      default:
        throw new Error(`unexpected isl_ast_node type ${node.getType()}`);
    }
  });
}

const INFIX: Partial<Record<AstOpName, string>> = {
  and: '&&', and_then: '&&', or: '||', or_else: '||', add: '+', sub: '-', mul: '*', div: '/',
  eq: '==', le: '<=', lt: '<', ge: '>=', gt: '>', pdiv_r: '%', zdiv_r: '%',
};

/** A compact, fully parenthesised rendering of an expression tree (for tests and debug output). */
export function formatAstExpr(e: AstExprTree): string {
  switch (e.kind) {
    case 'id':
      return e.name;
    case 'int':
      return e.value.toString();
    case 'op': {
      const infix = INFIX[e.op];
      if (infix !== undefined && e.args.length === 2) return `(${formatAstExpr(e.args[0])} ${infix} ${formatAstExpr(e.args[1])})`;
      if (e.op === 'minus') return `-${formatAstExpr(e.args[0])}`;
      if (e.op === 'call') return `${formatAstExpr(e.args[0])}(${e.args.slice(1).map(formatAstExpr).join(', ')})`;
      return `${e.op}(${e.args.map(formatAstExpr).join(', ')})`;
    }
  }
}
