/**
 * What one LIKE costs on SQLite, where matching runs on the event loop (objectql_match, with
 * kernel/query/like.ts): a long pattern over a long value, through the driver. Prints
 * milliseconds; `npx tsx bench/like-cost.ts [valueLength] [patternLength]`.
 */
import { createSqlDatasource } from '../drivers/sql';
import type { ObjectDefinition } from '../kernel';

const valueLength = Number(process.argv[2] ?? 200_000);
const patternLength = Number(process.argv[3] ?? 100_000);

const field = (name: string, type: string) => ({ name, type, label: name });
const def: ObjectDefinition = {
  name: 'doc',
  label: 'doc',
  datasource: 'default',
  fields: { id: { ...field('id', 'text'), system: true }, body: field('body', 'textarea') },
  indexes: [],
  actions: {},
  rules: [],
  hooks: [],
} as unknown as ObjectDefinition;

async function main(): Promise<void> {
  const ds = createSqlDatasource(
    'default',
    { driver: 'sql', client: 'better-sqlite3', connection: { filename: ':memory:' } },
    { baseDir: process.cwd() },
  );
  await ds.connect();
  await ds.syncSchema([def]);
  await ds.create('doc', { id: 'd1', body: 'a'.repeat(valueLength) });
  const patterns: Array<[string, string]> = [
    ['%a…ab% (literal piece)', `%${'a'.repeat(patternLength - 3)}b%`],
    ['%a_a_…b% (piece with _)', `%${'a_'.repeat(Math.floor((patternLength - 3) / 2))}b%`],
    ['a%a%…b (many %)', `${'a%'.repeat(Math.floor((patternLength - 1) / 2))}b`],
  ];
  for (const [label, pattern] of patterns) {
    const start = process.hrtime.bigint();
    const rows = await ds.find('doc', { filter: { field: 'body', op: 'like', value: pattern } });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    console.log(`${label.padEnd(28)} pattern ${pattern.length} over value ${valueLength}: ${ms.toFixed(1)} ms (${rows.length} rows)`);
  }
  await ds.disconnect();
}

void main();
