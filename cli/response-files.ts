// `@file` arguments expanded the way clang-14's driver expands them on Linux
// (llvm::cl::ExpandResponseFiles with the GNU tokenizer): the file's words replace the argument,
// nested `@file`s are read relative to the working directory like the outer ones (clang-14 does
// not resolve them relative to the including file), and an `@file` that cannot be read stays as
// it is (clang then reports it as a missing input).
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * llvm::cl::TokenizeGNUCommandLine (LLVM 14): words separated by white space; a backslash takes
 * the next character literally, inside quotes too ('x\\y' is xy); quotes group and are removed;
 * an empty word ("") is dropped.
 */
export function tokenizeGnu(text: string): string[] {
  const words: string[] = [];
  let word = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
    } else if (c === "'" || c === '"') {
      for (i++; i < text.length && text[i] !== c; i++) {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        word += text[i];
      }
    } else if (/\s/.test(c)) {
      if (word !== '') words.push(word);
      word = '';
    } else {
      word += c;
    }
  }
  if (word !== '') words.push(word);
  return words;
}

/** The command line with every readable `@file` replaced by its words, recursively. */
export function expandResponseFiles(argv: readonly string[], cwd = process.cwd()): string[] {
  const out: string[] = [];
  const expand = (args: readonly string[], open: readonly string[]): void => {
    for (const a of args) {
      if (!a.startsWith('@') || a.length === 1) {
        out.push(a);
        continue;
      }
      const file = path.resolve(cwd, a.slice(1));
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch {
        out.push(a);
        continue;
      }
      // clang refuses a response file that includes itself; so do we.
      if (open.includes(file)) throw new Error(`recursive expansion of response file ${a.slice(1)}`);
      expand(tokenizeGnu(text), [...open, file]);
    }
  };
  expand(argv, []);
  return out;
}
