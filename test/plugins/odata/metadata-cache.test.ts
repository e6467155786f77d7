/**
 * The $metadata cache: a document is built once per view and reused while the registry's revision
 * stays; a run-time metadata change (a label through the metadata API's PUT) moves the revision and
 * the next request gets a rebuilt document.
 */
import { expect } from 'chai';
import { ODataService } from '../../../plugins/odata';
import { parseOptions } from '../../../plugins/odata/options';
import { USERS, type TestServer } from '../../helpers/server';
import { startODataServer } from './helpers';

describe('OData $metadata cache', () => {
  let s: TestServer;
  before(async () => {
    s = await startODataServer({}, { plugins: { 'metadata-api': true } });
  });
  after(() => s.stop());

  it('reuses a document while the revision stays, and rebuilds it once after a label change', async () => {
    const { metadata } = new ODataService(s.kernel, parseOptions({}));
    const first = metadata.get(USERS.carol);
    expect(metadata.get(USERS.carol)).to.equal(first);
    expect(metadata.buildCount).to.equal(1);

    const put = await s.request(
      'PUT',
      '/api/metadata/object/milestone',
      { label: 'Checkpoint' },
      {
        'x-test-user': JSON.stringify(USERS.admin),
      },
    );
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    try {
      const rebuilt = metadata.get(USERS.carol);
      expect(rebuilt.etag).not.to.equal(first.etag);
      expect(rebuilt.xml).to.include('Checkpoint');
      expect(metadata.get(USERS.carol)).to.equal(rebuilt);
      expect(metadata.buildCount).to.equal(2);
    } finally {
      s.kernel.registry.setObjectInfo('milestone', { label: 'Milestone' });
    }
  });
});
