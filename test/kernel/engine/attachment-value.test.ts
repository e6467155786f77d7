import { expect } from 'chai';
import type { FieldDefinition } from '../../../kernel/metadata/types';
import { normalizeFieldValue } from '../../../kernel/engine/field-values';
import { fileExtension, isAccepted } from '../../../kernel/engine/attachment-value';

const fileField = (extra: Partial<FieldDefinition> = {}): FieldDefinition => ({ name: 'doc', type: 'file', label: 'Doc', ...extra });
const imageField = (extra: Partial<FieldDefinition> = {}): FieldDefinition => ({ name: 'pic', type: 'image', label: 'Pic', ...extra });

const pdf = { name: 'report.pdf', url: '/api/files/f1', size: 2048, type: 'application/pdf' };
const png = { name: 'Photo.PNG', url: 'https://cdn.example.com/p.png', size: 5000, type: 'image/png', width: 800, height: 600 };

function errorOf(field: FieldDefinition, value: unknown): string | undefined {
  const r = normalizeFieldValue(field, value);
  return 'error' in r ? r.error : undefined;
}

describe('kernel/engine/attachment-value', () => {
  it('accepts a full file attachment and returns a copy', () => {
    const full = { ...pdf, id: 'f1', original_name: 'Report (final).pdf', uploaded_at: '2024-01-02T03:04:05.000Z', uploaded_by: 'u1' };
    const r = normalizeFieldValue(fileField(), full);
    expect(r).to.deep.equal({ value: full });
    expect((r as { value: unknown }).value).to.not.equal(full);
  });

  it('needs name, url, size and type', () => {
    expect(errorOf(fileField(), 'report.pdf')).to.equal('must be an attachment object {name, url, size, type}');
    expect(errorOf(fileField(), [pdf])).to.equal('must be an attachment object {name, url, size, type}');
    expect(errorOf(fileField(), { ...pdf, name: '' })).to.equal('name is required (a non-empty string)');
    expect(errorOf(fileField(), { ...pdf, url: undefined })).to.equal('url is required (a non-empty string)');
    expect(errorOf(fileField(), { ...pdf, size: -1 })).to.equal('size is required (a non-negative number of bytes)');
    expect(errorOf(fileField(), { ...pdf, size: '10' })).to.equal('size is required (a non-negative number of bytes)');
    expect(errorOf(fileField(), { ...pdf, type: 'pdf' })).to.equal('type is required (a MIME type such as image/png)');
  });

  it('checks optional keys and rejects unknown ones', () => {
    expect(errorOf(fileField(), { ...pdf, owner: 'x' })).to.equal('has unknown key: owner');
    expect(errorOf(fileField(), { ...pdf, width: 10 })).to.equal('has unknown key: width');
    expect(errorOf(fileField(), { ...pdf, id: 5 })).to.equal('id must be a string');
    expect(errorOf(fileField(), { ...pdf, uploaded_at: 'soon' })).to.equal('uploaded_at must be an ISO 8601 timestamp');
  });

  it('file: accept (case-insensitive, with or without the dot), max_size, min_size', () => {
    expect(errorOf(fileField({ accept: ['.PDF', 'docx'] }), pdf)).to.equal(undefined);
    expect(errorOf(fileField({ accept: ['.docx', '.txt'] }), pdf)).to.equal('file type .pdf is not allowed (allowed: .docx, .txt)');
    expect(errorOf(fileField({ accept: ['.txt'] }), { ...pdf, name: 'README' })).to.equal(
      'file type without an extension is not allowed (allowed: .txt)',
    );
    expect(errorOf(fileField({ accept: ['application/*'] }), pdf)).to.equal(undefined);
    expect(errorOf(fileField({ max_size: 1024 }), pdf)).to.equal('file size must be at most 1024 bytes');
    expect(errorOf(fileField({ min_size: 4096 }), pdf)).to.equal('file size must be at least 4096 bytes');
    expect(errorOf(fileField({ min_size: 2048, max_size: 2048 }), pdf)).to.equal(undefined);
  });

  it('image: default accept list, extra keys, dimension bounds', () => {
    const withExtras = { ...png, thumbnail_url: '/t/p.png', variants: { small: '/s.png', large: '/l.png' } };
    expect(normalizeFieldValue(imageField(), withExtras)).to.deep.equal({ value: withExtras });
    expect(errorOf(imageField(), { ...png, name: 'scan.tiff', type: 'image/tiff' })).to.equal(
      'file type .tiff is not allowed (allowed: .jpg, .jpeg, .png, .gif, .webp)',
    );
    expect(errorOf(imageField({ accept: ['.tiff'] }), { ...png, name: 'scan.tiff' })).to.equal(undefined);
    expect(errorOf(imageField(), { ...png, variants: { huge: '/h.png' } })).to.equal('variants has unknown key: huge');
    expect(errorOf(imageField(), { ...png, variants: 'x' })).to.equal('variants must be an object with small, medium, large URLs');
    expect(errorOf(imageField(), { ...png, width: -5 })).to.equal('width must be a non-negative number');
    expect(errorOf(imageField({ max_width: 640 }), png)).to.equal('image width must be at most 640 px');
    expect(errorOf(imageField({ min_height: 1000 }), png)).to.equal('image height must be at least 1000 px');
    expect(errorOf(imageField({ max_width: 800, max_height: 600, min_width: 800 }), png)).to.equal(undefined);
    const { width: _w, height: _h, ...noDims } = png;
    expect(errorOf(imageField({ max_width: 10, min_height: 5000 }), noDims)).to.equal(undefined);
  });

  it('multiple: an array of attachments, each checked', () => {
    const field = fileField({ multiple: true, max_size: 3000 });
    expect(normalizeFieldValue(field, [pdf, { ...pdf, name: 'b.pdf' }])).to.deep.equal({ value: [pdf, { ...pdf, name: 'b.pdf' }] });
    expect(errorOf(field, pdf)).to.equal('must be an array (the field allows multiple values)');
    expect(errorOf(field, [pdf, { ...pdf, size: 9999 }])).to.equal('item 2: file size must be at most 3000 bytes');
  });

  it('helpers: fileExtension and isAccepted', () => {
    expect(fileExtension('a/b/Archive.TAR.GZ')).to.equal('.gz');
    expect(fileExtension('.bashrc')).to.equal('');
    expect(isAccepted(['image/png'], 'x.bin', 'image/png; q=1')).to.equal(true);
    expect(isAccepted(['image/*'], 'x.bin', 'text/plain')).to.equal(false);
  });
});
