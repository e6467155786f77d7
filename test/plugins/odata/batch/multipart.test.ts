/** The multipart/mixed and application/http reader and writer of $batch, as units (no I/O). */
import { expect } from 'chai';
import { ObjectQLError } from '../../../../kernel';
import {
  boundaryOf,
  parseHttpRequest,
  parseHttpResponse,
  parseMediaType,
  parseMultipart,
  writeHttpRequest,
  writeHttpResponse,
  writeMultipart,
} from '../../../../plugins/odata/batch';

const buf = (s: string) => Buffer.from(s, 'utf8');
const lf = (s: string) => s.replace(/\r\n/g, '\n');

/** The INVALID_REQUEST a call throws, with its single detail. */
function malformed(fn: () => unknown): { message: string; target?: string } {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ObjectQLError);
    const e = err as ObjectQLError;
    expect(e.code).to.equal('INVALID_REQUEST');
    const [detail] = e.details as Array<{ code: string; message: string; target?: string }>;
    expect(detail.code).to.equal('INVALID_REQUEST');
    return detail;
  }
  throw new Error('expected INVALID_REQUEST');
}

describe('$batch multipart: media types and boundaries', () => {
  it('reads the boundary quoted or not, parameters in any case and order', () => {
    expect(boundaryOf(parseMediaType('multipart/mixed; boundary=batch_1'))).to.equal('batch_1');
    expect(boundaryOf(parseMediaType('Multipart/Mixed;charset=utf-8; BOUNDARY="batch 36522ad7:(x)"'))).to.equal('batch 36522ad7:(x)');
    expect(boundaryOf(parseMediaType('multipart/mixed;boundary="a\\b"'))).to.equal('ab');
    expect(parseMediaType('application/http')).to.deep.equal({ type: 'application/http', params: {} });
  });

  it('refuses a missing boundary, one RFC 2046 does not allow, and malformed Content-Types', () => {
    expect(malformed(() => boundaryOf(parseMediaType('multipart/mixed'))).message).to.match(/no boundary/);
    expect(malformed(() => boundaryOf(parseMediaType(`multipart/mixed; boundary=${'x'.repeat(71)}`))).message).to.match(/1 to 70/);
    expect(malformed(() => boundaryOf(parseMediaType('multipart/mixed; boundary="ends with space "'))).message).to.match(/1 to 70/);
    expect(malformed(() => boundaryOf(parseMediaType('multipart/mixed; boundary="a;b"'))).message).to.match(/1 to 70/);
    expect(malformed(() => parseMediaType('multipart')).message).to.match(/malformed Content-Type/);
    expect(malformed(() => parseMediaType('multipart/mixed; boundary')).message).to.match(/malformed parameter/);
    expect(malformed(() => parseMediaType('multipart/mixed; boundary="open')).message).to.match(/malformed parameter/);
  });
});

describe('$batch multipart: parts', () => {
  const body = [
    'preamble, ignored',
    '--b1',
    'Content-Type: application/http',
    'Content-Transfer-Encoding: binary',
    '',
    'GET Books HTTP/1.1',
    '',
    '',
    '--b1 ',
    'Content-Type: text/plain',
    '',
    'line one',
    '--b1 is not a delimiter here, nor is --b1x below',
    '--b1x',
    '--b1--',
    'epilogue, ignored',
  ].join('\r\n');

  it('splits on delimiter lines only (CRLF), the line break before a delimiter belonging to it', () => {
    const parts = parseMultipart(buf(body), 'b1', { maxParts: 10 });
    expect(parts).to.have.length(2);
    expect(parts[0].headers).to.deep.equal({ 'content-type': 'application/http', 'content-transfer-encoding': 'binary' });
    // The request's own empty line, then one more; the last line break belongs to the delimiter.
    expect(parts[0].body.toString()).to.equal('GET Books HTTP/1.1\r\n\r\n');
    expect(parts[1].body.toString()).to.equal('line one\r\n--b1 is not a delimiter here, nor is --b1x below\r\n--b1x');
  });

  it('reads bare LF line endings the same way', () => {
    const parts = parseMultipart(buf(lf(body)), 'b1', { maxParts: 10 });
    expect(parts.map((p) => p.body.toString())).to.deep.equal([
      'GET Books HTTP/1.1\n\n',
      'line one\n--b1 is not a delimiter here, nor is --b1x below\n--b1x',
    ]);
    expect(parts[1].headers).to.deep.equal({ 'content-type': 'text/plain' });
  });

  it('reads parts without headers or body, folded and repeated headers', () => {
    const parts = parseMultipart(buf('--b\r\n--b\r\nX-A: 1\r\n  continued\r\nx-a: 2\r\n\r\n--b--'), 'b', { maxParts: 10 });
    expect(parts).to.deep.equal([
      { headers: {}, body: Buffer.alloc(0) },
      { headers: { 'x-a': '1 continued, 2' }, body: Buffer.alloc(0) },
    ]);
    expect(parseMultipart(buf('--b--\r\n'), 'b', { maxParts: 10 })).to.deep.equal([]);
  });

  it('round-trips what it writes: bodies ending in line breaks, binary bytes, UTF-8 headers', () => {
    const parts: Array<{ headers: Record<string, string>; body: Buffer }> = [
      { headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from([0, 13, 10, 45, 45, 98, 255, 13, 10]) },
      { headers: { 'content-type': 'text/plain', location: "/odata/Book('Zoë')" }, body: Buffer.from('ends with CRLF\r\n\r\n') },
      { headers: {}, body: Buffer.alloc(0) },
    ];
    const written = writeMultipart('rt_1', parts);
    expect(written.toString('latin1').startsWith('--rt_1\r\ncontent-type: application/octet-stream\r\n\r\n')).to.equal(true);
    expect(written.toString('latin1').endsWith('\r\n--rt_1--\r\n')).to.equal(true);
    expect(parseMultipart(written, 'rt_1', { maxParts: 10 })).to.deep.equal(parts);
  });

  it('refuses a body without delimiter, without closing delimiter, a malformed header line, too many parts', () => {
    expect(malformed(() => parseMultipart(buf('no parts at all'), 'b', { maxParts: 5 })).message).to.match(/no delimiter line '--b'/);
    expect(malformed(() => parseMultipart(buf('--b\r\n\r\nbody\r\n'), 'b', { maxParts: 5 })).message).to.match(
      /without the closing delimiter '--b--'/,
    );
    expect(malformed(() => parseMultipart(buf('--b\r\n\r\nbody\r\n--b'), 'b', { maxParts: 5 })).message).to.match(/closing delimiter/);
    expect(malformed(() => parseMultipart(buf('--b\r\nnot a header\r\n\r\n--b--'), 'b', { maxParts: 5 }))).to.deep.include({
      target: 'part 1',
    });
    expect(malformed(() => parseMultipart(buf('--b\r\n: no name\r\n\r\n--b--'), 'b', { maxParts: 5 })).message).to.match(
      /malformed header line/,
    );
    const three = '--b\r\n\r\n--b\r\n\r\n--b\r\n\r\n--b--';
    expect(parseMultipart(buf(three), 'b', { maxParts: 3 })).to.have.length(3);
    expect(malformed(() => parseMultipart(buf(three), 'b', { maxParts: 2 })).message).to.match(/more than 2 requests/);
    expect(malformed(() => parseMultipart(buf('--c\r\nbad line\r\n\r\n--c--'), 'c', { maxParts: 2, where: 'part 4' }))).to.deep.include({
      target: 'part 4.1',
    });
  });
});

