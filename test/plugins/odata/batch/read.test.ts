/** Reading a $batch body into its plan (both formats), and every malformed batch refused, as units. */
import { expect } from 'chai';
import { ObjectQLError } from '../../../../kernel';
import { readJsonBatch } from '../../../../plugins/odata/batch/json-batch';
import { parseMediaType } from '../../../../plugins/odata/batch/multipart';
import { readMultipartBatch } from '../../../../plugins/odata/batch/multipart-batch';
import type { BatchPlan } from '../../../../plugins/odata/batch/plan';
import { multipartBatch, type BatchItem } from './helpers';

const BASE = '/odata';

function readMultipart(items: BatchItem[], options: { lf?: boolean; maxParts?: number; boundary?: string } = {}): BatchPlan {
  const { contentType, body } = multipartBatch(items, options);
  return readMultipart2(contentType, body, options.maxParts);
}
function readMultipart2(contentType: string, body: Buffer | string, maxParts = 100): BatchPlan {
  return readMultipartBatch(parseMediaType(contentType), Buffer.isBuffer(body) ? body : Buffer.from(body), BASE, maxParts);
}

/** The single detail of the INVALID_REQUEST a call throws. */
function detail(fn: () => unknown): { message: string; target?: string } {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ObjectQLError);
    expect((err as ObjectQLError).code).to.equal('INVALID_REQUEST');
    return ((err as ObjectQLError).details as Array<{ message: string; target?: string }>)[0];
  }
  throw new Error('expected INVALID_REQUEST');
}

