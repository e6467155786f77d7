/** The values every engine stores alike (kernel/engine/value-rules.ts) and the links an attachment may hold. */
import { expect } from 'chai';
import type { FieldDefinition } from '../../../kernel/metadata/types';
import { normalizeFieldValue } from '../../../kernel/engine/field-values';
import { numberProblem, stringProblem, treeProblem } from '../../../kernel/engine/value-rules';

const field = (type: FieldDefinition['type'], extra: Partial<FieldDefinition> = {}): FieldDefinition => ({
  name: 'f',
  type,
  label: 'F',
  ...extra,
});
const errorOf = (f: FieldDefinition, value: unknown) => {
  const r = normalizeFieldValue(f, value);
  return 'error' in r ? r.error : undefined;
};

describe('kernel/engine/value-rules', () => {
  it('refuses NUL characters and unpaired surrogates, keeps every well-formed string', () => {
    expect(stringProblem('a\u0000b')).to.include('NUL');
    for (const lone of ['\ud800', 'a\ud800b', '\udc00', 'x\udfff', '\udc00\ud800'])
      expect(stringProblem(lone), JSON.stringify(lone)).to.include('surrogate');
    for (const fine of ['', 'plain', 'é', '😀', '\u{10FFFF}', 'a\u0001b', '\ud83d\ude00x'])
      expect(stringProblem(fine), fine).to.equal(undefined);
  });

  it('refuses numbers beyond ±(2^53 − 1)', () => {
    expect(numberProblem(Number.MAX_SAFE_INTEGER)).to.equal(undefined);
    expect(numberProblem(-Number.MAX_SAFE_INTEGER)).to.equal(undefined);
    expect(numberProblem(0.5)).to.equal(undefined);
    for (const n of [2 ** 53, -(2 ** 53), 1e21, 1.5e300]) expect(numberProblem(n), String(n)).to.include('9007199254740991');
  });

  it('walks values without recursion: strings and keys at any depth, nesting bounded', () => {
    expect(treeProblem({ a: [{ b: 'x\u0000' }] }, { maxJsonValueDepth: 31 })?.error).to.include('NUL');
    expect(treeProblem({ ['k\u0000']: 1 }, { maxJsonValueDepth: 31 })?.error).to.include('key');
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(treeProblem(deep, { maxJsonValueDepth: 31 })).to.deep.equal({
      error: 'is nested deeper than 31 levels',
      limit: { limit: 'maxJsonValueDepth', max: 31 },
    });
  });

  it('bounds text: 255 characters for short text without max_length, maxTextLength for textarea, max_length when declared', () => {
    expect(errorOf(field('text'), 'x'.repeat(255))).to.equal(undefined);
    expect(errorOf(field('text'), '😀'.repeat(255))).to.equal(undefined);
    expect(errorOf(field('email'), `${'x'.repeat(251)}@a.io`)).to.include('at most 255');
    expect(errorOf(field('text', { max_length: 1000 }), 'x'.repeat(1000))).to.equal(undefined);
    expect(errorOf(field('textarea'), 'x'.repeat(65_536))).to.equal(undefined);
    expect(normalizeFieldValue(field('textarea'), 'x'.repeat(65_537))).to.deep.include({ limit: { limit: 'maxTextLength', max: 65_536 } });
    expect(errorOf(field('textarea', { max_length: 100_000 }), 'x'.repeat(100_000))).to.equal(undefined);
    expect(errorOf(field('select'), 'x'.repeat(256))).to.include('at most 255');
  });

  it('takes attachment links that are http(s) or relative, nothing a browser would run', () => {
    const file = (url: string) => ({ name: 'r.pdf', url, size: 1, type: 'application/pdf' });
    for (const url of ['/api/files/f1', 'files/f1', 'https://cdn.example.com/a.pdf', 'http://x.io/a?b=c:d', '//cdn.example.com/a.pdf'])
      expect(errorOf(field('file'), file(url)), url).to.equal(undefined);
    for (const url of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,x',
      'vbscript:x',
      'https://',
      'file:///etc/passwd',
    ])
      expect(errorOf(field('file'), file(url)), JSON.stringify(url)).to.include('http(s) URL or a relative path');
    const image = { ...file('/i.png'), name: 'i.png', type: 'image/png', thumbnail_url: 'javascript:x' };
    expect(errorOf(field('image'), image)).to.include('thumbnail_url');
    expect(errorOf(field('image'), { ...image, thumbnail_url: '/t.png', variants: { small: 'data:image/png;base64,x' } })).to.include(
      'variants.small',
    );
  });
});
