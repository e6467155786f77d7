/**
 * What the code cites of the docs exists: every `docs/design.md §N` names a section of the design
 * notes (their numbers are kept stable for this), every `docs/spec.md, "<name>"` names text of the
 * spec, and every relative link of the docs pages leads to a file. Unit test: it reads files only.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const SOURCE_FOLDERS = ['kernel', 'server', 'drivers', 'plugins', 'test', 'bin', 'examples', 'bench'];

function filesUnder(folder: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else if (keep(entry.name)) out.push(path);
    }
  };
  walk(resolve(ROOT, folder));
  return out;
}

// This file names the citation forms in its own comments: left out.
const sources = SOURCE_FOLDERS.flatMap((folder) => filesUnder(folder, (name) => /\.(ts|js)$/.test(name))).filter((f) => f !== __filename);
const read = (path: string) => readFileSync(path, 'utf8');

describe('citations of the docs', () => {
  it('finds the sources it checks', () => {
    expect(sources.length).to.be.greaterThan(100);
  });

  it('cites only sections of docs/design.md that exist', () => {
    const design = read(resolve(ROOT, 'docs/design.md'));
    const sections = new Set([...design.matchAll(/^## (\d+)\. /gm)].map((m) => m[1]));
    let cited = 0;
    for (const file of sources) {
      for (const match of read(file).matchAll(/docs\/design\.md §(\d+)/g)) {
        cited += 1;
        expect(sections.has(match[1]), `${file.slice(ROOT.length + 1)} cites docs/design.md §${match[1]}`).to.equal(true);
      }
    }
    expect(cited).to.be.greaterThan(0);
  });

  it('cites only parts of docs/spec.md that exist', () => {
    const spec = read(resolve(ROOT, 'docs/spec.md'));
    let cited = 0;
    for (const file of sources) {
      for (const match of read(file).matchAll(/docs\/spec\.md, "([^"]+)"/g)) {
        cited += 1;
        expect(spec, `${file.slice(ROOT.length + 1)} cites docs/spec.md, "${match[1]}"`).to.contain(match[1]);
      }
    }
    expect(cited).to.be.greaterThan(0);
  });

  it('links the docs pages to files that exist', () => {
    const pages = [...filesUnder('docs', (name) => name.endsWith('.md')), resolve(ROOT, 'CHANGELOG.md')];
    for (const page of pages) {
      for (const match of read(page).matchAll(/\]\(([^)\s#]+)(#[^)\s]*)?\)/g)) {
        const target = match[1];
        if (/^[a-z]+:/i.test(target)) continue;
        expect(existsSync(resolve(dirname(page), target)), `${page.slice(ROOT.length + 1)} links to ${target}`).to.equal(true);
      }
    }
  });
});
