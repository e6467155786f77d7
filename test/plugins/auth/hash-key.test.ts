/**
 * `objectql hash-key`: prints the keyHash of an API key (from the argument or stdin), and that
 * hash configured as apiKeys[].keyHash admits the key.
 */
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { main } from '../../../bin/cli';
import { ids, list, startAuthServer } from './helpers';

/** Runs the command line in this process with `stdin` as its input; returns code and output. */
async function cli(args: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const write = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  const input = Object.getOwnPropertyDescriptor(process, 'stdin')!;
  process.stdout.write = (chunk: string) => ((out += chunk), true);
  process.stderr.write = (chunk: string) => ((err += chunk), true);
  if (stdin !== undefined) Object.defineProperty(process, 'stdin', { value: Readable.from([Buffer.from(stdin)]), configurable: true });
  try {
    return { code: await main(args), out, err };
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
    Object.defineProperty(process, 'stdin', input);
  }
}

describe('auth: objectql hash-key', () => {
  it('prints sha256:<hex> of the key given as an argument or on stdin', async () => {
    const expected = 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'; // SHA-256 of "abc"
    expect(await cli(['hash-key', 'abc'])).to.deep.equal({ code: 0, out: `${expected}\n`, err: '' });
    expect(await cli(['hash-key'], 'abc\n')).to.deep.equal({ code: 0, out: `${expected}\n`, err: '' });
  });

  it('refuses more than one key, and an empty one', async () => {
    expect((await cli(['hash-key', 'a', 'b'])).code).to.equal(2);
    const empty = await cli(['hash-key'], '\n');
    expect(empty.code).to.equal(2);
    expect(empty.err).to.include('the key is empty');
  });

  it('prints a hash that admits its key when configured as keyHash', async () => {
    const key = 'generated-key-0123456789abcdef';
    const { out } = await cli(['hash-key', key]);
    const s = await startAuthServer({ apiKeys: [{ keyHash: out.trim(), user: { id: 'alice', roles: ['member'] } }] });
    try {
      expect(ids(await list(s, 'project', { 'x-api-key': key }))).to.deep.equal(['prj-apollo', 'prj-mercury']);
    } finally {
      await s.stop();
    }
  });
});
