/**
 * LIKE matching without one big RegExp: the same answers as the anchored RegExp it replaces, and
 * no polynomial backtracking on patterns with many `%`.
 */
import { expect } from 'chai';
import { compileLike, likeToRegExp } from '../../../kernel/query/evaluate';

describe('compileLike', () => {
  it('answers as the anchored case-insensitive RegExp on random patterns and values', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pick = (alphabet: string, max: number) => Array.from({ length: rand(max + 1) }, () => alphabet[rand(alphabet.length)]).join('');
    for (let i = 0; i < 20_000; i++) {
      const pattern = pick('aAb%_\\.', 8);
      const value = pick('aAbB._%\\\n', 10);
      expect(compileLike(pattern)(value), `${JSON.stringify(value)} like ${JSON.stringify(pattern)}`).to.equal(
        likeToRegExp(pattern).test(value),
      );
    }
  });

  it('handles the edge cases: empty, only wildcards, escapes, a trailing backslash', () => {
    const cases: Array<[string, string, boolean]> = [
      ['', '', true],
      ['', 'a', false],
      ['%', '', true],
      ['%%', 'abc', true],
      ['_', '', false],
      ['_', 'x', true],
      ['a%a', 'a', false],
      ['a%a', 'aa', true],
      ['%ab%ab%', 'abab', true],
      ['%ab%ab%', 'aba', false],
      ['\\%', '%', true],
      ['\\%', 'x', false],
      ['a\\', 'a\\', true],
      ['50\\%%', '50% off', true],
      ['%İ%', 'xİy', true],
    ];
    for (const [pattern, value, expected] of cases)
      expect(compileLike(pattern)(value), `${JSON.stringify(value)} like ${JSON.stringify(pattern)}`).to.equal(expected);
  });

  it('takes patterns too long for one RegExp', () => {
    expect(compileLike('a'.repeat(100_000))('A'.repeat(100_000))).to.equal(true);
    expect(compileLike(`%${'_b'.repeat(50_000)}`)(`x${'ab'.repeat(50_000)}`)).to.equal(true);
    expect(() => likeToRegExp('a'.repeat(100_000)).test('a')).to.throw(SyntaxError);
  });

  it('folds case as a RegExp with the i flag does, non-ASCII letters included', () => {
    for (const [pattern, value] of [
      ['straße', 'STRAßE'],
      ['σ', 'Σ'],
      ['ç', 'Ç'],
      ['k', 'K'],
      ['ı', 'I'],
      ['ſ', 's'],
      ['\u212a', 'k'],
    ]) {
      expect(compileLike(pattern)(value), `${value} like ${pattern}`).to.equal(new RegExp(`^${pattern}$`, 'i').test(value));
    }
  });

  it('tests a long value against a pattern of many wildcards in linear-ish time', () => {
    const start = Date.now();
    expect(compileLike(`${'%a'.repeat(50)}%b`)('a'.repeat(10_000))).to.equal(false);
    expect(compileLike(`${'%a'.repeat(50)}%`)('a'.repeat(10_000))).to.equal(true);
    expect(Date.now() - start).to.be.below(500);
  });
});
