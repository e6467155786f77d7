/**
 * Change notifications under the permission matrix: the same table (table.ts) held against the two
 * ways a change reaches a client — GraphQL subscriptions (graphql-ws, `<object>Created/Updated/
 * Deleted`, docs/graphql.md) and the realtime WebSocket API (`{type:'subscribe', object}`,
 * docs/realtime.md).
 *
 * Each user holds ONE connection per transport for the whole run. On it they subscribe to every
 * object: an object they may read must be accepted (GraphQL: the three events, selecting exactly
 * the fields the table says they read); one they may not must be refused at subscribe time,
 * FORBIDDEN (UNAUTHORIZED when anonymous) naming allow_read, as a query would be.
 *
 * Then, object by object, the admin updates every seeded record over JSON-RPC with the table's
 * harmless change (WRITES.update); once the events stop coming (a short settle, no fixed sleep)
 * each user must have received one `updated` event per record the table says they see — no more,
 * no other kind of event — and no payload may hold a field hidden from them, every value as
 * stored. Then the admin deletes every record: the same, with `deleted` events judged on the
 * records as they were (the deleted-record visibility of repo.visibility()). The store is put back
 * after each (MatrixServer.reset, straight on the datasource: no events).
 */
import { expect } from 'chai';
import { createClient, type Client as GqlClient, type ExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';
import { ERROR_CODES, isErrorCode, JSON_VALUE_TYPES } from '../../kernel';
import { Client as RealtimeClient, wsUrl, type Msg } from '../plugins/realtime/helpers';
import { rpcAdapter } from './adapters/rpc';
import { expectDenied, expectNoHidden, expectOk } from './checks';
import { credentials } from './credentials';
import type { Outcome, Rec } from './protocol';
import type { MatrixServer } from './server';
import { cell, OBJECTS, readable, RECORDS, WRITES, type ObjectName } from './table';
import { MATRIX_USERS, USER_NAMES, type UserName } from './users';

type EventKind = 'created' | 'updated' | 'deleted';
const KINDS: EventKind[] = ['created', 'updated', 'deleted'];
const SUFFIX: Record<EventKind, string> = { created: 'Created', updated: 'Updated', deleted: 'Deleted' };

/** One notification, in transport-neutral terms. */
interface Change {
  object: ObjectName;
  kind: EventKind;
  record: Rec;
}

/** How one subscription was answered when it started. */
interface Started {
  /** The refusal (absent: the subscription is running). */
  error?: Outcome;
  /** GraphQL: the subscription ended (it must not, when accepted). */
  ended?: boolean;
  /** GraphQL: an event carrying errors. */
  eventErrors?: unknown[];
}

interface Connection {
  /** object → how its subscription(s) were answered. */
  started: Map<ObjectName, Started[]>;
  changes: Change[];
  close(): Promise<void> | void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The error as an Outcome, its status from the kernel's table (checks.ts speaks Outcomes). */
function errorOutcome(code: string, message: string, details: unknown, raw: unknown): Outcome {
  return {
    status: isErrorCode(code) ? ERROR_CODES[code] : 500,
    error: { code, message, ...(details !== undefined ? { details } : {}) },
    raw,
  };
}

/** The fields the table says `user` reads on `object` (every field of the object but the hidden ones). */
function visible(env: MatrixServer, object: ObjectName, user: UserName): string[] {
  const hidden = cell(object, user).hidden;
  return env.fields(object).filter((f) => !hidden.includes(f));
}

/** GraphQL: one graphql-ws client for `user`, subscribed to every object. */
async function graphqlConnection(env: MatrixServer, user: UserName): Promise<Connection> {
  const auth = credentials(MATRIX_USERS[user]).authorization;
  const client: GqlClient = createClient({
    url: wsUrl(env.url, '/api/graphql'),
    webSocketImpl: WebSocket,
    connectionParams: auth ? { authorization: auth } : undefined,
    lazy: false,
    retryAttempts: 0,
    onNonLazyError: () => {},
  });
  const conn: Connection = { started: new Map(), changes: [], close: () => client.dispose() };
  const refusals: Array<Promise<void>> = [];
  const mayRead = readable(user);
  for (const object of OBJECTS) {
    const canRead = mayRead.includes(object);
    // A readable object: the three events, selecting exactly the visible fields; otherwise one is enough to be refused.
    const kinds: EventKind[] = canRead ? KINDS : ['updated'];
    const selection = canRead ? visible(env, object, user).join(' ') : 'id';
    const states: Started[] = [];
    conn.started.set(object, states);
    for (const kind of kinds) {
      const field = `${object}${SUFFIX[kind]}`;
      const state: Started = {};
      states.push(state);
      let ended!: () => void;
      const done = new Promise<void>((r) => (ended = r));
      if (!canRead) refusals.push(done);
      client.subscribe(
        { query: `subscription { ${field} { ${selection} } }` },
        {
          next: (value: ExecutionResult) => {
            if (value.errors?.length) {
              const e = value.errors[0] as { message: string; extensions?: Rec };
              if (!state.error)
                state.error = errorOutcome(String(e.extensions?.code ?? 'INTERNAL_ERROR'), e.message, e.extensions?.details, value);
              (state.eventErrors ??= []).push(value.errors);
              return;
            }
            const record = value.data?.[field] as Rec;
            conn.changes.push({ object, kind, record });
          },
          error: (err: unknown) => {
            const list = Array.isArray(err) ? (err as Array<{ message: string; extensions?: Rec }>) : undefined;
            const first = list?.[0];
            state.error ??= first
              ? errorOutcome(String(first.extensions?.code ?? 'INTERNAL_ERROR'), first.message, first.extensions?.details, err)
              : errorOutcome(
                  'INTERNAL_ERROR',
                  `subscription failed: ${String((err as { code?: unknown })?.code ?? err)}`,
                  undefined,
                  String(err),
                );
            state.ended = true;
            ended();
          },
          complete: () => {
            state.ended = true;
            ended();
          },
        },
      );
    }
  }
  // The refusals are answered when each subscription starts: once they are in, so (nearly) are the acceptances.
  await Promise.race([Promise.all(refusals), sleep(5000)]);
  return conn;
}

/** Realtime: one `ws` socket for `user` (credentials on the upgrade request), subscribed to every object. */
async function realtimeConnection(env: MatrixServer, user: UserName): Promise<Connection> {
  const client = await RealtimeClient.open(wsUrl(env.url), credentials(MATRIX_USERS[user]));
  const conn: Connection = {
    started: new Map(),
    get changes(): Change[] {
      return client.messages
        .filter((m) => m.type === 'change')
        .map((m: Msg) => ({ object: m.object, kind: m.operation, record: m.record }));
    },
    set changes(value: Change[]) {
      if (value.length) throw new Error('realtime changes can only be cleared');
      for (let i = client.messages.length - 1; i >= 0; i--) if (client.messages[i].type === 'change') client.messages.splice(i, 1);
    },
    close: () => client.close(),
  };
  for (const object of OBJECTS) {
    const reply = await client.request({ type: 'subscribe', id: object, object });
    conn.started.set(object, [reply.type === 'ack' ? {} : { error: errorOutcome(reply.code, reply.message, reply.details, reply) }]);
  }
  return conn;
}

const TRANSPORTS: Array<{ name: string; open(env: MatrixServer, user: UserName): Promise<Connection> }> = [
  { name: 'GraphQL subscriptions', open: graphqlConnection },
  { name: 'realtime', open: realtimeConnection },
];

/** Waits until at least `expected` changes are in and none has come for a short while (or a deadline passes). */
async function quiesce(count: () => number, expected: number): Promise<void> {
  const deadline = Date.now() + 5000;
  let last = -1;
  let since = Date.now();
  while (Date.now() < deadline) {
    const n = count();
    if (n !== last) {
      last = n;
      since = Date.now();
    } else if (n >= expected && Date.now() - since >= 120) return;
    await sleep(20);
  }
}

export function changeCases(env: MatrixServer): void {
  describe('change notifications (GraphQL subscriptions, realtime)', () => {
    const conns = new Map<string, Record<UserName, Connection>>();
    const admin = rpcAdapter.connect(env.client).data!;

    before(async function () {
      this.timeout(20000);
      for (const t of TRANSPORTS) {
        const opened = await Promise.all(USER_NAMES.map((u) => t.open(env, u)));
        conns.set(t.name, Object.fromEntries(USER_NAMES.map((u, i) => [u, opened[i]])) as Record<UserName, Connection>);
      }
      // Lets the last acceptances reach the server (their start-time check is one count query).
      await sleep(250);
    });
    after(async () => {
      for (const byUser of conns.values()) await Promise.all(Object.values(byUser).map(async (c) => c.close()));
    });

    for (const t of TRANSPORTS) {
      for (const user of USER_NAMES) {
        const mayRead = readable(user);
        const denied = OBJECTS.filter((o) => !mayRead.includes(o));
        it(`${t.name} · ${user}: subscribes to ${mayRead.length} objects${denied.length ? `, refused ${denied.join(', ')}` : ''}`, () => {
          const conn = conns.get(t.name)![user];
          for (const object of OBJECTS) {
            for (const s of conn.started.get(object)!) {
              const what = `${t.name} · ${user} · ${object}`;
              if (mayRead.includes(object)) {
                expectOk(s.error ?? { status: 200, raw: null }, `${what}: subscribe`);
                expect(s.ended, `${what}: the subscription ended`).to.not.equal(true);
              } else {
                expect(s.error, `${what}: subscribe must be refused`).to.not.equal(undefined);
                expectDenied(s.error!, MATRIX_USERS[user], 'allow_read', `${what}: subscribe`);
              }
            }
          }
        });
      }
    }

    for (const object of OBJECTS) {
      const update = WRITES[object].update;
      it(`${object}: the admin updates all ${RECORDS[object].length} records; each user is told of exactly the records they see`, () =>
        notifies(object, 'updated', async (id) =>
          expectOk(await admin.update(MATRIX_USERS.root, object, id, update), `root updates ${object} ${id}`),
        ));
      // A deleted record can no longer be read back: what each subscriber is shown of it is decided
      // on the record as it was stored (repo.visibility()), by the same table.
      it(`${object}: the admin deletes all ${RECORDS[object].length} records; each user is told of exactly the records they saw`, () =>
        notifies(object, 'deleted', async (id) =>
          expectOk(await admin.delete(MATRIX_USERS.root, object, id), `root deletes ${object} ${id}`),
        ));
    }

    /**
     * Runs `change` on every seeded record of `object` (as the admin) and checks what every user
     * heard on every transport: one `kind` event per record the table says they see, no other event
     * of the object, no field hidden from them, and the values as stored (after the change; before
     * it, for a delete). The store is put back afterwards.
     */
    async function notifies(object: ObjectName, kind: 'updated' | 'deleted', change: (id: string) => Promise<void>): Promise<void> {
      const all = [...conns.entries()].flatMap(([name, byUser]) => USER_NAMES.map((user) => ({ name, user, conn: byUser[user] })));
      for (const x of all) x.conn.changes = [];
      const ofObject = (x: (typeof all)[number]) => x.conn.changes.filter((c) => c.object === object);
      const expected = all.reduce((sum, x) => sum + cell(object, x.user).ids.length, 0);
      const before = await env.truth(object);
      const definition = env.client.definition(object)!;
      try {
        for (const id of RECORDS[object]) await change(id);
        await quiesce(() => all.reduce((sum, x) => sum + ofObject(x).length, 0), expected);
        const after = kind === 'deleted' ? before : await env.truth(object);
        for (const x of all) {
          const c = cell(object, x.user);
          const what = `${x.name} · ${x.user} · ${object}`;
          const got = ofObject(x);
          expect(
            got.filter((e) => e.kind !== kind),
            `${what}: only ${kind} events`,
          ).to.deep.equal([]);
          expect(got.map((e) => e.record?.id).sort(), `${what}: records notified`).to.deep.equal([...c.ids].sort());
          const seen = visible(env, object, x.user);
          for (const e of got) {
            expectNoHidden(e.record, c.hidden, `${what} ${e.record.id}`);
            expect(
              Object.keys(e.record).filter((f) => !seen.includes(f)),
              `${what} ${e.record.id}: fields outside the object's readable ones`,
            ).to.deep.equal([]);
            const stored = after.get(e.record.id as string) ?? {};
            for (const f of Object.keys(e.record)) {
              // GraphQL carries JSON-holding fields as JSON text (the spec's type mapping).
              const asText = x.name === 'GraphQL subscriptions' && JSON_VALUE_TYPES.has(definition.fields[f].type) && e.record[f] !== null;
              const value: unknown = asText ? JSON.parse(e.record[f] as string) : e.record[f];
              expect(value, `${what} ${e.record.id}: ${f} as stored`).to.deep.equal(stored[f] ?? null);
            }
          }
          // GraphQL answers exactly its selection: the visible fields.
          if (x.name === 'GraphQL subscriptions')
            for (const e of got) expect(Object.keys(e.record).sort(), `${what} ${e.record.id}: selection`).to.deep.equal([...seen].sort());
          if (c.ops.includes('R'))
            for (const s of x.conn.started.get(object)!) expect(s.eventErrors, `${what}: events with errors`).to.equal(undefined);
        }
      } finally {
        await env.reset();
      }
    }
  });
}