describe('$batch: reading a multipart batch', () => {
  for (const lf of [false, true]) {
    it(`reads requests and changesets in order, URLs resolved against the service root (${lf ? 'LF' : 'CRLF'})`, () => {
      const plan = readMultipart(
        [
          { method: 'GET', url: "Books('1')?$select=title" },
          { method: 'GET', url: '/odata/Books?$top=2' },
          { method: 'GET', url: 'http://example.com:8080/odata/$metadata' },
          {
            changeset: [
              { method: 'POST', url: 'Books', body: { title: 'A' }, contentId: '1' },
              { method: 'PATCH', url: '$1', body: { title: 'B' }, contentId: '2', headers: { 'If-Match': '$1' } },
              { method: 'DELETE', url: '$1/author/$ref?x=1', contentId: 'three' },
            ],
          },
        ],
        { lf },
      );
      expect(plan.format).to.equal('multipart');
      const [a, b, c, cs] = plan.items;
      expect(a).to.deep.include({ kind: 'request' });
      if (a.kind !== 'request' || b.kind !== 'request' || c.kind !== 'request' || cs.kind !== 'changeset') throw new Error('shape');
      expect(a.request.target).to.deep.equal({ kind: 'path', path: "/Books('1')", query: '?$select=title' });
      expect(a.request.body).to.deep.equal({ kind: 'none' });
      expect(b.request.target).to.deep.equal({ kind: 'path', path: '/Books', query: '?$top=2' });
      expect(c.request.target).to.deep.equal({ kind: 'path', path: '/$metadata', query: '' });
      expect(cs.requests.map((r) => [r.id, r.method, r.target])).to.deep.equal([
        ['1', 'POST', { kind: 'path', path: '/Books', query: '' }],
        ['2', 'PATCH', { kind: 'ref', id: '1', path: '', query: '' }],
        ['three', 'DELETE', { kind: 'ref', id: '1', path: '/author/$ref', query: '?x=1' }],
      ]);
      expect(cs.requests[0].body).to.deep.equal({ kind: 'value', value: { title: 'A' } });
      expect(cs.requests[1].headers['if-match']).to.equal('$1');
      expect(cs.requests.map((r) => r.where)).to.deep.equal(['part 4.1', 'part 4.2', 'part 4.3']);
    });
  }

  it('takes a Content-ID from the inner request when the part has none; text bodies stay text; bad JSON is left to the request', () => {
    const body = [
      '--b',
      'Content-Type: multipart/mixed; boundary="cs 1"',
      '',
      '--cs 1',
      'Content-Type: application/http',
      '',
      'POST Books HTTP/1.1',
      'Content-ID: 7',
      'Content-Type: text/plain',
      '',
      'hello',
      '--cs 1',
      'Content-Type: application/http',
      '',
      'POST Books HTTP/1.1',
      '',
      '{not json',
      '--cs 1--',
      '--b--',
      '',
    ].join('\r\n');
    const [cs] = readMultipart2('multipart/mixed; boundary=b', body).items;
    if (cs.kind !== 'changeset') throw new Error('shape');
    expect(cs.requests[0].id).to.equal('7');
    expect(cs.requests[0].body).to.deep.equal({ kind: 'value', value: 'hello' });
    expect(cs.requests[1].body.kind).to.equal('invalid');
  });

  it('counts the requests inside changesets against maxParts', () => {
    const items: BatchItem[] = [
      { method: 'GET', url: 'Books' },
      {
        changeset: [
          { method: 'POST', url: 'Books', body: {} },
          { method: 'POST', url: 'Books', body: {} },
        ],
      },
    ];
    expect(readMultipart(items, { maxParts: 3 }).items).to.have.length(2);
    expect(detail(() => readMultipart(items, { maxParts: 2 })).message).to.match(/more than 2 requests/);
    expect(detail(() => readMultipart([...items, { method: 'GET', url: 'Books' }], { maxParts: 3 })).message).to.match(
      /more than 3 requests/,
    );
  });

  describe('refuses, naming where', () => {
    const cases: Array<[string, () => unknown, RegExp, string | undefined]> = [
      [
        'a part without Content-Type',
        () => readMultipart2('multipart/mixed; boundary=b', '--b\r\n\r\nGET Books HTTP/1.1\r\n--b--'),
        /no Content-Type/,
        'part 1',
      ],
      [
        'a part of another type',
        () => readMultipart2('multipart/mixed; boundary=b', '--b\r\nContent-Type: application/json\r\n\r\n{}\r\n--b--'),
        /application\/http or a multipart\/mixed changeset/,
        'part 1',
      ],
      [
        'an encoding other than binary',
        () =>
          readMultipart2(
            'multipart/mixed; boundary=b',
            '--b\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: base64\r\n\r\nR0VU\r\n--b--',
          ),
        /base64/,
        'part 1',
      ],
      [
        'a bad request line',
        () =>
          readMultipart2(
            'multipart/mixed; boundary=b',
            '--b\r\nContent-Type: application/http\r\n\r\nGET Books HTTP/1.1\r\n--b\r\nContent-Type: application/http\r\n\r\nGET Books\r\n--b--',
          ),
        /request line/,
        'part 2',
      ],
      ['an unknown method', () => readMultipart([{ method: 'MERGE', url: 'Books' }]), /method 'MERGE'/, 'part 1'],
      [
        'a URL outside the service root',
        () => readMultipart([{ method: 'GET', url: '/api/data/Books' }]),
        /outside the service root/,
        'part 1',
      ],
      [
        'an absolute URL outside the service root',
        () => readMultipart([{ method: 'GET', url: 'https://h/other/Books' }]),
        /outside the service root/,
        'part 1',
      ],
      ['dot segments', () => readMultipart([{ method: 'GET', url: 'Books/../$metadata' }]), /'\.' or '\.\.'/, 'part 1'],
      ['a nested $batch', () => readMultipart([{ method: 'POST', url: '$batch' }]), /cannot contain a \$batch/, 'part 1'],
      ['a reference outside a changeset', () => readMultipart([{ method: 'GET', url: '$1' }]), /only valid inside the changeset/, 'part 1'],
      [
        'a GET in a changeset',
        () => readMultipart([{ changeset: [{ method: 'GET', url: 'Books' }] }]),
        /GET is not allowed in a changeset/,
        'part 1.1',
      ],
      [
        'a nested changeset',
        () =>
          readMultipart2(
            'multipart/mixed; boundary=b',
            '--b\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c\r\nContent-Type: multipart/mixed; boundary=d\r\n\r\n--d--\r\n--c--\r\n--b--',
          ),
        /cannot be nested/,
        'part 1.1',
      ],
      [
        'an empty changeset',
        () => readMultipart2('multipart/mixed; boundary=b', '--b\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c--\r\n--b--'),
        /holds no request/,
        'part 1',
      ],
      [
        'a changeset without boundary',
        () => readMultipart2('multipart/mixed; boundary=b', '--b\r\nContent-Type: multipart/mixed\r\n\r\n--b--'),
        /no boundary/,
        'part 1',
      ],
      [
        'a changeset without its closing delimiter',
        () =>
          readMultipart2(
            'multipart/mixed; boundary=b',
            '--b\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c\r\nContent-Type: application/http\r\n\r\nPOST Books HTTP/1.1\r\n--b--',
          ),
        /closing delimiter '--c--'/,
        'part 1',
      ],
      [
        'a reference to a later request',
        () =>
          readMultipart([
            {
              changeset: [
                { method: 'PATCH', url: '$2', contentId: '1' },
                { method: 'POST', url: 'Books', contentId: '2' },
              ],
            },
          ]),
        /names no earlier request/,
        'part 1.1',
      ],
      [
        'a reference to another changeset',
        () =>
          readMultipart([
            { changeset: [{ method: 'POST', url: 'Books', contentId: '1' }] },
            { changeset: [{ method: 'PATCH', url: '$1' }] },
          ]),
        /scoped to their changeset/,
        'part 2.1',
      ],
      [
        'a Content-ID used twice in a changeset',
        () =>
          readMultipart([
            {
              changeset: [
                { method: 'POST', url: 'Books', contentId: '1' },
                { method: 'POST', url: 'Books', contentId: '1' },
              ],
            },
          ]),
        /used twice/,
        'part 1.2',
      ],
      [
        'a reference naming no Content-ID',
        () => readMultipart([{ changeset: [{ method: 'POST', url: '$' }] }]),
        /names no Content-ID/,
        'part 1.1',
      ],
    ];
    for (const [label, fn, message, target] of cases) {
      it(label, () => {
        const d = detail(fn);
        expect(d.message).to.match(message);
        expect(d.target).to.equal(target);
      });
    }

    it('the same Content-ID in two changesets is fine: references are scoped to their changeset', () => {
      const plan = readMultipart([
        {
          changeset: [
            { method: 'POST', url: 'Books', contentId: '1' },
            { method: 'PATCH', url: '$1', contentId: '2' },
          ],
        },
        {
          changeset: [
            { method: 'POST', url: 'Books', contentId: '1' },
            { method: 'PATCH', url: '$1', contentId: '2' },
          ],
        },
      ]);
      expect(plan.items).to.have.length(2);
    });
  });
});

