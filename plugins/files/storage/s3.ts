/**
 * Files in an S3-compatible bucket (AWS S3, MinIO, ...). An id maps to the key
 * `<prefix><id>`, or `<prefix><folder>/<id>` when the id carries a folder, as on the local disk.
 * Uploads are streamed with a multipart upload (at most PART_SIZE × QUEUE_SIZE bytes held at a
 * time); one over the limit is aborted and its key deleted. The SDK is loaded when the plugin
 * starts with this backend (`load`), so a service without it never pays for it. Credentials: the explicit keys when given,
 * else the SDK's standard chain (AWS_* environment variables, shared config, instance role).
 */
import { PassThrough, Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { ObjectQLError } from '../../../kernel';
import { clampRange, folderOfId, isValidFileId, joinUrl, newFileId, pumpLimited, type FileStorage, type StoredFile } from './types';

export interface S3StorageOptions {
  bucket: string;
  region?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  prefix?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  baseUrl: string;
}

const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

type Sdk = typeof import('@aws-sdk/client-s3');

export class S3Storage implements FileStorage {
  readonly baseUrl: string;
  private readonly prefix: string;
  private loaded?: Promise<{ sdk: Sdk; client: S3Client }>;

  constructor(private readonly opts: S3StorageOptions) {
    this.baseUrl = opts.baseUrl;
    const trimmed = (opts.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.prefix = trimmed ? `${trimmed}/` : '';
  }

  /** The object key of an id, or null when the id is invalid. */
  keyOf(id: string): string | null {
    if (!isValidFileId(id)) return null;
    const folder = folderOfId(id);
    return `${this.prefix}${folder ? `${folder}/` : ''}${id}`;
  }

  async put(
    content: NodeJS.ReadableStream,
    info: { filename: string; mimeType: string; folder?: string; userId?: string },
    limits: { maxBytes: number },
  ): Promise<StoredFile> {
    const { client } = await this.s3();
    const { Upload } = await import('@aws-sdk/lib-storage');
    const id = newFileId(info.filename, info.folder);
    const key = this.keyOf(id)!;
    const body = new PassThrough();
    const upload = new Upload({
      client,
      params: { Bucket: this.opts.bucket, Key: key, Body: body, ContentType: info.mimeType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
    });
    const done = upload.done();
    // A failed upload stops reading: a write waiting for 'drain' must not wait forever.
    const failed = done.then(
      () => new Promise<never>(() => undefined),
      (err: unknown) => Promise.reject(storageError(err)),
    );
    failed.catch(() => undefined);
    try {
      const size = await pumpLimited(content, limits.maxBytes, (chunk) => Promise.race([write(body, chunk), failed]));
      body.end();
      await done.catch((err: unknown) => Promise.reject(storageError(err)));
      return { id, size };
    } catch (err) {
      body.destroy();
      await upload.abort().catch(() => undefined);
      await done.catch(() => undefined);
      await this.deleteKey(key).catch(() => undefined);
      throw err;
    }
  }

  async open(id: string, range?: { start: number; end: number }): Promise<NodeJS.ReadableStream | null> {
    const key = this.keyOf(id);
    if (!key) return null;
    const { sdk, client } = await this.s3();
    if (range) {
      const r = clampRange(range, Number.MAX_SAFE_INTEGER);
      if (!r) return Readable.from([]);
      range = r;
    }
    try {
      const out = await client.send(
        new sdk.GetObjectCommand({ Bucket: this.opts.bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      return (out.Body as Readable | undefined) ?? Readable.from([]);
    } catch (err) {
      if (isNotFound(err)) return null;
      // A range starting past the end selects nothing, as on the other backends.
      if (statusOf(err) === 416) return Readable.from([]);
      throw storageError(err);
    }
  }

  async stat(id: string): Promise<{ size: number; mtime: Date } | null> {
    const key = this.keyOf(id);
    if (!key) return null;
    const { sdk, client } = await this.s3();
    try {
      const out = await client.send(new sdk.HeadObjectCommand({ Bucket: this.opts.bucket, Key: key }));
      return { size: out.ContentLength ?? 0, mtime: out.LastModified ?? new Date(0) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw storageError(err);
    }
  }

  /** S3 deletes an absent key without complaint: a HEAD first tells whether there was anything. */
  async delete(id: string): Promise<boolean> {
    const key = this.keyOf(id);
    if (!key || !(await this.stat(id))) return false;
    await this.deleteKey(key);
    return true;
  }

  getPublicUrl(id: string): string {
    return joinUrl(this.baseUrl, id);
  }

  /** Loads the SDK and makes the client; connects to nothing. */
  async load(): Promise<void> {
    await this.s3();
  }

  /** The bucket answers a HeadBucket: it exists and these credentials reach it. */
  async ping(): Promise<void> {
    const { sdk, client } = await this.s3();
    try {
      await client.send(new sdk.HeadBucketCommand({ Bucket: this.opts.bucket }));
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
      const why = status ? `HTTP ${status}` : ((err as { code?: string; name?: string } | null)?.code ?? (err as Error).name);
      throw new Error(`bucket '${this.opts.bucket}' did not answer (${why})`, { cause: err });
    }
  }

  async close(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = undefined;
    if (loaded) (await loaded.catch(() => undefined))?.client.destroy();
  }

  private async deleteKey(key: string): Promise<void> {
    const { sdk, client } = await this.s3();
    try {
      await client.send(new sdk.DeleteObjectCommand({ Bucket: this.opts.bucket, Key: key }));
    } catch (err) {
      throw storageError(err);
    }
  }

  private s3(): Promise<{ sdk: Sdk; client: S3Client }> {
    this.loaded ??= import('@aws-sdk/client-s3').then((sdk) => {
      const o = this.opts;
      const client = new sdk.S3Client({
        ...(o.region !== undefined ? { region: o.region } : {}),
        ...(o.endpoint !== undefined ? { endpoint: o.endpoint } : {}),
        ...(o.forcePathStyle !== undefined ? { forcePathStyle: o.forcePathStyle } : {}),
        ...(o.accessKeyId !== undefined && o.secretAccessKey !== undefined
          ? { credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey } }
          : {}),
      });
      return { sdk, client };
    });
    return this.loaded;
  }
}

function write(out: PassThrough, chunk: Buffer): Promise<void> {
  return out.write(chunk) ? Promise.resolve() : new Promise((resolve) => out.once('drain', resolve));
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function isNotFound(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  return name === 'NoSuchKey' || name === 'NotFound' || statusOf(err) === 404;
}

/** Errors of the store as the spec's: never the SDK's message (it may name the bucket or key). */
function storageError(err: unknown): ObjectQLError {
  if (err instanceof ObjectQLError) return err;
  const code = (err as { name?: string } | null)?.name ?? 'unknown';
  return new ObjectQLError('SERVICE_UNAVAILABLE', `File storage failed (${code})`, { storage: 's3' });
}
