import { expect } from 'chai';
import { isBlockedAddress, resolveTarget, type LookupAll } from '../../../../plugins/events/actions/ssrf';

const fixed =
  (answers: Record<string, string[]>): LookupAll =>
  (host) => {
    const list = answers[host];
    if (!list) return Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
    return Promise.resolve(list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };

describe('events: webhook SSRF guard', () => {
  const refused = [
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '169.254.169.254', // cloud metadata
    '169.254.0.1',
    '100.64.0.1',
    '100.127.255.254',
    '0.0.0.0',
    '0.1.2.3',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '::',
    '::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a00:1',
  ];
  for (const address of refused) {
    it(`refuses ${address}`, () => expect(isBlockedAddress(address)).to.equal(true));
  }
  const allowed = [
    '93.184.215.14',
    '8.8.8.8',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '2606:4700::1111',
    '11.0.0.1',
  ];
  for (const address of allowed) {
    it(`lets ${address} through`, () => expect(isBlockedAddress(address)).to.equal(false));
  }

  it('checks an IP literal in the URL without DNS', async () => {
    const never: LookupAll = () => Promise.reject(new Error('looked up'));
    await expectRejected(resolveTarget(new URL('http://127.0.0.1:8080/x'), [], never), /127\.0\.0\.1.*allowHosts/);
    await expectRejected(resolveTarget(new URL('http://[::1]/x'), [], never), /::1/);
    await expectRejected(resolveTarget(new URL('http://[::ffff:169.254.169.254]/'), [], never), /refused/);
    await expectRejected(resolveTarget(new URL('http://2130706433/'), [], never), /127\.0\.0\.1/); // decimal form of 127.0.0.1
    await expectRejected(resolveTarget(new URL('http://0x7f.1/'), [], never), /127\.0\.0\.1/);
    expect(await resolveTarget(new URL('https://93.184.215.14/'), [], never)).to.deep.equal({ address: '93.184.215.14', family: 4 });
  });

  it('refuses a name resolving to a private address, also when only one of its addresses is', async () => {
    const lookup = fixed({
      'internal.example': ['10.1.2.3'],
      'mixed.example': ['93.184.215.14', '192.168.0.5'],
      'public.example': ['93.184.215.14'],
    });
    await expectRejected(resolveTarget(new URL('https://internal.example/'), [], lookup), /'internal\.example' resolves to 10\.1\.2\.3/);
    await expectRejected(resolveTarget(new URL('https://mixed.example/'), [], lookup), /192\.168\.0\.5/);
    expect(await resolveTarget(new URL('https://public.example/'), [], lookup)).to.deep.equal({ address: '93.184.215.14', family: 4 });
    await expectRejected(resolveTarget(new URL('https://nowhere.example/'), [], lookup), /did not resolve: ENOTFOUND/);
  });

  it('refuses schemes other than http and https', async () => {
    await expectRejected(resolveTarget(new URL('ftp://93.184.215.14/'), []), /only http and https/);
    await expectRejected(resolveTarget(new URL('file:///etc/passwd'), []), /only http and https/);
  });

  it('allowHosts lets a host name or an address through', async () => {
    const lookup = fixed({ 'receiver.internal': ['10.1.2.3'], localhost: ['127.0.0.1', '::1'] });
    expect(await resolveTarget(new URL('http://127.0.0.1:9000/'), ['127.0.0.1'])).to.deep.equal({ address: '127.0.0.1', family: 4 });
    expect(await resolveTarget(new URL('http://[::1]:9000/'), ['[::1]'])).to.deep.equal({ address: '::1', family: 6 });
    expect(await resolveTarget(new URL('http://Receiver.Internal/'), ['receiver.internal'], lookup)).to.deep.equal({
      address: '10.1.2.3',
      family: 4,
    });
    expect(await resolveTarget(new URL('http://receiver.internal/'), ['10.1.2.3'], lookup)).to.deep.equal({
      address: '10.1.2.3',
      family: 4,
    });
    // localhost also has ::1: the address allowed covers only itself.
    await expectRejected(resolveTarget(new URL('http://localhost/'), ['127.0.0.1'], lookup), /::1/);
    await expectRejected(resolveTarget(new URL('http://127.0.0.2/'), ['127.0.0.1']), /127\.0\.0\.2/);
  });
});

async function expectRejected(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await promise;
  } catch (err) {
    expect((err as Error).message).to.match(pattern);
    return;
  }
  expect.fail(`expected a rejection matching ${String(pattern)}`);
}
