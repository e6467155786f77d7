/**
 * Text tests as MongoDB regular expressions (PCRE, compiled by the server). Values are always
 * escaped, so a user's text never acts as a pattern; anchors are `\A` and `\z` because PCRE's `$`
 * also matches before a final newline.
 *
 * `like` follows compileLike (kernel/query/evaluate.ts): `%` any run, `_` one character, `\`
 * takes the next character literally, case-insensitive, anchored at both ends. A naive
 * translation (`%a%a%a…` → `.*a.*a.*a…`) backtracks polynomially on the server, so the pattern is
 * cut at its `%`s into fixed-length pieces and each middle piece is placed at its leftmost match
 * inside an atomic group `(?>.*?piece)`: greedy leftmost placement is exact when `%` is the only
 * variable-length wildcard, and the atomic group stops the engine from trying the others.
 */

/** PCRE's metacharacters outside a class (and `#`, special in extended mode), plus NUL, which a pattern cannot hold. */
const METACHARS = /[\\^$.|?*+()[\]{}#\0]/g;

/** A literal as PCRE source. */
export function escapePcre(text: string): string {
  return text.replace(METACHARS, (ch) => (ch === '\0' ? '\\x00' : `\\${ch}`));
}

/** Options for `like` (case-insensitive, `.` matches newlines too) and for the literal tests. */
export const LIKE_OPTIONS = 'is';
export const TEXT_OPTIONS = 'i';

/** A SQL LIKE pattern as anchored PCRE source (use with LIKE_OPTIONS). */
export function likeToPcre(pattern: string): string {
  const pieces: string[] = [''];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\' && i + 1 < pattern.length) pieces[pieces.length - 1] += escapePcre(pattern[++i]);
    else if (ch === '%') pieces.push('');
    else if (ch === '_') pieces[pieces.length - 1] += '.';
    else pieces[pieces.length - 1] += escapePcre(ch);
  }
  if (pieces.length === 1) return `\\A${pieces[0]}\\z`;
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  const middle = pieces.slice(1, -1).filter((p) => p !== '');
  return `\\A${first}${middle.map((p) => `(?>.*?${p})`).join('')}${last === '' ? '' : `.*${last}\\z`}`;
}

export function containsPcre(text: string): string {
  return escapePcre(text);
}

export function startsWithPcre(text: string): string {
  return `\\A${escapePcre(text)}`;
}

export function endsWithPcre(text: string): string {
  return `${escapePcre(text)}\\z`;
}
