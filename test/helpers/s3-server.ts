/**
 * A local S3-compatible server (s3rver) on an ephemeral port, its objects in a temp folder, with
 * one bucket made. Its fixed credentials are S3RVER/S3RVER.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

// The SDK warns once per process on Node 20 that its 2027 releases will need Node 22: noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export interface TestS3Storage {
  type: 's3';
  bucket: string;
  endpoint: string;
  region: string;
  forcePathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
  prefix?: string;
}

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** The storage options of the files plugin for this bucket, under `prefix`. */
  storage(prefix?: string): TestS3Storage;
  /** Every object key in the bucket (s3rver keeps each as `<key>._S3rver_object`). */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startS3(bucket = 'objectql-test'): Promise<TestS3> {
  const dir = await mkdtemp(join(tmpdir(), 'oql-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    storage: (prefix?: string): TestS3Storage => ({
      type: 's3',
      bucket,
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      ...(prefix !== undefined ? { prefix } : {}),
    }),
    async keys() {
      const files = await readdir(join(dir, bucket), { recursive: true });
      const suffix = '._S3rver_object';
      return files.filter((f) => f.endsWith(suffix)).map((f) => f.slice(0, -suffix.length).split('\\').join('/'));
    },
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
