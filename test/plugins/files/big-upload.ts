/**
 * Helpers of the streaming test: a deterministic content generator, a hand-written multipart
 * upload sent chunk by chunk, downloads hashed while read, and the child's memory from /proc.
 * Nothing here holds a whole file in memory.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export const MiB = 1024 * 1024;
/** Size of the generator's chunks (and of each write to the socket). */
export const CHUNK = 256 * 1024;

/**
 * A deterministic stream of `total` bytes: chunk i is a fixed pseudo-random block (xorshift32 from
 * a fixed seed) with i written into its first 8 bytes, cut short for the last chunk. Chunk 0 thus
 * starts with NUL bytes: unrecognised binary content, stored as application/octet-stream.
 */
export function contentGenerator(total: number) {
  const block = Buffer.allocUnsafe(CHUNK);
  let x = 0x2545f491;
  for (let i = 0; i < CHUNK; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    block.writeUInt32LE(x >>> 0, i);
  }
  const count = Math.ceil(total / CHUNK);
  const chunkAt = (i: number): Buffer => {
    const length = Math.min(CHUNK, total - i * CHUNK);
    const out = Buffer.allocUnsafe(length);
    block.copy(out, 0, 0, length);
    out.writeBigUInt64LE(BigInt(i), 0);
    return out;
  };
  /** Bytes [start, total) of the content, regenerated from the chunks that hold them. */
  const tail = (start: number): Buffer => {
    const first = Math.floor(start / CHUNK);
    const parts: Buffer[] = [];
    for (let i = first; i < count; i++) parts.push(chunkAt(i));
    return Buffer.concat(parts).subarray(start - first * CHUNK);
  };
  return {
    count,
    chunkAt,
    tail,
    *chunks(): Generator<Buffer> {
      for (let i = 0; i < count; i++) yield chunkAt(i);
    },
  };
}

export interface Sent {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
  /** Content bytes written before the response came (all of them unless the server answered early). */
  sent: number;
  sha256: string;
}

/**
 * POSTs a multipart body to `url`: the text parts, then one file part named `file` whose content
 * comes from `chunks` — written one chunk at a time, waiting for 'drain', hashed on the way. The
 * Content-Length is computed up front, as a browser or curl would send it.
 */
export async function postMultipart(
  url: string,
  headers: Record<string, string>,
  fields: Record<string, string>,
  fileName: string,
  size: number,
  chunks: Iterable<Buffer>,
): Promise<Sent> {
  const boundary = `----objectql-streaming-${randomBytes(16).toString('hex')}`;
  let head = '';
  for (const [name, value] of Object.entries(fields))
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const prefix = Buffer.from(head, 'utf8');
  const suffix = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  const target = new URL(url);
  const req = httpRequest({
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    method: 'POST',
    agent: false,
    headers: {
      ...headers,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(prefix.length + size + suffix.length),
    },
  });
  let answered = false;
  const response = new Promise<{ status: number; headers: IncomingHttpHeaders; body: any }>((done, fail) => {
    req.once('error', fail);
    req.once('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.once('error', fail);
      res.once('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* not JSON: kept as text for the failure message */
        }
        done({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
  });
  const settled = response.then(
    () => undefined,
    () => undefined,
  );
  const write = async (buf: Buffer): Promise<void> => {
    if (req.write(buf)) return;
    await Promise.race([new Promise<void>((done) => req.once('drain', done)), settled]);
  };
  const hash = createHash('sha256');
  let sent = 0;
  await write(prefix);
  for (const chunk of chunks) {
    if (answered || req.destroyed) break;
    hash.update(chunk);
    sent += chunk.length;
    await write(chunk);
  }
  if (!answered && !req.destroyed) req.end(suffix);
  const res = await response;
  if (!req.writableEnded) req.destroy(); // answered before the whole body was sent: stop sending
  return { ...res, sent, sha256: hash.digest('hex') };
}

export interface Fetched {
  status: number;
  headers: IncomingHttpHeaders;
  bytes: number;
  sha256: string;
  /** The body itself, only when asked for (small responses). */
  body?: Buffer;
}

/** GETs `url`, hashing and counting the body as it arrives; keeps it only when `keep` is set. */
export function getStreamed(url: string, headers: Record<string, string>, keep = false): Promise<Fetched> {
  const target = new URL(url);
  return new Promise((done, fail) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: 'GET', agent: false, headers },
      (res) => {
        const hash = createHash('sha256');
        const kept: Buffer[] = [];
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          hash.update(c);
          bytes += c.length;
          if (keep) kept.push(c);
        });
        res.once('error', fail);
        res.once('end', () =>
          done({
            status: res.statusCode ?? 0,
            headers: res.headers,
            bytes,
            sha256: hash.digest('hex'),
            ...(keep ? { body: Buffer.concat(kept) } : {}),
          }),
        );
      },
    );
    req.once('error', fail);
    req.end();
  });
}

export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: MiB })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Every entry under `dir` (files and folders, hidden ones included), as sorted relative paths. */
export async function listTree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

export { freePort } from '../../helpers/free-port';

/** A field of /proc/<pid>/status in bytes (VmHWM: peak resident set; VmRSS: current). */
export function procMemory(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!m) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(m[1]) * 1024;
}

/** Why the test cannot run here, or undefined when /proc gives a process's peak resident memory. */
export function procUnavailable(): string | undefined {
  if (!existsSync('/proc/self/status'))
    return '/proc is not available (the peak resident memory of the server is read from /proc/<pid>/status)';
  try {
    procMemory(process.pid, 'VmHWM');
    return undefined;
  } catch (err) {
    return `/proc/self/status gives no VmHWM (${(err as Error).message})`;
  }
}

export const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
