import { expect } from 'chai';
import sharp from 'sharp';
import { sniffMime, mimeForExtension, extensionsCompatible, EXTENSION_MIME } from '../../../../plugins/files/sniff';
import { imageSize, resizeImage, THUMBNAIL_SIZES } from '../../../../plugins/files/images';

const make = (format: 'png' | 'jpeg' | 'webp' | 'gif', width = 40, height = 20): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 10, b: 10 } } })
    .toFormat(format)
    .toBuffer();

describe('files: sniffMime', () => {
  it('recognises generated images, pdf, zip, svg and text', async () => {
    expect(sniffMime(await make('png'))).to.equal('image/png');
    expect(sniffMime(await make('jpeg'))).to.equal('image/jpeg');
    expect(sniffMime(await make('webp'))).to.equal('image/webp');
    expect(sniffMime(await make('gif'))).to.equal('image/gif');
    expect(sniffMime(Buffer.from('%PDF-1.4\n%\xE2\xE3\xCF\xD3\n1 0 obj\n', 'latin1'))).to.equal('application/pdf');
    expect(sniffMime(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]))).to.equal('application/zip');
    expect(sniffMime(Buffer.from('<?xml version="1.0"?>\n<!-- c --><svg xmlns="http://www.w3.org/2000/svg"></svg>'))).to.equal(
      'image/svg+xml',
    );
    expect(sniffMime(Buffer.from('name,age\nÅsa,3\n'))).to.equal('text/plain');
    expect(sniffMime(Buffer.from('<html><svg></svg></html>'))).to.equal('text/plain');
    expect(sniffMime(Buffer.from([0, 1, 2, 3, 0xff, 0xfe]))).to.equal(undefined);
    expect(sniffMime(Buffer.alloc(0))).to.equal(undefined);
  });
  it('maps extensions and checks they agree with the content', () => {
    expect(mimeForExtension('.PNG')).to.equal('image/png');
    expect(mimeForExtension('jpg')).to.equal('image/jpeg');
    expect(mimeForExtension('.nope')).to.equal(undefined);
    expect(EXTENSION_MIME['.pdf']).to.equal('application/pdf');
    expect(extensionsCompatible('.png', 'image/png')).to.equal(true);
    expect(extensionsCompatible('.png', 'application/pdf')).to.equal(false);
    expect(extensionsCompatible('.png', undefined)).to.equal(false);
    expect(extensionsCompatible('.jpeg', 'image/jpeg')).to.equal(true);
    expect(extensionsCompatible('.docx', 'application/zip')).to.equal(true);
    expect(extensionsCompatible('.txt', 'text/plain')).to.equal(true);
    expect(extensionsCompatible('.txt', 'image/png')).to.equal(false);
    expect(extensionsCompatible('.svg', 'image/svg+xml')).to.equal(true);
    expect(extensionsCompatible('.bin', 'image/png')).to.equal(true);
  });
});

describe('files: images', () => {
  it('documents thumbnail sizes', () => {
    expect(THUMBNAIL_SIZES).to.deep.equal({ small: 64, medium: 256, large: 1024 });
  });
  it('measures images and returns undefined for non-images', async () => {
    expect(await imageSize(await make('png', 40, 20))).to.deep.equal({ width: 40, height: 20, format: 'png' });
    expect(await imageSize(await make('jpeg', 7, 9))).to.deep.equal({ width: 7, height: 9, format: 'jpeg' });
    expect((await imageSize(await make('gif', 5, 6)))?.format).to.equal('gif');
    expect(await imageSize(Buffer.from('%PDF-1.4 not an image'))).to.equal(undefined);
    expect(await imageSize('/nonexistent/file.png')).to.equal(undefined);
  });
  it('fits inside the box, keeps the format and never enlarges', async () => {
    const png = await make('png', 400, 200);
    const r = await resizeImage(png, { width: 100, height: 100 });
    expect(r.contentType).to.equal('image/png');
    expect(await imageSize(r.data)).to.deep.equal({ width: 100, height: 50, format: 'png' });
    const w = await resizeImage(png, { height: 20 }, 'webp');
    expect(w.contentType).to.equal('image/webp');
    expect(await imageSize(w.data)).to.deep.equal({ width: 40, height: 20, format: 'webp' });
    const big = await resizeImage(png, { width: 4000, height: 4000 }, 'jpeg');
    expect(await imageSize(big.data)).to.deep.equal({ width: 400, height: 200, format: 'jpeg' });
    const gif = await resizeImage(await make('gif', 30, 30), { width: 10 });
    expect(gif.contentType).to.equal('image/png');
  });
  it('rejects non-images with FILE_VALIDATION_ERROR', async () => {
    let err: any;
    try {
      await resizeImage(Buffer.from('hello'), { width: 10 });
    } catch (e) {
      err = e;
    }
    expect(err?.code).to.equal('FILE_VALIDATION_ERROR');
  });
});
