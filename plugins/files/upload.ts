/**
 * Multipart uploads, streamed: busboy hands each file part over as a stream, its first bytes are
 * peeked to sniff the content type, and the rest flows straight into the storage backend. Parts
 * `object`, `field` and `folder` must come before the file parts (their validation rules are
 * needed before the content is stored).
 */
import type { Request } from 'express';
import busboy from 'busboy';
import { PassThrough, type Readable } from 'node:stream';
import { ObjectQLError, type FieldDefinition } from '../../kernel';
import { fileExtension, IMAGE_DEFAULT_ACCEPT, isAccepted } from '../../kernel/protocol';
import type { FileStorage, StoredFile } from './storage/types';
import { extensionsCompatible, mimeForExtension, sniffMime } from './sniff';
import { withImageInput } from './image-input';
import { imageSize } from './images';

export const SNIFF_BYTES = 4100;

/** What an upload is checked against: a field's rules, or only the plugin's default size. */
export interface UploadRules {
  field?: FieldDefinition;
  maxBytes: number;
}

export interface UploadedFile {
  stored: StoredFile;
  name: string;
  type: string;
  width?: number;
  height?: number;
}

export interface UploadForm {
  object?: string;
  field?: string;
  folder?: string;
  files: UploadedFile[];
}

interface Handlers {
  /** Called once the parts before the first file are known: the rules its files are checked against. */
  rules(form: Omit<UploadForm, 'files'>): Promise<UploadRules>;
  storage: FileStorage;
  userId?: string;
}

/**
 * Parses the multipart body; `partName` is the name of the file part ('file' or 'files'). On any
 * failure every file already stored by this request is deleted before the error is thrown.
 */
export async function receiveUpload(req: Request, partName: string, maxFiles: number, handlers: Handlers): Promise<UploadForm> {
  if (!req.is('multipart/form-data'))
    throw new ObjectQLError('INVALID_REQUEST', `Content-Type must be multipart/form-data, got '${req.get('content-type') ?? 'none'}'`);
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: { files: maxFiles, fields: 10, fieldSize: 1024, parts: maxFiles + 10 },
    });
  } catch (err) {
    throw new ObjectQLError('INVALID_REQUEST', `Malformed multipart request: ${(err as Error).message}`);
  }
  const form: UploadForm = { files: [] };
  const stored: StoredFile[] = [];
  let rules: Promise<UploadRules> | undefined;
  let failure: Error | undefined;
  let chain: Promise<void> = Promise.resolve();
  let fileCount = 0;
  const fail = (err: unknown) => {
    failure ??= err instanceof Error ? err : new Error(String(err));
  };

  bb.on('field', (name, value) => {
    if (name !== 'object' && name !== 'field' && name !== 'folder') return;
    if (rules) return fail(new ObjectQLError('INVALID_REQUEST', `Part '${name}' must come before the file parts`));
    form[name] = value;
  });
  bb.on('file', (name, stream, info) => {
    if (name !== partName || failure) {
      if (name !== partName) fail(new ObjectQLError('INVALID_REQUEST', `Unexpected file part '${name}' (expected '${partName}')`));
      stream.resume();
      return;
    }
    fileCount++;
    const fileRules = (rules ??= handlers.rules({ object: form.object, field: form.field, folder: form.folder }));
    fileRules.catch(() => undefined);
    // Files are handled one after the other; a later one waits (busboy's backpressure holds the socket).
    chain = chain.then(async () => {
      try {
        if (failure) throw failure;
        const r = await fileRules;
        const file = await receiveFile(stream, info.filename ?? '', r, handlers, form.folder, stored);
        form.files.push(file);
      } catch (err) {
        fail(err);
      } finally {
        stream.resume();
      }
    });
  });
  bb.on('filesLimit', () =>
    fail(new ObjectQLError('FILE_VALIDATION_ERROR', `At most ${maxFiles} file(s) per request`, { file: null, reason: 'too_many_files' })),
  );
  bb.on('fieldsLimit', () => fail(new ObjectQLError('INVALID_REQUEST', 'Too many form fields')));
  bb.on('partsLimit', () => fail(new ObjectQLError('INVALID_REQUEST', 'Too many form parts')));

  await new Promise<void>((resolve) => {
    bb.once('close', resolve);
    bb.once('error', (err) => {
      fail(new ObjectQLError('INVALID_REQUEST', `Malformed multipart request: ${(err as Error).message}`));
      resolve();
    });
    req.once('error', (err) => {
      fail(err);
      resolve();
    });
    req.pipe(bb);
  });
  await chain;
  if (!failure && fileCount === 0) failure = new ObjectQLError('INVALID_REQUEST', `Part '${partName}' (a file) is required`);
  if (failure) {
    req.unpipe(bb);
    req.resume();
    await Promise.all(stored.map((s) => handlers.storage.delete(s.id).catch(() => false)));
    throw failure;
  }
  return form;
}

