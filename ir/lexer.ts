// A hand-written lexer for LLVM textual IR: one pass over the characters, no regular
// expressions, tokens described by kind + [start, end) offsets into the text.

export enum Tok {
  Eof,
  Word, // keywords, types, attribute names: define, i32, nsw, DW_OP_plus
  Int, // -12, 42
  Float, // 1.5e+00, 0x3FF0..., 0xK4000...
  LocalVar, // %x, %12, %"a b"
  GlobalVar, // @f, @"a b"
  MetadataVar, // !12, !dbg, !llvm.loop, !DILocation
  AttrGroup, // #0
  ComdatVar, // $name
  String, // "..."
  CString, // c"..."
  LabelDef, // name:  or  "quoted":  or 12:
  Exclaim, // ! (before { or ")
  Ellipsis, // ...
  Punct, // = , * ( ) [ ] { } < > : | single characters; `ch` holds the code
}

/** Thrown for text that is not LLVM IR; carries the 1-based line and column. */
export class IrParseError extends Error {
  constructor(
    message: string,
    readonly sourceName: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${sourceName}:${line}:${column}: ${message}`);
    this.name = 'IrParseError';
  }
}

function isNameChar(c: number): boolean {
  // [-a-zA-Z$._0-9]
  return (
    (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 36 || c === 45
  );
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

export class Lexer {
  kind: Tok = Tok.Eof;
  start = 0;
  end = 0;
  /** For Punct: the character code. */
  ch = 0;
  pos = 0;

  constructor(
    readonly text: string,
    readonly sourceName: string,
  ) {}

  /** The current token kind (a call, so TypeScript does not narrow it across `next()`). */
  tok(): Tok {
    return this.kind;
  }

  /** The raw text of the current token. */
  get tokenText(): string {
    return this.text.slice(this.start, this.end);
  }

  /** Name of a %/@/!/$ token or label without sigil, quotes unescaped. */
  get tokenName(): string {
    const t = this.text;
    let s = this.start;
    let e = this.end;
    if (this.kind === Tok.LabelDef) e--; // drop ':'
    else s++; // drop sigil
    if (t.charCodeAt(s) === 34) return unescape(t.slice(s + 1, e - 1));
    return t.slice(s, e);
  }

  /** Whether the token is this word. */
  isWord(w: string): boolean {
    return this.kind === Tok.Word && this.end - this.start === w.length && this.text.startsWith(w, this.start);
  }
  isPunct(c: string): boolean {
    return this.kind === Tok.Punct && this.ch === c.charCodeAt(0);
  }

  error(message: string, at = this.start): IrParseError {
    let line = 1;
    let lineStart = 0;
    const t = this.text;
    for (let i = t.indexOf('\n'); i >= 0 && i < at; i = t.indexOf('\n', i + 1)) {
      line++;
      lineStart = i + 1;
    }
    return new IrParseError(message, this.sourceName, line, at - lineStart + 1);
  }

  /** Advances to the next token, skipping whitespace and `;` comments. */
  next(): Tok {
    const t = this.text;
    const n = t.length;
    let p = this.pos;
    for (;;) {
      if (p >= n) {
        this.start = this.end = this.pos = n;
        return (this.kind = Tok.Eof);
      }
      const c = t.charCodeAt(p);
      if (c === 32 || c === 10 || c === 9 || c === 13) {
        p++;
        continue;
      }
      if (c === 59) {
        // ; comment to end of line
        const nl = t.indexOf('\n', p);
        p = nl < 0 ? n : nl + 1;
        continue;
      }
      break;
    }
    this.start = p;
    const c = t.charCodeAt(p);
    let kind: Tok;
    switch (c) {
      case 37: // %
        kind = Tok.LocalVar;
        p = this.sigilName(p + 1);
        break;
      case 64: // @
        kind = Tok.GlobalVar;
        p = this.sigilName(p + 1);
        break;
      case 36: // $
        kind = Tok.ComdatVar;
        p = this.sigilName(p + 1);
        break;
      case 35: // #
        kind = Tok.AttrGroup;
        p++;
        while (p < n && isDigit(t.charCodeAt(p))) p++;
        break;
      case 33: {
        // !
        let q = p + 1;
        while (q < n && (isNameChar(t.charCodeAt(q)) || t.charCodeAt(q) === 92)) q++;
        if (q === p + 1) {
          kind = Tok.Exclaim;
          p++;
        } else {
          kind = Tok.MetadataVar;
          p = q;
        }
        break;
      }
      case 34: // "
        p = this.skipString(p);
        if (t.charCodeAt(p) === 58) {
          kind = Tok.LabelDef;
          p++;
        } else kind = Tok.String;
        break;
      default: {
        if (c === 46 && t.startsWith('...', p)) {
          kind = Tok.Ellipsis;
          p += 3;
          break;
        }
        if (c === 99 && t.charCodeAt(p + 1) === 34) {
          // c"..."
          kind = Tok.CString;
          p = this.skipString(p + 1);
          break;
        }
        if (isNameChar(c)) {
          let q = p;
          while (q < n && isNameChar(t.charCodeAt(q))) q++;
          if (t.charCodeAt(q) === 58 && !(c === 45 && q === p + 1)) {
            kind = Tok.LabelDef;
            p = q + 1;
            break;
          }
          if (isDigit(c) || ((c === 45 || c === 43) && isDigit(t.charCodeAt(p + 1)))) {
            p = this.number(p);
            kind = this.numberKind;
            break;
          }
          // words never contain '-' in LLVM's keyword set; a name with '-' only appears as a label
          let w = p;
          while (w < n) {
            const d = t.charCodeAt(w);
            if ((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || (d >= 48 && d <= 57) || d === 95 || d === 46) w++;
            else break;
          }
          if (w === p) throw this.error(`unexpected character '${t[p]}'`, p);
          kind = Tok.Word;
          p = w;
          break;
        }
        kind = Tok.Punct;
        this.ch = c;
        p++;
      }
    }
    this.end = this.pos = p;
    return (this.kind = kind);
  }

  private numberKind: Tok = Tok.Int;

  private number(p: number): number {
    const t = this.text;
    const n = t.length;
    if (t.charCodeAt(p) === 48 && t.charCodeAt(p + 1) === 120) {
      // 0x..., 0xK..., 0xL, 0xM, 0xH, 0xR
      let q = p + 2;
      const k = t.charCodeAt(q);
      if (k === 75 || k === 76 || k === 77 || k === 72 || k === 82) q++;
      while (q < n && isHex(t.charCodeAt(q))) q++;
      this.numberKind = Tok.Float;
      return q;
    }
    let q = p;
    if (t.charCodeAt(q) === 45 || t.charCodeAt(q) === 43) q++;
    while (q < n && isDigit(t.charCodeAt(q))) q++;
    if (t.charCodeAt(q) !== 46) {
      this.numberKind = Tok.Int;
      return q;
    }
    q++;
    while (q < n && isDigit(t.charCodeAt(q))) q++;
    const e = t.charCodeAt(q);
    if (e === 101 || e === 69) {
      q++;
      if (t.charCodeAt(q) === 45 || t.charCodeAt(q) === 43) q++;
      while (q < n && isDigit(t.charCodeAt(q))) q++;
    }
    this.numberKind = Tok.Float;
    return q;
  }

  private sigilName(p: number): number {
    const t = this.text;
    if (t.charCodeAt(p) === 34) return this.skipString(p);
    const n = t.length;
    let q = p;
    while (q < n && (isNameChar(t.charCodeAt(q)) || t.charCodeAt(q) === 92)) q++;
    if (q === p) throw this.error('expected a name after sigil', p);
    return q;
  }

  /** p at the opening quote; returns the position after the closing quote. */
  private skipString(p: number): number {
    const q = this.text.indexOf('"', p + 1);
    if (q < 0) throw this.error('unterminated string', p);
    return q + 1;
  }

  /** Position right after the end of the current line (from `from`). */
  lineEnd(from: number): number {
    const nl = this.text.indexOf('\n', from);
    return nl < 0 ? this.text.length : nl;
  }

  /** Repositions the lexer at `p` and reads the token there. */
  reset(p: number): Tok {
    this.pos = p;
    return this.next();
  }
}

/** Decodes LLVM's `\XX` and `\\` escapes of a quoted name. */
export function unescape(s: string): string {
  if (s.indexOf('\\') < 0) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) {
      if (s[i + 1] === '\\') {
        out += '\\';
        i++;
        continue;
      }
      const h = s.slice(i + 1, i + 3);
      if (/^[0-9A-Fa-f]{2}$/.test(h)) {
        out += String.fromCharCode(parseInt(h, 16));
        i += 2;
        continue;
      }
    }
    out += c;
  }
  return out;
}
