/**
 * `objectql import` and `objectql export` as real child processes (the built dist/) on a SQLite
 * file: CSV, JSON and NDJSON in and out through the engine, rejected rows written with their
 * errors, an export that imports again, hooks and permissions applying to the caller named, and
 * clear refusals of what cannot be done.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';

const ROOT = resolve(__dirname, '../..');

describe('objectql import and export', function () {
  this.timeout(60_000);
  let dir: string;

  const cli = (...args: string[]) => {
    const result = spawnSync(process.execPath, [join(ROOT, 'bin/objectql.js'), ...args], { cwd: dir, encoding: 'utf8' });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const lines = (file: string) =>
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'objectql-transfer-'));
    cpSync(join(ROOT, 'metadata'), join(dir, 'metadata'), { recursive: true });
    writeFileSync(
      join(dir, 'objectql.config.ts'),
      `export default {
  metadata: ['./metadata'],
  datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: './data.sqlite' } } },
  security: { adminRoles: ['admin'] },
};
`,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('imports a CSV file, typing each cell by its field, and writes the rejected rows with their errors', () => {
    const rows = ['name,industry,annual_revenue,active'];
    for (let i = 0; i < 1200; i++) rows.push(`"Csv ${i}, Ltd",${i % 2 ? 'finance' : 'retail'},${i * 10},${i % 3 ? 'true' : 'false'}`);
    rows.push('Csv bad number,finance,lots,true', ',finance,1,true', 'Csv bad industry,mining,1,true');
    writeFileSync(join(dir, 'accounts.csv'), `${rows.join('\n')}\n`);
    const run = cli('import', 'accounts.csv', '--object', 'account', '--batch', '250');
    expect(run.code, run.stderr).to.equal(1); // some rows were rejected
    expect(run.stderr).to.match(/1,200 of 1,203 rows imported into 'account' in [\d.]+ s \([\d,]+ rows\/s\), 3 rejected/);
    expect(run.stderr).to.include('accounts.csv.rejects.ndjson');
    const rejected = lines('accounts.csv.rejects.ndjson');
    expect(rejected.map((r) => r.row)).to.deep.equal([1201, 1202, 1203]);
    expect(rejected[0].record).to.include({ name: 'Csv bad number', annual_revenue: 'lots' });
    expect(rejected[0].error).to.deep.include({ code: 'VALIDATION_ERROR', details: { fields: { annual_revenue: 'must be a number' } } });
    expect(rejected[1].error.details.fields).to.have.property('name');
    expect(rejected[2].error.details.fields).to.have.property('industry');
  });

  it('exports CSV with a filter and chosen fields, as it was imported', () => {
    const run = cli(
      'export',
      '--object',
      'account',
      '--out',
      'finance.csv',
      '--filter',
      '[["industry","=","finance"],["name","startswith","Csv"]]',
      '--fields',
      'name,annual_revenue,active',
    );
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.match(/exported 600 records of 'account' to finance\.csv/);
    const records = parse<Record<string, string>>(readFileSync(join(dir, 'finance.csv')), { columns: true });
    expect(records).to.have.length(600);
    expect(Object.keys(records[0])).to.deep.equal(['id', 'name', 'annual_revenue', 'active']);
    const one = records.find((r) => r.name === 'Csv 1, Ltd')!;
    expect(one).to.include({ annual_revenue: '10', active: 'true' });
  });

  it('round-trips NDJSON and JSON: an export imports again into an empty store, ids kept', () => {
    expect(cli('export', '--object', 'account', '--out', 'all.ndjson').code).to.equal(0);
    const exported = lines('all.ndjson');
    expect(exported.length).to.equal(1203); // 1,200 imported and the sample's 3
    const json = cli('export', '--object', 'account', '--format', 'json', '--fields', 'name');
    expect(json.code).to.equal(0);
    const array = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(array).to.have.length(1203);
    expect(Object.keys(array[0])).to.deep.equal(['id', 'name']);
    writeFileSync(join(dir, 'all.json'), json.stdout);

    rmSync(join(dir, 'data.sqlite'));
    const again = cli('import', 'all.ndjson', '--object', 'account', '--rejects', 'again-rejects.ndjson');
    // The sample's own 3 accounts are seeded again on the empty store: those 3 are duplicates.
    expect(again.stderr).to.match(/1,200 of 1,203 rows imported/);
    expect(lines('again-rejects.ndjson').map((r) => r.error.code)).to.deep.equal(['CONFLICT', 'CONFLICT', 'CONFLICT']);
    const reexported = lines(`all.ndjson`);
    expect(cli('export', '--object', 'account', '--out', 'second.ndjson').code).to.equal(0);
    const ids = (records: Array<Record<string, any>>) => records.map((r) => r.id).sort();
    expect(ids(lines('second.ndjson'))).to.deep.equal(ids(reexported));
  });

  it('runs as the caller named: its permissions and the hooks apply', () => {
    writeFileSync(join(dir, 'projects.ndjson'), `${JSON.stringify({ name: '  Imported project  ', status: 'planning' })}\n`);
    // project.hook.ts trims the name and makes the caller the owner.
    const asCarol = cli('import', 'projects.ndjson', '--object', 'project', '--user', 'carol', '--roles', 'manager');
    expect(asCarol.code, asCarol.stderr).to.equal(0);
    const byAlice = cli('export', '--object', 'project', '--user', 'alice', '--roles', 'member', '--fields', 'name,owner');
    expect(byAlice.code, byAlice.stderr).to.equal(0);
    // A member sees only her own projects (project.permission.yml): not carol's import.
    expect(byAlice.stdout).not.to.include('Imported project');
    const all = cli('export', '--object', 'project', '--fields', 'name,owner');
    const imported = all.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, string>)
      .find((p) => p.name === 'Imported project');
    expect(imported).to.include({ owner: 'carol' });
    const asMember = cli('export', '--object', 'project', '--user', 'alice', '--roles', 'member', '--fields', 'actual_cost');
    expect(asMember.code).to.equal(1);
    expect(asMember.stderr).to.match(/actual_cost/);
  });

  it('refuses what it cannot do with the reason and no stack', () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['import', 'accounts.csv'], 2, /--object NAME says which object/],
      [['import', 'nothing.csv', '--object', 'account'], 2, /there is no file 'nothing.csv'/],
      [['import', 'accounts.csv', '--object', 'acount'], 2, /there is no object 'acount'/],
      [['import', 'accounts.csv', '--object', 'account', '--batch', '5000'], 2, /--batch must be a whole number from 1 to 1000/],
      [['export', '--object', 'account', '--format', 'xml'], 2, /--format must be one of csv, json, ndjson/],
      [['export', '--object', 'account', '--filter', '[oops'], 2, /--filter must be JSON/],
      [['export', '--object', 'account', '--filter', '[["nope","=",1]]'], 1, /nope/],
    ];
    for (const [args, code, message] of cases) {
      const run = cli(...args);
      expect(run.code, args.join(' ')).to.equal(code);
      expect(run.stderr, args.join(' ')).to.match(message);
      expect(run.stderr).not.to.match(/\n\s+at /);
    }
    writeFileSync(join(dir, 'broken.ndjson'), `${JSON.stringify({ name: 'Before the break' })}\n{not json\n`);
    const broken = cli('import', 'broken.ndjson', '--object', 'account');
    expect(broken.code).to.equal(2);
    expect(broken.stderr).to.match(/line 2 is not JSON/);
    expect(existsSync(join(dir, 'broken.ndjson.rejects.ndjson'))).to.equal(false);
  });
});
