// The parser on damaged text: every failure is an IrParseError with a position, never a
// TypeError, a crash or a hang (mutations are deterministic, from a fixed seed).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { IrParseError, parseModule, printModule } from '../../ir';

const base = fs.readFileSync(path.join(__dirname, 'fixtures', 'exotic.ll'), 'utf8');

function* mutations(count: number): Generator<string> {
  let seed = 20261122;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const alphabet = '%@!#$"(){}[]<>,=*:;. \nxi0123456789abcdefz-';
  for (let k = 0; k < count; k++) {
    let t = base;
    const kind = k % 3;
    for (let j = 0; j < 1 + rnd(3); j++) {
      const p = rnd(t.length);
      if (kind === 0) t = t.slice(0, p) + alphabet[rnd(alphabet.length)] + t.slice(p + 1);
      else if (kind === 1) t = t.slice(0, p) + t.slice(p + 1 + rnd(20));
      else t = t.slice(0, p);
    }
    yield t;
  }
}

describe('parser robustness', () => {
  it('rejects damaged IR only with IrParseError (line:column), and prints what it accepts', () => {
    let rejected = 0;
    for (const text of mutations(600)) {
      try {
        printModule(parseModule(text, 'damaged.ll'));
      } catch (e) {
        if (!(e instanceof IrParseError)) throw new Error(`not an IrParseError on:\n${text}\n${(e as Error).stack}`);
        expect(e.message).toMatch(/^damaged\.ll:\d+:\d+: /);
        rejected++;
      }
    }
    expect(rejected).toBeGreaterThan(300); // most damage is detected
  });
});