async function receiveFile(
  stream: Readable,
  filename: string,
  rules: UploadRules,
  handlers: Handlers,
  folder: string | undefined,
  stored: StoredFile[],
): Promise<UploadedFile> {
  const name = safeName(filename);
  const field = rules.field;
  const ext = fileExtension(name);
  const accept = field?.accept?.length ? field.accept : field?.type === 'image' ? IMAGE_DEFAULT_ACCEPT : undefined;
  const notAllowed = () =>
    new ObjectQLError(
      'FILE_TYPE_NOT_ALLOWED',
      `File '${name}': type '${ext || '(no extension)'}' is not allowed; accepted: ${accept!.join(', ')}`,
      { file: name, extension: ext, accept },
    );
  // With extensions only, the name decides before a byte is stored; MIME entries wait for the sniff.
  if (accept && !accept.some((a) => a.includes('/')) && !isAccepted(accept, name, '')) throw notAllowed();
  let total = 0;
  stream.on('data', (chunk: Buffer) => {
    total += chunk.length;
  });
  const head = await readHead(stream, SNIFF_BYTES);
  const headBytes = Buffer.concat(head.chunks);
  const sniffed = sniffMime(headBytes);
  if (headBytes.length > 0 && ext && !extensionsCompatible(ext, sniffed)) {
    throw new ObjectQLError(
      'FILE_TYPE_NOT_ALLOWED',
      `File '${name}': content (${sniffed ?? 'unrecognised'}) does not match its extension '${ext}'`,
      { file: name, extension: ext, type: sniffed },
    );
  }
  const claimed = ext ? mimeForExtension(ext) : undefined;
  const type = (sniffed === 'text/plain' ? claimed : undefined) ?? sniffed ?? claimed ?? 'application/octet-stream';
  if (accept && !isAccepted(accept, name, type)) throw notAllowed();
  if (field?.type === 'image' && !type.startsWith('image/')) {
    throw new ObjectQLError('FILE_TYPE_NOT_ALLOWED', `File '${name}' is not an image`, { file: name, type });
  }
  const maxBytes = field?.max_size ?? rules.maxBytes;
  const body = new PassThrough();
  for (const c of head.chunks) body.write(c);
  if (head.ended) body.end();
  else stream.pipe(body);
  let result: StoredFile;
  try {
    result = await handlers.storage.put(body, { filename: name, mimeType: type, folder, userId: handlers.userId }, { maxBytes });
  } catch (err) {
    if ((err as { code?: unknown })?.code === 'FILE_TOO_LARGE') {
      stream.unpipe(body);
      await drain(stream);
      throw tooLarge(name, total, maxBytes);
    }
    throw storageFailure(err, name);
  }
  stored.push(result);
  if (result.size > maxBytes) throw tooLarge(name, result.size, maxBytes);
  if (field?.min_size !== undefined && result.size < field.min_size) {
    throw new ObjectQLError('FILE_TOO_SMALL', `File '${name}' is ${result.size} bytes, below the minimum of ${field.min_size}`, {
      file: name,
      size: result.size,
      min_size: field.min_size,
    });
  }
  const file: UploadedFile = { stored: result, name, type };
  if (type.startsWith('image/')) {
    const size = await withImageInput(handlers.storage, result.id, result.size, imageSize).catch(() => undefined);
    if (size) {
      file.width = size.width;
      file.height = size.height;
    }
    if (field?.type === 'image') {
      if (!size)
        throw new ObjectQLError('FILE_VALIDATION_ERROR', `File '${name}' is not a readable image`, {
          file: name,
          reason: 'unreadable_image',
        });
      const problems: string[] = [];
      if (field.max_width !== undefined && size.width > field.max_width)
        problems.push(`width ${size.width} > max_width ${field.max_width}`);
      if (field.min_width !== undefined && size.width < field.min_width)
        problems.push(`width ${size.width} < min_width ${field.min_width}`);
      if (field.max_height !== undefined && size.height > field.max_height)
        problems.push(`height ${size.height} > max_height ${field.max_height}`);
      if (field.min_height !== undefined && size.height < field.min_height)
        problems.push(`height ${size.height} < min_height ${field.min_height}`);
      if (problems.length) {
        throw new ObjectQLError('IMAGE_DIMENSIONS_INVALID', `Image '${name}' is ${size.width}x${size.height}: ${problems.join(', ')}`, {
          file: name,
          width: size.width,
          height: size.height,
          min_width: field.min_width,
          max_width: field.max_width,
          min_height: field.min_height,
          max_height: field.max_height,
        });
      }
    }
  }
  return file;
}

/** A full disk or a backend's quota is STORAGE_QUOTA_EXCEEDED (507); anything else UPLOAD_FAILED, the cause kept for the log. */
function storageFailure(err: unknown, name: string): ObjectQLError {
  const code = (err as { code?: unknown })?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'STORAGE_QUOTA_EXCEEDED') {
    return new ObjectQLError('STORAGE_QUOTA_EXCEEDED', `File '${name}' could not be stored: the storage is full`, { file: name });
  }
  return Object.assign(new ObjectQLError('UPLOAD_FAILED', `File '${name}' could not be stored`, { file: name }), { cause: err });
}

function tooLarge(name: string, size: number, maxBytes: number): ObjectQLError {
  return new ObjectQLError('FILE_TOO_LARGE', `File '${name}' is ${size} bytes, above the maximum of ${maxBytes}`, {
    file: name,
    size,
    max_size: maxBytes,
  });
}

function readHead(stream: Readable, bytes: number): Promise<{ chunks: Buffer[]; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const done = (ended: boolean) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      if (!ended) stream.pause();
      resolve({ chunks, ended });
    };
    const onData = (c: Buffer) => {
      chunks.push(c);
      length += c.length;
      if (length >= bytes) done(false);
    };
    const onEnd = () => done(true);
    const onError = (err: Error) => reject(err);
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}

function drain(stream: Readable): Promise<void> {
  if (stream.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
    stream.resume();
  });
}

/** The client's file name without any directory part or control characters. */
export function safeName(filename: string | undefined): string {
  const base =
    String(filename ?? '')
      .split(/[\\/]/)
      .pop() ?? '';
  const clean = base
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is stripped
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 255);
  return clean && clean !== '.' && clean !== '..' ? clean : 'file';
}
