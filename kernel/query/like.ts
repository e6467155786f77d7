/**
 * SQL LIKE without regular expressions (docs/adr/0007): `%` is any run, `_` one character, `\`
 * escapes `%`, `_` and itself; case-insensitive as a RegExp with the `i` flag compares, one UTF-16
 * code unit at a time. The memory driver, in-process filter evaluation and SQLite's
 * `objectql_match` (which runs on the event loop) all match with this.
 *
 * The pattern is cut at its `%`s into pieces of fixed length: the first must match at the start,
 * the last at the end, each other at its leftmost place after the one before (greedy leftmost
 * placement is exact when `%` is the only variable-length wildcard). Each search resumes where the
 * previous one stopped, so the value is read once: a piece without `_` is found with
 * Knuth-Morris-Pratt, in time linear in the value; a piece with `_` with Shift-And over 32-bit
 * words, in the value's length times ⌈piece length / 32⌉. Never length × length, which is what a
 * 100,000-character pattern over a 200,000-character value cost before (seconds of blocked loop).
 */

const BACKSLASH = 0x5c;
const PERCENT = 0x25;
const UNDERSCORE = 0x5f;
const ANY = -1;

/** Leftmost start of a piece in `codes[from, end)` (the whole piece inside), or -1. */
type Finder = (codes: Uint16Array, from: number, end: number) => number;

export function compileLike(pattern: string): (value: string) => boolean {
  const pieces = splitPattern(pattern);
  const first = pieces[0];
  if (pieces.length === 1) return (value) => value.length === first.length && pieceAt(first, fold(value), 0);
  const last = pieces[pieces.length - 1];
  const middle = pieces.slice(1, -1).filter((p) => p.length > 0);
  const finders = middle.map(finderOf);
  const minLength = first.length + last.length + middle.reduce((n, p) => n + p.length, 0);
  return (value) => {
    if (value.length < minLength) return false;
    const codes = fold(value);
    const end = codes.length - last.length;
    if (!pieceAt(first, codes, 0) || !pieceAt(last, codes, end)) return false;
    let pos = first.length;
    for (let i = 0; i < finders.length; i++) {
      const at = finders[i](codes, pos, end);
      if (at < 0) return false;
      pos = at + middle[i].length;
    }
    return true;
  };
}

/** The pattern's fixed-length pieces between `%`s, as folded code units (ANY for `_`). */
function splitPattern(pattern: string): number[][] {
  const pieces: number[][] = [[]];
  for (let i = 0; i < pattern.length; i++) {
    let code = pattern.charCodeAt(i);
    if (code === BACKSLASH && i + 1 < pattern.length) code = foldCase(pattern.charCodeAt(++i));
    else if (code === PERCENT) {
      pieces.push([]);
      continue;
    } else code = code === UNDERSCORE ? ANY : foldCase(code);
    pieces[pieces.length - 1].push(code);
  }
  return pieces;
}

function finderOf(piece: number[]): Finder {
  return piece.includes(ANY) ? shiftAnd(piece) : knuthMorrisPratt(piece);
}

function knuthMorrisPratt(piece: number[]): Finder {
  const m = piece.length;
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && piece[i] !== piece[k]) k = fail[k - 1];
    if (piece[i] === piece[k]) k++;
    fail[i] = k;
  }
  return (codes, from, end) => {
    for (let i = from, k = 0; i < end; i++) {
      while (k > 0 && codes[i] !== piece[k]) k = fail[k - 1];
      if (codes[i] === piece[k]) k++;
      if (k === m) return i - m + 1;
    }
    return -1;
  };
}

/** Bit j of the state: the last j + 1 code units read match the piece's first j + 1. */
function shiftAnd(piece: number[]): Finder {
  const m = piece.length;
  const words = Math.ceil(m / 32);
  const any = new Uint32Array(words);
  piece.forEach((code, j) => {
    if (code === ANY) any[j >>> 5] |= 1 << (j & 31);
  });
  const masks = new Map<number, Uint32Array>();
  piece.forEach((code, j) => {
    if (code === ANY) return;
    let mask = masks.get(code);
    if (!mask) masks.set(code, (mask = Uint32Array.from(any)));
    mask[j >>> 5] |= 1 << (j & 31);
  });
  const lastWord = words - 1;
  const lastBit = (m - 1) & 31;
  return (codes, from, end) => {
    const state = new Uint32Array(words);
    for (let i = from; i < end; i++) {
      const mask = masks.get(codes[i]) ?? any;
      let carry = 1;
      for (let w = 0; w < words; w++) {
        const s = state[w];
        state[w] = ((s << 1) | carry) & mask[w];
        carry = s >>> 31;
      }
      if ((state[lastWord] >>> lastBit) & 1) return i - m + 1;
    }
    return -1;
  };
}

function pieceAt(piece: number[], codes: Uint16Array, at: number): boolean {
  for (let k = 0; k < piece.length; k++) {
    if (piece[k] !== ANY && piece[k] !== codes[at + k]) return false;
  }
  return true;
}

function fold(value: string): Uint16Array {
  const out = new Uint16Array(value.length);
  for (let i = 0; i < value.length; i++) out[i] = foldCase(value.charCodeAt(i));
  return out;
}

/** Canonicalize of ECMAScript's case-insensitive, non-unicode RegExp matching, for one code unit. */
function foldCase(code: number): number {
  if (code < 128) return code >= 97 && code <= 122 ? code - 32 : code;
  const upper = String.fromCharCode(code).toUpperCase();
  if (upper.length !== 1) return code;
  const folded = upper.charCodeAt(0);
  return folded < 128 ? code : folded;
}
