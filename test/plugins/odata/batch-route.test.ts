/**
 * POST {basePath}/$batch over real HTTP, on SQLite and PostgreSQL: the route reads the multipart
 * body, every part goes through the service as the caller (identity and permissions apply), a
 * failing changeset leaves nothing behind, and the body size limit and the JSON batch format hold.
 */
import { expect } from 'chai';
import { USERS } from '../../helpers/server';
import { multipartBatch, readMultipartResponse, type ReadResponse } from './batch/helpers';
import { describeOnDatabases, expectODataError, od, ok, query } from './helpers';

describeOnDatabases('OData $batch route', (server) => {
  async function send(items: Parameters<typeof multipartBatch>[0], user = USERS.carol) {
    const { contentType, body } = multipartBatch(items);
    const res = await od(server(), 'POST', '/$batch', body.toString('utf8'), user, { 'content-type': contentType });
    expect(res.status, String(res.body)).to.equal(200);
    expect(res.headers.get('odata-version')).to.equal('4.0');
    return readMultipartResponse(res.headers.get('content-type')!, res.body);
  }

  it('answers each request of a multipart batch, as the caller', async () => {
    const [one, list] = (await send(
      [
        { method: 'GET', url: "project('prj-apollo')?$select=name" },
        { method: 'GET', url: 'project?$select=id' },
      ],
      USERS.alice,
    )) as ReadResponse[];
    expect(one.status).to.equal(200);
    expect(one.body).to.include({ id: 'prj-apollo', name: 'Apollo Website Relaunch' });
    expect(list.body.value.map((p: any) => p.id).sort()).to.deep.equal(['prj-apollo', 'prj-mercury']);
  });

  it('rolls a changeset back whole when one of its requests fails', async () => {
    // A failed changeset is answered by the failing request's response alone.
    const [failed] = (await send([
      {
        changeset: [
          { method: 'POST', url: 'account', body: { name: 'Batch One' }, contentId: '1' },
          { method: 'POST', url: 'account', body: { name: 'Acme Corporation' }, contentId: '2' },
        ],
      },
    ])) as ReadResponse[];
    expect(failed.status).to.equal(409);
    expect(failed.contentId).to.equal('2');
    expect(failed.body.error.code).to.equal('CONFLICT');
    expect(ok(await query(server(), '/account', { $filter: "name eq 'Batch One'" })).value).to.deep.equal([]);
  });

  it('commits a changeset that succeeds', async () => {
    const [cs] = (await send([
      {
        changeset: [
          { method: 'POST', url: 'account', body: { name: 'Batch Two' }, contentId: '1' },
          { method: 'PATCH', url: '$1', body: { industry: 'retail' }, contentId: '2' },
        ],
      },
    ])) as Array<{ changeset: ReadResponse[] }>;
    expect(cs.changeset.map((r) => r.status)).to.deep.equal([201, 200]);
    expect(ok(await query(server(), '/account', { $filter: "name eq 'Batch Two'" })).value[0].industry).to.equal('retail');
  });

  it('takes the JSON batch format', async () => {
    const res = await od(server(), 'POST', '/$batch', { requests: [{ id: 'r1', method: 'GET', url: 'account/$count' }] });
    const body = ok(res);
    expect(body.responses[0]).to.deep.include({ id: 'r1', status: 200 });
  });

  it('refuses a body above the size limit and a GET on $batch', async () => {
    const big = `--b\r\n${'x'.repeat(1_100_000)}\r\n--b--\r\n`;
    expectODataError(
      await od(server(), 'POST', '/$batch', big, USERS.carol, { 'content-type': 'multipart/mixed; boundary=b' }),
      400,
      'INVALID_REQUEST',
      'limit',
    );
    const get = await od(server(), 'GET', '/$batch');
    expectODataError(get, 400, 'INVALID_REQUEST', 'POST');
    expect(get.headers.get('allow')).to.equal('POST, HEAD');
  });
});
