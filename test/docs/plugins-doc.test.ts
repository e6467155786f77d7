/**
 * docs/plugins.md is the plugin contract, and a plugin must be writable from it alone: these
 * checks fail when the code grows something the page does not name. Every list is derived from
 * the code — the hooks from createHooks(), the kinds from the hooks' classes, the repository's
 * methods and the other interfaces from their declarations (read with the TypeScript parser), the
 * protocol layer from its module's exports — never kept by hand here. Unit test: it reads files.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { HookMap } from 'tapable';
import { createHooks } from '../../kernel/hooks';
import { ObjectRepository } from '../../kernel/engine/repository';
import * as protocol from '../../kernel/protocol';

const ROOT = resolve(__dirname, '../..');
const PAGE = readFileSync(resolve(ROOT, 'docs/plugins.md'), 'utf8');

/** The text of a section: from its heading to the next heading of the same or a higher level. */
function section(heading: string): string {
  const level = /^#+/.exec(heading)![0].length;
  const start = PAGE.split('\n').findIndex((line) => line.trim() === heading);
  expect(start, `docs/plugins.md has a section '${heading}'`).to.be.at.least(0);
  const lines = PAGE.split('\n').slice(start + 1);
  const end = lines.findIndex((line) => /^#+ /.test(line) && /^#+/.exec(line)![0].length <= level);
  return lines.slice(0, end < 0 ? undefined : end).join('\n');
}

/** The cells of the first table in `text`, row by row (header and separator left out). */
function firstTable(text: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** The rows of a table whose first cell names `name` in code: `name`, `name(...)`, or in a list of those. */
function rowsNaming(rows: string[][], name: string): string[][] {
  const pattern = new RegExp('`' + name + '(\\(|`)');
  return rows.filter((row) => pattern.test(row[0]));
}

/** The member names of an interface or a class's public members, as declared in a source file. */
function declaredMembers(file: string, name: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(resolve(ROOT, file), 'utf8'), ts.ScriptTarget.ES2022, true);
  const members: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isInterfaceDeclaration(node) || ts.isClassDeclaration(node)) && node.name?.text === name) {
      for (const member of node.members) {
        if (ts.isConstructorDeclaration(member) || !member.name || !ts.isIdentifier(member.name)) continue;
        const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
        if (modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword)) continue;
        members.push(member.name.text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  expect(members.length, `${name} is declared in ${file}`).to.be.greaterThan(0);
  return [...new Set(members)];
}

/** 'AsyncSeriesBailHook' → 'async series bail'; a HookMap → 'map of ' + the kind of its hooks. */
function kindOf(hook: unknown): string {
  if (hook instanceof HookMap) return `map of ${kindOf(hook.for('docs-check'))}`;
  const name = (hook as { constructor: { name: string } }).constructor.name.replace(/Hook$/, '');
  return name
    .split(/(?=[A-Z])/)
    .map((word) => word.toLowerCase())
    .join(' ');
}

describe('docs/plugins.md', () => {
  it('names every hook of createHooks() in the hooks table, with its kind', () => {
    const rows = firstTable(section('## Hooks'));
    const hooks = createHooks();
    expect(Object.keys(hooks).length).to.be.greaterThan(0);
    for (const [name, hook] of Object.entries(hooks)) {
      const named = rowsNaming(rows, name);
      expect(named, `hook '${name}' has a row in the hooks table of docs/plugins.md`).to.have.length(1);
      expect(named[0][1], `kind of hook '${name}'`).to.equal(kindOf(hook));
    }
  });

  it('lists every field of the AuthRequest', () => {
    const rows = firstTable(section('### authenticate and the AuthRequest'));
    for (const field of declaredMembers('kernel/http/auth-request.ts', 'AuthRequest')) {
      expect(rowsNaming(rows, field), `AuthRequest field '${field}'`).to.have.length(1);
    }
  });

  it('documents every public member of kernel.http', () => {
    const rows = firstTable(section('## HTTP: `kernel.http`'));
    for (const member of declaredMembers('kernel/http/host.ts', 'HttpHost')) {
      expect(rowsNaming(rows, member), `kernel.http.${member}`).to.have.length(1);
    }
  });

  it('documents every member of the DataEngine', () => {
    const rows = firstTable(section('## The data API'));
    for (const member of declaredMembers('kernel/engine/types.ts', 'DataEngine')) {
      expect(rowsNaming(rows, member), `engine.${member}`).to.have.length(1);
    }
  });

  it('documents every Repository method, with its arguments, result and errors', () => {
    const rows = firstTable(section('### Repository methods'));
    const methods = declaredMembers('kernel/engine/types.ts', 'Repository');
    for (const method of methods) {
      // The declaration is what plugins get; the engine's repository must really have it.
      expect(ObjectRepository.prototype, `ObjectRepository implements ${method}`).to.have.property(method).that.is.a('function');
      const named = rowsNaming(rows, method);
      expect(named, `repository method '${method}' has a row in docs/plugins.md`).to.have.length(1);
      expect(named[0], `row of '${method}'`).to.have.length(4);
      for (const cell of named[0]) expect(cell, `a cell of '${method}'`).to.not.equal('');
    }
  });

  it('documents every member of Visibility and CallerPermissions', () => {
    const text = section('## The data API');
    for (const [file, name] of [
      ['kernel/engine/types.ts', 'Visibility'],
      ['kernel/engine/types.ts', 'CallerPermissions'],
    ]) {
      for (const member of declaredMembers(file, name)) expect(text, `${name}.${member}`).to.contain('`' + member);
    }
  });

  it('says what every export of the protocol layer is for', () => {
    const rows = firstTable(section('## The protocol layer'));
    const exports = Object.keys(protocol);
    expect(exports.length).to.be.greaterThan(0);
    for (const name of exports) {
      expect(
        rows.some((row) => new RegExp('`' + name + '(\\(|`)').test(row[0])),
        `objectql/protocol export '${name}'`,
      ).to.equal(true);
    }
  });
});
