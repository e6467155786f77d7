/**
 * Values and query inputs every engine must treat alike (docs/security.md, "Values and query
 * inputs"), as one table every protocol's bad-input test runs through its own syntax against the
 * sample application on SQLite, PostgreSQL and MariaDB: each is refused with a 400 naming what is
 * wrong (or a GraphQL error with the same code), before any driver sees it, and nothing is stored.
 */
import { expect } from 'chai';
import type { DatasourceConfig } from '../../kernel/drivers';
import { DIALECTS, openNamespace, requireDialect, type DialectLabel, type Namespace } from '../drivers/sql/helpers';
import { USERS, type TestServer } from './server';

export type User = { id: string; roles: string[] };
/** A condition of the spec's array form; the OData door writes it in $filter syntax. */
export type Condition = [field: string, op: '=' | '>' | 'contains', value: unknown];

/** One protocol's way to run the table's operations; each answers the HTTP status and body. */
export interface Door {
  create(object: string, data: Record<string, unknown>, user: User): Promise<Answer>;
  update(object: string, id: string, data: Record<string, unknown>, user: User): Promise<Answer>;
  get(object: string, id: string, user: User): Promise<Answer>;
  list(object: string, query: { filter?: Condition; skip?: number }, user: User): Promise<Answer>;
}

export interface Answer {
  status: number;
  body: unknown;
}

export interface BadValueCase {
  label: string;
  send: (door: Door) => Promise<Answer>;
  code: 'VALIDATION_ERROR' | 'INVALID_REQUEST';
  /** Text the error must hold (its message or details): the field, the limit. */
  mentions: string[];
  /** Sends an id with the data of a create (a protocol whose inputs have no id cannot be asked). */
  choosesId?: boolean;
}

const ADMIN = USERS.admin;
const ALICE = USERS.alice;

/** A JSON value `levels` deep (arrays and objects alternating). */
export function nestedValue(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = i % 2 ? { k: value } : [value];
  return value;
}

const receipt = (url: string) => ({ name: 'r.pdf', url, size: 10, type: 'application/pdf' });

export const BAD_VALUE_CASES: BadValueCase[] = [
  {
    label: 'a NUL character in a text value',
    send: (d) => d.create('project', { name: 'a\u0000b' }, ADMIN),
    code: 'VALIDATION_ERROR',
    mentions: ['name', 'NUL'],
  },
  {
    label: 'an unpaired surrogate in a text value',
    send: (d) => d.create('project', { name: 'a\ud800b' }, ADMIN),
    code: 'VALIDATION_ERROR',
    mentions: ['name', 'surrogate'],
  },
  {
    label: 'a NUL character inside a JSON value',
    send: (d) => d.create('project', { name: 'NUL inside', settings: { note: ['x\u0000'] } }, ADMIN),
    code: 'VALIDATION_ERROR',
    mentions: ['settings', 'NUL'],
  },
  {
    label: 'a JSON value nested 32 levels',
    send: (d) => d.create('project', { name: 'Too deep', settings: nestedValue(32) }, ADMIN),
    code: 'VALIDATION_ERROR',
    mentions: ['settings', 'maxJsonValueDepth', '31'],
  },
  {
    label: 'an integer beyond 2^53',
    send: (d) => d.create('project', { name: 'Too big', budget: 2 ** 60 }, ADMIN),
    code: 'VALIDATION_ERROR',
    mentions: ['budget', '9007199254740991'],
  },
  {
    label: 'a text value of 256 characters (no max_length)',
    send: (d) => d.create('project', { name: 'x'.repeat(256) }, ADMIN),
    code: 'VALIDATION_ERROR',
    mentions: ['name', '255'],
  },
  {
    label: 'a textarea value beyond maxTextLength',
    send: (d) => d.create('expense', { project: 'prj-apollo', amount: 1, note: 'x'.repeat(65_537) }, ADMIN),
    code: 'VALIDATION_ERROR',
    mentions: ['note', 'maxTextLength', '65536'],
  },
  {
    label: "an attachment url 'javascript:'",
    send: (d) => d.create('expense', { project: 'prj-apollo', amount: 1, receipt: receipt('javascript:alert(1)') }, ADMIN),
    code: 'VALIDATION_ERROR',
    mentions: ['receipt', 'http(s) URL or a relative path'],
  },
  {
    label: 'a NUL character in the id of a read',
    send: (d) => d.get('project', 'prj-a\u0000b', ADMIN),
    code: 'VALIDATION_ERROR',
    mentions: ['id', 'NUL'],
  },
  {
    label: 'a NUL character in the id of an update',
    send: (d) => d.update('project', 'prj-a\u0000b', { priority: 'high' }, ADMIN),
    code: 'VALIDATION_ERROR',
    mentions: ['id', 'NUL'],
  },
  {
    label: 'a NUL character in a filter value',
    send: (d) => d.list('project', { filter: ['name', '=', 'a\u0000b'] }, ADMIN),
    code: 'VALIDATION_ERROR',
    mentions: ['name', 'NUL'],
  },
  {
    label: 'an impossible date in a filter (2025-02-30)',
    send: (d) => d.list('project', { filter: ['start_date', '=', '2025-02-30'] }, ADMIN),
    code: 'INVALID_REQUEST',
    mentions: ['2025-02-30'],
  },
  {
    label: 'an integer beyond 2^53 in a filter',
    send: (d) => d.list('project', { filter: ['budget', '>', 2 ** 60] }, ADMIN),
    code: 'VALIDATION_ERROR',
    mentions: ['budget', '9007199254740991'],
  },
  {
    label: 'a contains value beyond maxPatternLength',
    send: (d) => d.list('project', { filter: ['name', 'contains', 'a'.repeat(1001)] }, ADMIN),
    code: 'VALIDATION_ERROR',
    mentions: ['name', 'maxPatternLength', '1000'],
  },
  {
    label: 'a skip beyond maxSkip',
    send: (d) => d.list('project', { skip: 100_001 }, ADMIN),
    code: 'INVALID_REQUEST',
    mentions: ['skip', 'maxSkip', '100000'],
  },
  {
    label: 'a member choosing the id of a record it may not see',
    send: (d) => d.create('project', { id: 'prj-gemini', name: 'Taken' }, ALICE),
    code: 'VALIDATION_ERROR',
    mentions: ['id', 'may not read every record'],
    choosesId: true,
  },
  {
    label: 'a member choosing an id nobody uses (the same answer: no existence oracle)',
    send: (d) => d.create('project', { id: 'prj-unused', name: 'Free' }, ALICE),
    code: 'VALIDATION_ERROR',
    mentions: ['id', 'may not read every record'],
    choosesId: true,
  },
];

