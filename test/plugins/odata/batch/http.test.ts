/**
 * POST /odata/$batch over real HTTP, on SQLite and PostgreSQL: changesets commit or roll back whole
 * (checked by reading the store afterwards), parts act as the caller, malformed batches are 400.
 */
import { expect } from 'chai';
import { USERS, type TestServer } from '../../../helpers/server';
import { describeOnDatabases, expectODataError, od, ok, type Caller } from '../helpers';
import { multipartBatch, readMultipartResponse, type BatchItem, type ReadResponse } from './helpers';

async function postBatch(s: TestServer, items: BatchItem[], user: Caller = USERS.carol, headers: Record<string, string> = {}) {
  const { contentType, body } = multipartBatch(items);
  const res = await od(s, 'POST', '/$batch', body.toString('utf8'), user, { 'content-type': contentType, ...headers });
  expect(res.status, typeof res.body === 'string' ? res.body : JSON.stringify(res.body)).to.equal(200);
  expect(res.headers.get('odata-version')).to.equal('4.0');
  return { res, parts: readMultipartResponse(res.headers.get('content-type') ?? '', res.body) };
}

describeOnDatabases('OData $batch over HTTP', (server) => {
  const names = async () =>
    (
      ok(await od(server(), 'GET', "/account?$select=name&$orderby=name&$filter=startswith(name,'Batch')")).value as Array<{ name: string }>
    ).map((a) => a.name);

  afterEach(async () => {
    const s = server();
    for (const a of ok(await od(s, 'GET', "/account?$select=id&$filter=startswith(name,'Batch')")).value)
      await od(s, 'DELETE', `/account('${a.id}')`);
  });

  it('answers GETs and commits a changeset: create, update through $1, read back', async () => {
    const { res, parts } = await postBatch(server(), [
      { method: 'GET', url: "account('acc-acme')?$select=name" },
      {
        changeset: [
          { method: 'POST', url: 'account', body: { name: 'Batch One' }, contentId: '1' },
          { method: 'PATCH', url: '$1', body: { industry: 'finance' }, contentId: '2', headers: { 'If-Match': '$1' } },
          { method: 'POST', url: '/odata/account', body: { name: 'Batch Two' }, contentId: '3' },
        ],
      },
      { method: 'GET', url: "account?$filter=startswith(name,'Batch')&$select=name,industry&$orderby=name" },
    ]);
    expect(res.headers.get('content-type')).to.match(/^multipart\/mixed; boundary=batchresponse_/);
    const [acme, cs, list] = parts as [ReadResponse, { changeset: ReadResponse[] }, ReadResponse];
    expect(acme.body.name).to.equal('Acme Corporation');
    expect(cs.changeset.map((p) => [p.contentId, p.status])).to.deep.equal([
      ['1', 201],
      ['2', 200],
      ['3', 201],
    ]);
    expect(cs.changeset[0].headers.location).to.match(/^\/odata\/account\('/);
    expect(list.body.value.map((a: { name: string; industry: string | null }) => [a.name, a.industry])).to.deep.equal([
      ['Batch One', 'finance'],
      ['Batch Two', null],
    ]);
    expect(await names()).to.deep.equal(['Batch One', 'Batch Two']);
  });

  it('rolls back everything in a changeset that fails, answering with the failing request alone', async () => {
    const before = ok(await od(server(), 'GET', "/account('acc-globex')"));
    const { parts } = await postBatch(server(), [
      {
        changeset: [
          { method: 'POST', url: 'account', body: { name: 'Batch Gone' }, contentId: '1' },
          { method: 'PATCH', url: "account('acc-globex')", body: { industry: 'retail' }, contentId: '2' },
          { method: 'POST', url: 'account', body: { name: 'Acme Corporation' }, contentId: '3' },
          { method: 'POST', url: 'account', body: { name: 'Batch Never' }, contentId: '4' },
        ],
      },
      { method: 'GET', url: 'account' },
    ]);
    expect(parts).to.have.length(1);
    const failed = parts[0] as ReadResponse;
    expect(failed).to.deep.include({ status: 409, contentId: '3' });
    expect(failed.body.error.code).to.equal('CONFLICT');
    // Read back through HTTP, outside the batch: nothing of the changeset is there.
    expect(await names()).to.deep.equal([]);
    expect(ok(await od(server(), 'GET', "/account('acc-globex')")).industry).to.equal(before.industry);
  });

  it('runs every part as the caller: a write the caller may not make fails its changeset with 403', async () => {
    const { parts } = await postBatch(
      server(),
      [
        {
          changeset: [
            { method: 'POST', url: 'account', body: { name: 'Batch Viewer' }, contentId: 'a' },
            { method: 'POST', url: 'project', body: { name: 'Batch Project', status: 'planning' }, contentId: 'b' },
          ],
        },
      ],
      USERS.viewer,
    );
    expect(parts[0]).to.deep.include({ status: 403, contentId: 'b' });
    expect(await names()).to.deep.equal([]);
  });

  it('goes on after a failed changeset with Prefer: odata.continue-on-error', async () => {
    const { res, parts } = await postBatch(
      server(),
      [
        { changeset: [{ method: 'POST', url: 'account', body: {} }] },
        { changeset: [{ method: 'POST', url: 'account', body: { name: 'Batch Kept' } }] },
      ],
      USERS.carol,
      { prefer: 'odata.continue-on-error' },
    );
    expect(res.headers.get('preference-applied')).to.equal('odata.continue-on-error');
    expect(parts.map((p) => ('status' in p ? p.status : p.changeset.map((c) => c.status)))).to.deep.equal([400, [201]]);
    expect(await names()).to.deep.equal(['Batch Kept']);
  });

  it('serves the JSON batch format', async () => {
    const res = await od(server(), 'POST', '/$batch', {
      requests: [
        { id: 'n', atomicityGroup: 'g', method: 'post', url: 'account', body: { name: 'Batch JSON' } },
        { id: 'p', atomicityGroup: 'g', method: 'patch', url: '$n', body: { industry: 'retail' } },
        { id: 'r', dependsOn: ['g'], method: 'get', url: "account?$filter=name eq 'Batch JSON'&$select=industry" },
      ],
    });
    const body = ok(res);
    expect(body.responses.map((r: { id: string; status: number }) => [r.id, r.status])).to.deep.equal([
      ['n', 201],
      ['p', 200],
      ['r', 200],
    ]);
    expect(body.responses[2].body.value.map((a: { industry: string }) => a.industry)).to.deep.equal(['retail']);
  });

  it('refuses a malformed batch with 400 INVALID_REQUEST, running nothing', async () => {
    const body =
      '--b\r\nContent-Type: application/http\r\n\r\nPOST account HTTP/1.1\r\nContent-Type: application/json\r\n\r\n{"name":"Batch Not Run"}\r\n--b\r\nContent-Type: application/http\r\n\r\nNOT A REQUEST LINE\r\n--b--\r\n';
    const error = expectODataError(
      await od(server(), 'POST', '/$batch', body, USERS.carol, { 'content-type': 'multipart/mixed; boundary=b' }),
      400,
      'INVALID_REQUEST',
    );
    expect(error.details[0]).to.deep.include({ code: 'INVALID_REQUEST', target: 'part 2' });
    expectODataError(
      await od(server(), 'POST', '/$batch', body, USERS.carol, { 'content-type': 'multipart/mixed' }),
      400,
      'INVALID_REQUEST',
      'boundary',
    );
    expect(await names()).to.deep.equal([]);
  });
});
