/**
 * TypeScript types generated from the served document with openapi-typescript, and small programs
 * type-checked against them with the TypeScript compiler: what the document promises is what a
 * generated client enforces. A create must name the object's required fields (REST and JSON-RPC),
 * an update may name any subset, an expanded lookup may hold the related record, a list item may
 * be a group row, and reading a partial record's field needs a check.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { startServer, type TestServer } from '../../helpers/server';
import { protocolPlugins } from './helpers';

const GOOD = `
import type { components, paths } from './api';
type S = components['schemas'];

// REST: a create with the required fields (status has a default), an array of them, an empty update.
type CreateBody = paths['/api/data/project']['post']['requestBody']['content']['application/json'];
export const one: CreateBody = { name: 'Apollo', budget: 1000, account: 'acc-acme' };
export const many: CreateBody = [{ name: 'A' }, { name: 'B', status: 'active' }];
type UpdateBody = NonNullable<paths['/api/data/project/{id}']['patch']['requestBody']>['content']['application/json'];
export const update: UpdateBody = {};
export const task: S['TaskCreate'] = { title: 'Write docs', project: 'prj-apollo' };

// JSON-RPC: the create of each object takes that object's fields.
export const rpc: S['RpcRequest'] = { op: 'create', object: 'task', args: { title: 'Write docs', project: 'prj-apollo' } };
export const find: S['RpcRequest'] = { op: 'find', object: 'task', args: { fields: ['title'], expand: { project: {} } } };

// Reads: a lookup holds its id or, expanded, the related record; a list item may be a group row.
type Item = paths['/api/data/task']['get']['responses'][200]['content']['application/json']['items'][number];
export function projectName(item: Item): string | undefined {
  if (!('id' in item) || typeof item.id !== 'string') return undefined; // a group row has no id
  const record = item as S['TaskPartial'];
  const project = record.project;
  if (project && typeof project === 'object') return project.name;
  return project ?? undefined;
}
export const row: S['GroupRow'] = { status: 'done', total: 12, latest: '2025-02-14' };
export const created: paths['/api/data/task']['post']['responses'][201]['content']['application/json'] = {
  id: 't1', title: 'x', project: 'prj-apollo', '@type': 'task',
};
`;

/** Each line must fail to compile: the marker comment names what the compiler must say. */
const BAD = `
import type { components, paths } from './api';
type S = components['schemas'];
type CreateBody = paths['/api/data/project']['post']['requestBody']['content']['application/json'];

export const noName: CreateBody = { budget: 1000 }; // @fails: name
export const noProject: S['TaskCreate'] = { title: 'Write docs' }; // @fails: project
export const rpcNoTitle: S['RpcRequest'] = { op: 'create', object: 'task', args: { project: 'prj-apollo' } }; // @fails: assignable
export const rpcTask: S['RpcCreateTaskRequest'] = { op: 'create', object: 'task', args: { project: 'prj-apollo' } }; // @fails: title
export const unknownField: S['ProjectUpdate'] = { nope: 1 }; // @fails: nope
export const readOnly: S['ProjectCreate'] = { name: 'x', id: 'y' }; // @fails: id
export const nullName: S['ProjectUpdate'] = { name: null }; // @fails: null
export function budget(p: S['ProjectPartial']): number { return p.budget; } // @fails: undefined
`;

describe('Types generated from the OpenAPI document (openapi-typescript, TypeScript compiler)', function () {
  this.timeout(60000);
  let s: TestServer;
  let dir: string;
  let diagnostics: ts.Diagnostic[];

  before(async () => {
    s = await startServer({ plugins: protocolPlugins() });
    const doc = (await s.request('GET', '/api/objectql/openapi.json')).body;
    dir = mkdtempSync(join(tmpdir(), 'objectql-openapi-types-'));
    writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(doc)));
    writeFileSync(join(dir, 'good.ts'), GOOD);
    writeFileSync(join(dir, 'bad.ts'), BAD);
    const program = ts.createProgram(
      ['api.ts', 'good.ts', 'bad.ts'].map((f) => join(dir, f)),
      { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, types: [] },
    );
    diagnostics = [...ts.getPreEmitDiagnostics(program)];
  });
  after(async () => {
    await s?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const inFile = (name: string) => diagnostics.filter((d) => d.file?.fileName.endsWith(name));
  const text = (d: ts.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, '\n');

  it('the generated types compile', () => {
    expect(inFile('api.ts').map(text)).to.deep.equal([]);
  });

  it('a valid create, update, JSON-RPC request and read compile', () => {
    expect(inFile('good.ts').map(text)).to.deep.equal([]);
  });

  it('a create without a required field, an unknown or read-only field, a null required field and an unchecked partial read do not', () => {
    const bad = inFile('bad.ts');
    const lines = BAD.split('\n');
    const expected = lines.map((line, i) => [i, /@fails: (\S+)/.exec(line)?.[1]] as const).filter(([, what]) => what);
    for (const [line, what] of expected) {
      const found = bad.filter((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line === line);
      expect(found.map(text).join('\n'), `line ${line + 1}: ${lines[line].trim()}`).to.include(what!);
    }
    expect(bad.map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line)).to.have.members(expected.map(([line]) => line));
  });

  it('says which field is missing, as a generated client will', () => {
    const message = inFile('bad.ts')
      .map(text)
      .find((m) => m.includes("'name'"));
    expect(message).to.match(/Property 'name' is missing/);
  });
});