/** The error code an answer carries: the spec's `{error: {code}}`, or GraphQL's `errors[0].extensions.code`. */
function codeOf(body: unknown): unknown {
  const b = body as { error?: { code?: unknown }; errors?: Array<{ extensions?: { code?: unknown } }> };
  return b?.error?.code ?? b?.errors?.[0]?.extensions?.code;
}

/** Refused as the case says: 400 (or a GraphQL error answered 200), its code, and naming what it mentions. */
export function expectRefused(answer: Answer, c: BadValueCase, graphql = false): void {
  const text = JSON.stringify(answer.body);
  if (!graphql) expect(answer.status, text).to.equal(400);
  expect(codeOf(answer.body), text).to.equal(c.code);
  for (const m of c.mentions) expect(text, `${c.label}: ${text.slice(0, 400)}`).to.include(m);
}

/**
 * Runs the table once per store (SQLite, PostgreSQL, MariaDB), each on a fresh namespace with a
 * server `start` makes on it; every case leaves the store as it was.
 */
export function describeBadValues(
  protocol: string,
  start: (datasource: DatasourceConfig) => Promise<TestServer>,
  door: (s: TestServer) => Door,
  options: { extra?: (server: () => TestServer) => void; idInput?: boolean; labels?: DialectLabel[] } = {},
): void {
  const { extra = () => {}, idInput = true, labels = DIALECTS } = options;
  for (const label of labels) {
    describe(`${protocol}: values and query inputs every engine treats alike (${label})`, function () {
      let ns: Namespace | undefined;
      let s: TestServer | undefined;
      let before: string;
      const count = async () => JSON.stringify(await s!.kernel.engine.repo('project', { user: ADMIN }).count({}));

      this.beforeAll(async function () {
        await requireDialect(this, label);
        ns = await openNamespace(label);
        s = await start(ns.config());
        before = await count();
      });
      this.afterAll(async () => {
        await s?.stop();
        await ns?.drop();
      });
      afterEach(async () => {
        if (!s) return;
        expect((await s.request('GET', '/health')).status).to.equal(200);
        expect(await count()).to.equal(before);
      });

      for (const c of BAD_VALUE_CASES.filter((c) => idInput || !c.choosesId)) {
        it(`${c.label} → ${c.code}`, async () => {
          expectRefused(await c.send(door(s!)), c, protocol === 'GraphQL');
        });
      }
      extra(() => s!);
    });
  }
}
