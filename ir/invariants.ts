// Structural invariants of the model that LLVM's verifier cannot see: use lists agree with
// operands, parents point back, phis have one block per value. For tests and --verify-each.
import { isTerminator } from './cfg';
import type { Module, User, Value } from './types';

/** Problems found (empty when the model is consistent). Cheap: linear in the module. */
export function checkModuleInvariants(m: Module): string[] {
  const problems: string[] = [];
  const seenUsers = new Set<User>();
  const checkUser = (user: User, where: string): void => {
    if (seenUsers.has(user)) return;
    seenUsers.add(user);
    if (user.operands.length !== user.operandUses.length) {
      problems.push(`${where}: ${user.operands.length} operands but ${user.operandUses.length} use records`);
      return;
    }
    user.operands.forEach((v, i) => {
      const use = user.operandUses[i]!;
      if (use.user !== user || use.index !== i) problems.push(`${where}: use record ${i} describes another slot`);
      else if (v.uses[use.slot] !== use) problems.push(`${where}: operand ${i} is missing from its value's use list`);
      if ('operandUses' in v) checkUser(v as User, `${where} operand ${i}`);
    });
  };
  const checkUses = (v: Value, where: string): void => {
    v.uses.forEach((u, slot) => {
      if (u.slot !== slot) problems.push(`${where}: use ${slot} has a stale slot`);
      if (u.user.operands[u.index] !== v) problems.push(`${where}: use ${slot} points at an operand holding another value`);
    });
  };
  for (const g of m.globals) checkUser(g, `@${g.name}`);
  for (const a of m.aliases) checkUser(a, `@${a.name}`);
  for (const f of m.functions) {
    const where = `@${f.name}`;
    checkUser(f, where);
    checkUses(f, where);
    if (m.symbols.get(f.name) !== f) problems.push(`${where}: not in the module's symbol table`);
    f.args.forEach((a, i) => {
      if (a.parent !== f || a.index !== i) problems.push(`${where}: argument ${i} has a wrong parent or index`);
      checkUses(a, `${where} argument ${i}`);
    });
    f.blocks.forEach((b, bi) => {
      const bw = `${where} block ${b.name ?? bi}`;
      if (b.parent !== f) problems.push(`${bw}: wrong parent`);
      checkUses(b, bw);
      const last = b.instructions[b.instructions.length - 1];
      if (!last || !isTerminator(last)) problems.push(`${bw}: does not end with a terminator`);
      b.instructions.forEach((inst, ii) => {
        const iw = `${bw} instruction ${ii} (${inst.opcode})`;
        if (inst.parent !== b) problems.push(`${iw}: wrong parent`);
        if (ii < b.instructions.length - 1 && isTerminator(inst)) problems.push(`${iw}: terminator in the middle of a block`);
        if (inst.opcode === 'phi' && inst.incomingBlocks?.length !== inst.operands.length) {
          problems.push(`${iw}: ${inst.operands.length} values but ${inst.incomingBlocks?.length} blocks`);
        }
        checkUser(inst, iw);
        checkUses(inst, iw);
      });
    });
  }
  return problems;
}
