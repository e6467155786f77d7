/**
 * `objectql migrate plan` and `objectql migrate apply` as child processes (the built dist/) on a
 * SQLite file: exit codes, the listing, refusals naming what to add, migration files written,
 * replayed and refused once edited, and `serve` refusing to start under `schemaSync: 'off'`.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { needBuiltCli, ROOT } from './cli-process';

describe('objectql migrate', function () {
  this.timeout(60_000);
  let dir: string;

  const cli = (...args: string[]) => {
    const result = spawnSync(process.execPath, [join(ROOT, 'bin/objectql.js'), ...args], { cwd: dir, encoding: 'utf8' });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const writeObject = (yaml: string) => writeFileSync(join(dir, 'metadata/item.object.yml'), yaml);
  const config = (extra = '') =>
    writeFileSync(
      join(dir, 'objectql.config.json'),
      JSON.stringify({
        metadata: ['./metadata'],
        datasources: {
          default: {
            driver: 'sql',
            client: 'better-sqlite3',
            connection: { filename: './data.sqlite' },
            ...(extra ? { schemaSync: extra } : {}),
          },
        },
      }),
    );
  const sqlite = <T>(fn: (db: Database.Database) => T): T => {
    const db = new Database(join(dir, 'data.sqlite'));
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };

  before(function () {
    needBuiltCli(this);
    dir = mkdtempSync(join(tmpdir(), 'objectql-migrate-'));
    mkdirSync(join(dir, 'metadata'));
    config();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('plans, writes a file, applies it, and then has nothing to do', () => {
    writeObject('fields:\n  title: text\n  qty: text\n  note: text\n');
    const plan = cli('migrate', 'plan');
    expect(plan.code, plan.stderr).to.equal(1);
    expect(plan.stdout).to.equal("datasource 'default' (sqlite): 1 step(s)\n  [safe]        create table 'item' (7 columns)\n");
    const write = cli('migrate', 'plan', '--write', 'migrations');
    expect(write.code, write.stderr).to.equal(0);
    expect(readdirSync(join(dir, 'migrations'))).to.have.length(1);
    const apply = cli('migrate', 'apply', '--from', 'migrations');
    expect(apply.code, apply.stderr).to.equal(0);
    expect(apply.stdout).to.match(/applied \d{8}T\d{6}_default_create-table-item\.json\n {2}create table 'item'/);
    expect(cli('migrate', 'plan').stdout).to.equal("datasource 'default': the database matches the metadata; nothing to do\n");
    expect(cli('migrate', 'plan').code).to.equal(0);
    sqlite((db) =>
      db.prepare("INSERT INTO item (id, title, qty, note) VALUES ('a', 'Apple', '12', 'n1'), ('b', 'Pear', 'lots', 'n2')").run(),
    );
  });

  it('refuses destructive steps, rows that do not convert and missing backfills, then applies with what they need', () => {
    writeObject(
      'fields:\n  name:\n    type: text\n    renamed_from: title\n  qty: number\n  stock:\n    type: number\n    required: true\n',
    );
    const plan = cli('migrate', 'plan');
    expect(plan.code).to.equal(1);
    expect(plan.stdout.split('\n').slice(1, -1)).to.deep.equal([
      "  [safe]        rename column 'item.title' to 'name' (renamed_from), keeping its values",
      "  [safe]        add column 'item.stock' (number)",
      "  [destructive] change the type of 'item.qty' from text (text values) to number (values converted; some may lose precision or form)",
      "  [safe]        backfill required field 'item.stock': 2 record(s) hold no value (needs --backfill item.stock=VALUE)",
      "  [destructive] drop column 'item.note': no field maps to it (its values are lost)",
    ]);
    const destructive = cli('migrate', 'apply');
    expect(destructive.code).to.equal(1);
    expect(destructive.stderr).to.include("Migration refused on datasource 'default': 2 destructive step(s) need --allow-destructive");
    const misfits = cli('migrate', 'apply', '--allow-destructive');
    expect(misfits.stderr).to.include(
      '1 record(s) of \'item.qty\' do not convert to number; correct them first:\n  id "b": "lots" is not a number',
    );
    sqlite((db) => db.prepare("UPDATE item SET qty = '40' WHERE id = 'b'").run());
    const backfill = cli('migrate', 'apply', '--allow-destructive');
    expect(backfill.code).to.equal(1);
    expect(backfill.stderr).to.include('item.stock: 2 record(s) hold no value; give one with --backfill item.stock=VALUE');
    expect(sqlite((db) => db.prepare('SELECT title FROM item ORDER BY id').all())).to.deep.equal([{ title: 'Apple' }, { title: 'Pear' }]);

    const write = cli('migrate', 'plan', '--write', 'migrations', '--backfill', 'item.stock=3');
    expect(write.code, write.stderr).to.equal(0);
    const apply = cli('migrate', 'apply', '--from', 'migrations', '--allow-destructive');
    expect(apply.code, apply.stderr).to.equal(0);
    expect(sqlite((db) => db.prepare('SELECT id, name, qty, stock FROM item ORDER BY id').all())).to.deep.equal([
      { id: 'a', name: 'Apple', qty: 12, stock: 3 },
      { id: 'b', name: 'Pear', qty: 40, stock: 3 },
    ]);
    expect(cli('migrate', 'apply', '--from', 'migrations').stdout).to.include('every migration file in migrations is applied');
  });

  it('refuses an applied migration file that was edited', () => {
    const [first] = readdirSync(join(dir, 'migrations')).sort();
    const path = join(dir, 'migrations', first);
    writeFileSync(path, readFileSync(path, 'utf8').replace('"note"', '"remark"'));
    const apply = cli('migrate', 'apply', '--from', 'migrations');
    expect(apply.code).to.equal(1);
    expect(apply.stderr).to.include(`${first}' was applied with checksum`);
    expect(apply.stderr).to.include('an applied migration is never edited');
  });

  it("with schemaSync 'off', serve refuses to start while the database is behind, naming migrate apply", () => {
    config('off');
    writeObject(
      'fields:\n  name:\n    type: text\n    renamed_from: title\n  qty: number\n  stock:\n    type: number\n    required: true\n  colour: text\n',
    );
    const serve = spawnSync(process.execPath, [join(ROOT, 'bin/objectql.js'), 'serve', '--port', '0'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(serve.status).to.equal(1);
    expect(serve.stderr).to.include("Datasource 'default' has schemaSync 'off' and its database is behind the metadata (1 step(s)):");
    expect(serve.stderr).to.include("add column 'item.colour'");
    expect(serve.stderr).to.include('objectql migrate apply --datasource default');
    expect(
      sqlite((db) =>
        db
          .prepare('SELECT * FROM item')
          .columns()
          .map((c) => c.name),
      ),
    ).not.to.include('colour');
  });

  it('explains its usage', () => {
    const wrong = cli('migrate', 'plan', '--allow-destructive');
    expect(wrong.code).to.equal(2);
    expect(wrong.stderr).to.include("--allow-destructive does not apply to 'migrate plan'");
    expect(cli('migrate', 'apply', '--backfill', 'stock=1').stderr).to.include("--backfill takes OBJECT.FIELD=VALUE (got 'stock=1')");
    expect(cli('migrate', 'plan', '--datasource', 'nope').stderr).to.include("there is no datasource 'nope'; configured: default");
    expect(cli('--help').stdout).to.include('objectql migrate apply');
  });
});
