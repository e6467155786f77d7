/**
 * Builds Studio's single-page application (plugins/studio/app) into dist/studio: esbuild bundles
 * it as ES modules with hashed file names (served with a one-year cache), writes a gzip and a
 * brotli copy of each file beside it (served to browsers that accept them), and a manifest the
 * plugin reads: the entry script, its stylesheet, and every file the browser fetches before the
 * first paint. The initial JavaScript, gzipped, must stay under the budget: the build fails above it.
 *
 * `node scripts/build-studio.mjs` (part of `npm run build`); `--watch` rebuilds on change.
 */
import { build, context } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'studio');
const BUDGET_GZIP_BYTES = 250 * 1024;

/** @type {import('esbuild').BuildOptions} */
const options = {
  absWorkingDir: root,
  entryPoints: { studio: 'plugins/studio/app/main.tsx' },
  bundle: true,
  splitting: true,
  format: 'esm',
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  outdir,
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  assetNames: 'asset-[hash]',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  tsconfig: 'plugins/studio/app/tsconfig.json',
  minify: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
};

/** The output files a browser loads before the app runs: the entry and the chunks it imports statically. */
function initialFiles(metafile, entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imp of metafile.outputs[file]?.imports ?? []) if (imp.kind === 'import-statement') visit(imp.path);
  };
  visit(entry);
  return [...seen];
}

function finish(metafile) {
  const outputs = Object.keys(metafile.outputs);
  const entry = outputs.find((f) => metafile.outputs[f].entryPoint && f.endsWith('.js'));
  if (!entry) throw new Error('studio build: no entry script in the output');
  const css = metafile.outputs[entry].cssBundle;
  const sizes = {};
  for (const file of outputs) {
    if (file.endsWith('.map')) continue;
    const body = readFileSync(join(root, file));
    const gz = gzipSync(body, { level: 9 });
    writeFileSync(join(root, `${file}.gz`), gz);
    writeFileSync(join(root, `${file}.br`), brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    sizes[file] = { raw: body.length, gzip: gz.length };
  }
  const initial = initialFiles(metafile, entry);
  const initialGzip = initial.reduce((sum, f) => sum + sizes[f].gzip, 0);
  const name = (f) => relative(outdir, join(root, f));
  const manifest = {
    entry: name(entry),
    ...(css ? { css: name(css) } : {}),
    preload: initial.filter((f) => f !== entry).map(name),
    initialJavaScriptGzipBytes: initialGzip,
  };
  writeFileSync(join(outdir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `studio: initial JavaScript ${kb(initialGzip)} gzipped (budget ${kb(BUDGET_GZIP_BYTES)}), ` +
      `${initial.length} file(s); stylesheet ${css ? kb(sizes[css].gzip) : 'none'} gzipped`,
  );
  if (initialGzip > BUDGET_GZIP_BYTES) {
    throw new Error(`studio build: the initial JavaScript is ${kb(initialGzip)} gzipped, over the ${kb(BUDGET_GZIP_BYTES)} budget`);
  }
}

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
if (process.argv.includes('--watch')) {
  const ctx = await context({
    ...options,
    plugins: [{ name: 'finish', setup: (b) => b.onEnd((r) => r.metafile && !r.errors.length && finish(r.metafile)) }],
  });
  await ctx.watch();
  console.log('studio: watching plugins/studio/app');
} else {
  try {
    finish((await build(options)).metafile);
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