describe('$batch: reading a JSON batch', () => {
  it('reads requests, atomicity groups (adjacent requests), dependsOn and references', () => {
    const plan = readJsonBatch(
      {
        '@odata.context': 'ignored',
        requests: [
          { id: 'r0', method: 'get', url: "/odata/Books('1')" },
          {
            id: 'r1',
            atomicityGroup: 'g1',
            method: 'post',
            url: 'Books',
            headers: { 'Content-Type': 'application/json' },
            body: { title: 'A' },
          },
          { id: 'r2', atomicityGroup: 'g1', method: 'PATCH', url: '$r1', body: { title: 'B' } },
          { id: 'r3', dependsOn: ['g1', 'r1'], method: 'delete', url: '$r1' },
        ],
      },
      BASE,
      10,
    );
    expect(plan.format).to.equal('json');
    expect(plan.items.map((i) => i.kind)).to.deep.equal(['request', 'changeset', 'request']);
    const [, group, last] = plan.items;
    if (group.kind !== 'changeset' || last.kind !== 'request') throw new Error('shape');
    expect(group.group).to.equal('g1');
    expect(group.requests.map((r) => [r.id, r.method, r.target.kind])).to.deep.equal([
      ['r1', 'POST', 'path'],
      ['r2', 'PATCH', 'ref'],
    ]);
    expect(group.requests[0].headers).to.deep.equal({ 'content-type': 'application/json' });
    expect(last.request.dependsOn).to.deep.equal(['g1', 'r1']);
    expect(last.request.target).to.deep.equal({ kind: 'ref', id: 'r1', path: '', query: '' });
  });

  const cases: Array<[string, unknown, RegExp, string | undefined]> = [
    ['not an object', [], /'requests' array/, undefined],
    ['an unknown top-level member', { requests: [], other: 1 }, /unknown member 'other'/, undefined],
    ['a request that is no object', { requests: [1] }, /must be an object/, 'requests[0]'],
    [
      'an unknown request member',
      { requests: [{ id: 'a', method: 'get', url: 'Books', extra: 1 }] },
      /unknown member 'extra'/,
      'requests[0]',
    ],
    ['a missing id', { requests: [{ method: 'get', url: 'Books' }] }, /'id'/, 'requests[0].id'],
    [
      'a duplicate id',
      {
        requests: [
          { id: 'a', method: 'get', url: 'Books' },
          { id: 'a', method: 'get', url: 'Books' },
        ],
      },
      /used twice/,
      'requests[1].id',
    ],
    ['a bad method', { requests: [{ id: 'a', method: 'merge', url: 'Books' }] }, /'method'/, 'requests[0].method'],
    ['a missing url', { requests: [{ id: 'a', method: 'get' }] }, /'url'/, 'requests[0].url'],
    [
      'a URL outside the service',
      { requests: [{ id: 'a', method: 'get', url: '/elsewhere' }] },
      /outside the service root/,
      'requests[0].url',
    ],
    ['bad headers', { requests: [{ id: 'a', method: 'get', url: 'Books', headers: { a: 1 } }] }, /'headers'/, 'requests[0].headers'],
    [
      'a header twice',
      { requests: [{ id: 'a', method: 'get', url: 'Books', headers: { Accept: 'x', accept: 'y' } }] },
      /given twice/,
      'requests[0].headers',
    ],
    [
      'a GET with a body',
      { requests: [{ id: 'a', method: 'get', url: 'Books', body: {} }] },
      /GET request has no body/,
      'requests[0].body',
    ],
    [
      'a forward dependency',
      {
        requests: [
          { id: 'a', method: 'get', url: 'Books', dependsOn: ['b'] },
          { id: 'b', method: 'get', url: 'Books' },
        ],
      },
      /names no preceding/,
      'requests[0].dependsOn',
    ],
    [
      'a reference not in dependsOn',
      {
        requests: [
          { id: 'a', method: 'post', url: 'Books', body: {} },
          { id: 'b', method: 'patch', url: '$a', body: {} },
        ],
      },
      /must be listed in dependsOn/,
      'requests[1].url',
    ],
    [
      'non-adjacent atomicity group',
      {
        requests: [
          { id: 'a', atomicityGroup: 'g', method: 'post', url: 'Books' },
          { id: 'b', method: 'post', url: 'Books' },
          { id: 'c', atomicityGroup: 'g', method: 'post', url: 'Books' },
        ],
      },
      /must be adjacent/,
      'requests[2].atomicityGroup',
    ],
    [
      'a group named like a request',
      {
        requests: [
          { id: 'a', method: 'post', url: 'Books' },
          { id: 'b', atomicityGroup: 'a', method: 'post', url: 'Books' },
        ],
      },
      /also a request id/,
      'requests[1].atomicityGroup',
    ],
    [
      'a GET in an atomicity group',
      { requests: [{ id: 'a', atomicityGroup: 'g', method: 'get', url: 'Books' }] },
      /GET is not allowed in an atomicity group/,
      'requests[0]',
    ],
    [
      'a dependency on its own group',
      {
        requests: [
          { id: 'a', atomicityGroup: 'g', method: 'post', url: 'Books' },
          { id: 'b', atomicityGroup: 'g', dependsOn: ['g'], method: 'post', url: 'Books' },
        ],
      },
      /its own atomicity group/,
      'requests[1].dependsOn',
    ],
    [
      'too many requests',
      {
        requests: [
          { id: 'a', method: 'get', url: 'Books' },
          { id: 'b', method: 'get', url: 'Books' },
        ],
      },
      /more than 1 requests/,
      undefined,
    ],
  ];
  for (const [label, body, message, target] of cases) {
    it(`refuses ${label}`, () => {
      const d = detail(() => readJsonBatch(body, BASE, label === 'too many requests' ? 1 : 10));
      expect(d.message).to.match(message);
      expect(d.target).to.equal(target);
    });
  }
});