describe('$batch multipart: HTTP messages', () => {
  it('reads a request: method, target as written, headers, body; blank lines before the request line', () => {
    const msg = parseHttpRequest(
      buf('\r\npatch http://host/odata/Books(\'1\') HTTP/1.1\r\nContent-Type: application/json\r\nIf-Match: $1\r\n\r\n{"a":1}'),
      'part 1',
    );
    expect(msg).to.deep.equal({
      method: 'PATCH',
      target: "http://host/odata/Books('1')",
      headers: { 'content-type': 'application/json', 'if-match': '$1' },
      body: buf('{"a":1}'),
    });
    expect(parseHttpRequest(buf("GET Books?$filter=title eq 'a b' HTTP/1.1\n\n"), 'p').target).to.equal("Books?$filter=title eq 'a b'");
  });

  it('bounds the body by Content-Length, and drops a body of blank lines', () => {
    expect(parseHttpRequest(buf('POST Books HTTP/1.1\r\nContent-Length: 7\r\n\r\n{"a":1}\r\n\r\n'), 'p').body.toString()).to.equal(
      '{"a":1}',
    );
    expect(parseHttpRequest(buf('GET Books HTTP/1.1\r\n\r\n\r\n  \r\n'), 'p').body).to.have.length(0);
    expect(malformed(() => parseHttpRequest(buf('POST Books HTTP/1.1\r\nContent-Length: 99\r\n\r\n{}'), 'part 2'))).to.deep.include({
      target: 'part 2',
    });
    expect(malformed(() => parseHttpRequest(buf('POST Books HTTP/1.1\r\nContent-Length: -1\r\n\r\n{}'), 'p')).message).to.match(
      /malformed Content-Length/,
    );
  });

  it('refuses a missing or malformed request line', () => {
    for (const bad of ['', '\r\n\r\n', 'GET Books', 'GET Books HTTP/x', 'GET  HTTP/1.1', 'Books HTTP/1.1', 'G€T Books HTTP/1.1']) {
      expect(
        malformed(() => parseHttpRequest(buf(bad), 'part 3')),
        JSON.stringify(bad),
      ).to.deep.include({ target: 'part 3' });
    }
  });

  it('writes responses with a reason phrase and round-trips requests and responses', () => {
    const response = writeHttpResponse({
      status: 201,
      headers: { 'Content-Type': 'application/json', Location: "/odata/Books('1')" },
      body: '{"id":"1"}',
    });
    expect(response.toString()).to.equal(
      'HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nLocation: /odata/Books(\'1\')\r\n\r\n{"id":"1"}',
    );
    expect(parseHttpResponse(response, 'p')).to.deep.equal({
      status: 201,
      headers: { 'content-type': 'application/json', location: "/odata/Books('1')" },
      body: buf('{"id":"1"}'),
    });
    expect(writeHttpResponse({ status: 204, headers: {} }).toString()).to.equal('HTTP/1.1 204 No Content\r\n\r\n');
    const request = writeHttpRequest({ method: 'POST', target: 'Books', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(parseHttpRequest(request, 'p')).to.deep.equal({
      method: 'POST',
      target: 'Books',
      headers: { 'content-type': 'application/json' },
      body: buf('{}'),
    });
    expect(malformed(() => parseHttpResponse(buf('HTTP/1.1 20 OK\r\n\r\n'), 'p')).message).to.match(/malformed status line/);
  });
});
