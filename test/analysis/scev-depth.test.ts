// Scalar evolution recurses through operands; a long dependent chain (bzip2's decompress.c at
// -O2 has one) overflowed the JS stack and tsopt died with "Maximum call stack size exceeded".
// Past a fixed depth a value becomes an unknown instead, as LLVM bounds its own recursion.
import { parseModule } from '../../ir';
import { printScalarEvolution } from '../../passes/analysis-printers';
import { scalarEvolutionAnalysis } from '../../analysis';
import { analyses, fn } from './helpers';

function chain(length: number): string {
  const body: string[] = ['  %v0 = add nsw i64 %n, 1'];
  for (let k = 1; k < length; k++) body.push(`  %v${k} = add nsw i64 %v${k - 1}, ${k % 7 === 0 ? '%n' : '3'}`);
  return `define i64 @deep(i64 %n) {\nentry:\n${body.join('\n')}\n  ret i64 %v${length - 1}\n}\n`;
}

test('a 20,000-value dependent chain has closed forms near its start and no stack overflow', () => {
  const m = parseModule(chain(20_000));
  const f = fn(m, 'deep');
  const am = analyses();
  // Asking for the end of the chain first is what recursed 20,000 values deep.
  const last = f.blocks[0]!.instructions[19_999]!;
  expect(() => am.get(scalarEvolutionAnalysis, f).getScev(last)).not.toThrow();
  const out = printScalarEvolution(f, am);
  expect(out).toContain('%v1 --> (4 + %n)');
});
