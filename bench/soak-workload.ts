/**
 * The soak's requests: reads and writes of the sample application's tasks and projects through
 * JSON-RPC, REST, OData and GraphQL, as a manager (carol) and a member (alice, who sees her own
 * tasks only), each picked at random by weight. Writes create tasks, update them and delete them
 * again (each worker deletes its oldest once it holds more than a few), so the table stays the same
 * size however long the soak runs. A few requests are wrong on purpose (a missing record, a missing
 * required field, a delete the member may not make): the 4xx they get is the expected answer.
 */
import { apiKey, ROUTES, type UserName } from './target';

export type Protocol = 'JSON-RPC' | 'REST' | 'OData' | 'GraphQL';

export interface Answer {
  status: number;
  body: string;
}

export interface Caller {
  url: string;
  index: number;
  /** Ids of tasks this worker created and has not deleted yet, oldest first. */
  own: string[];
  sequence: number;
  /** Time limit of one request, ms. */
  timeoutMs: number;
}

export interface Operation {
  protocol: Protocol;
  name: string;
  weight: number;
  /** A 4xx is this operation's right answer. */
  expects4xx?: boolean;
  run(w: Caller): Promise<Answer>;
}

/** Tasks a worker keeps before deleting its oldest. */
const KEEP = 8;

async function send(w: Caller, method: string, path: string, user: UserName, body?: unknown): Promise<Answer> {
  const res = await fetch(w.url + path, {
    method,
    headers: { ...apiKey(user), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(w.timeoutMs),
  });
  return { status: res.status, body: await res.text() };
}

const rpc = (w: Caller, user: UserName, body: unknown) => send(w, 'POST', ROUTES.rpc, user, body);
const graphql = (w: Caller, user: UserName, query: string, variables: Record<string, unknown> = {}) =>
  send(w, 'POST', ROUTES.graphql, user, { query, variables });

function newTask(w: Caller) {
  const n = w.sequence++;
  return { title: `soak ${w.index}-${n}`, project: 'prj-apollo', assignee: n % 2 ? 'alice' : 'bob', estimate_hours: n % 40 };
}

/** The parts of an answer's JSON the soak reads. */
interface Body {
  id?: unknown;
  data?: { createTask?: { id?: unknown } | null } | null;
  error?: { code?: string; message?: string };
  errors?: Array<{ extensions?: { code?: string } }>;
}

/** Remembers the created task's id (found at `pick` in the parsed body). */
function remember(w: Caller, answer: Answer, pick: (body: Body) => unknown): Answer {
  if (answer.status < 300) {
    try {
      const id = pick(JSON.parse(answer.body) as Body);
      if (typeof id === 'string') w.own.push(id);
    } catch {
      /* counted by the caller from the status / errors */
    }
  }
  return answer;
}

const someOwn = (w: Caller) => w.own[Math.floor(Math.random() * w.own.length)];
const statuses = ['todo', 'doing', 'done'];
const someStatus = () => statuses[Math.floor(Math.random() * statuses.length)];
const odataKey = (id: string) => `('${encodeURIComponent(id.replace(/'/g, "''"))}')`;
const q = (params: Record<string, unknown>) =>
  new URLSearchParams(
    Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  ).toString();

const TASK_FIELDS = 'id title status assignee estimate_hours';

/** Creates through `protocol`. */
const creates: Record<Protocol, (w: Caller) => Promise<Answer>> = {
  'JSON-RPC': async (w) => remember(w, await rpc(w, 'carol', { op: 'create', object: 'task', args: newTask(w) }), (b) => b.id),
  REST: async (w) => remember(w, await send(w, 'POST', `${ROUTES.rest}/task`, 'carol', newTask(w)), (b) => b.id),
  OData: async (w) => remember(w, await send(w, 'POST', `${ROUTES.odata}/task`, 'carol', newTask(w)), (b) => b.id),
  GraphQL: async (w) =>
    remember(
      w,
      await graphql(
        w,
        'carol',
        `
          mutation C($input: TaskInput!) {
            createTask(input: $input) {
              id
            }
          }
        `,
        { input: newTask(w) },
      ),
      (b) => b.data?.createTask?.id,
    ),
};

const updates: Record<Protocol, (w: Caller, id: string) => Promise<Answer>> = {
  'JSON-RPC': (w, id) => rpc(w, 'carol', { op: 'update', object: 'task', args: { id, data: { status: someStatus() } } }),
  REST: (w, id) => send(w, 'PATCH', `${ROUTES.rest}/task/${encodeURIComponent(id)}`, 'carol', { status: someStatus() }),
  OData: (w, id) => send(w, 'PATCH', `${ROUTES.odata}/task${odataKey(id)}`, 'carol', { status: someStatus() }),
  GraphQL: (w, id) =>
    graphql(
      w,
      'carol',
      `
        mutation U($id: String!, $input: TaskInput!) {
          updateTask(id: $id, input: $input) {
            id
            status
          }
        }
      `,
      {
        id,
        input: { status: someStatus() },
      },
    ),
};

const deletes: Record<Protocol, (w: Caller, id: string) => Promise<Answer>> = {
  'JSON-RPC': (w, id) => rpc(w, 'carol', { op: 'delete', object: 'task', args: { id } }),
  REST: (w, id) => send(w, 'DELETE', `${ROUTES.rest}/task/${encodeURIComponent(id)}`, 'carol'),
  OData: (w, id) => send(w, 'DELETE', `${ROUTES.odata}/task${odataKey(id)}`, 'carol'),
  GraphQL: (w, id) =>
    graphql(
      w,
      'carol',
      `
        mutation D($id: String!) {
          deleteTask(id: $id) {
            id
            deleted
          }
        }
      `,
      { id },
    ),
};

/** A create, or once the worker holds enough tasks, a delete of its oldest. */
const write =
  (protocol: Protocol) =>
  (w: Caller): Promise<Answer> =>
    w.own.length > KEEP ? deletes[protocol](w, w.own.shift()!) : creates[protocol](w);

/** An update of one of the worker's tasks (a create when it has none yet). */
const change =
  (protocol: Protocol) =>
  (w: Caller): Promise<Answer> =>
    w.own.length ? updates[protocol](w, someOwn(w)) : creates[protocol](w);

export const OPERATIONS: Operation[] = [
  // JSON-RPC
  {
    protocol: 'JSON-RPC',
    name: 'find tasks',
    weight: 8,
    run: (w) =>
      rpc(w, 'carol', {
        op: 'find',
        object: 'task',
        args: { filters: [['status', '=', 'todo']], sort: [['created_at', 'desc']], top: 20 },
      }),
  },
  { protocol: 'JSON-RPC', name: 'count tasks (member)', weight: 3, run: (w) => rpc(w, 'alice', { op: 'count', object: 'task' }) },
  {
    protocol: 'JSON-RPC',
    name: 'find one project',
    weight: 3,
    run: (w) => rpc(w, 'alice', { op: 'findOne', object: 'project', args: 'prj-apollo' }),
  },
  { protocol: 'JSON-RPC', name: 'create/delete task', weight: 4, run: write('JSON-RPC') },
  { protocol: 'JSON-RPC', name: 'update task', weight: 3, run: change('JSON-RPC') },
  {
    protocol: 'JSON-RPC',
    name: 'create without title (400)',
    weight: 1,
    expects4xx: true,
    run: (w) => rpc(w, 'carol', { op: 'create', object: 'task', args: { project: 'prj-apollo' } }),
  },
  // REST
  {
    protocol: 'REST',
    name: 'list tasks (member)',
    weight: 8,
    run: (w) => send(w, 'GET', `${ROUTES.rest}/task?${q({ sort: '-created_at', top: 20 })}`, 'alice'),
  },
  { protocol: 'REST', name: 'get project', weight: 3, run: (w) => send(w, 'GET', `${ROUTES.rest}/project/prj-apollo`, 'carol') },
  { protocol: 'REST', name: 'create/delete task', weight: 4, run: write('REST') },
  { protocol: 'REST', name: 'update task', weight: 3, run: change('REST') },
  {
    protocol: 'REST',
    name: 'get missing task (404)',
    weight: 1,
    expects4xx: true,
    run: (w) => send(w, 'GET', `${ROUTES.rest}/task/no-such-task`, 'carol'),
  },
  // OData
  {
    protocol: 'OData',
    name: 'list tasks',
    weight: 8,
    run: (w) =>
      send(w, 'GET', `${ROUTES.odata}/task?$filter=${encodeURIComponent("status eq 'todo'")}&$orderby=created_at%20desc&$top=20`, 'carol'),
  },
  { protocol: 'OData', name: 'get project', weight: 3, run: (w) => send(w, 'GET', `${ROUTES.odata}/project('prj-apollo')`, 'alice') },
  { protocol: 'OData', name: 'create/delete task', weight: 4, run: write('OData') },
  { protocol: 'OData', name: 'update task', weight: 3, run: change('OData') },
  {
    protocol: 'OData',
    name: 'member deletes a task (403)',
    weight: 1,
    expects4xx: true,
    run: (w) => send(w, 'DELETE', `${ROUTES.odata}/task('tsk-apollo-design')`, 'alice'),
  },
  // GraphQL
  {
    protocol: 'GraphQL',
    name: 'task list (member)',
    weight: 8,
    run: (w) =>
      graphql(w, 'alice', `query L($f: String) { taskList(top: 20, filters: $f, sort: "-created_at") { ${TASK_FIELDS} } }`, {
        f: '[["done","=",false]]',
      }),
  },
  {
    protocol: 'GraphQL',
    name: 'project',
    weight: 3,
    run: (w) =>
      graphql(
        w,
        'carol',
        `
          {
            project(id: "prj-apollo") {
              id
              name
              status
              budget
            }
          }
        `,
      ),
  },
  { protocol: 'GraphQL', name: 'create/delete task', weight: 4, run: write('GraphQL') },
  { protocol: 'GraphQL', name: 'update task', weight: 3, run: change('GraphQL') },
];

const TOTAL_WEIGHT = OPERATIONS.reduce((sum, op) => sum + op.weight, 0);

export function pickOperation(): Operation {
  let r = Math.random() * TOTAL_WEIGHT;
  for (const op of OPERATIONS) if ((r -= op.weight) < 0) return op;
  return OPERATIONS[0];
}

/** Codes of the spec's error table that are the caller's to fix (4xx); anything else is the server's failure. */
const CLIENT_CODES = new Set([
  'INVALID_REQUEST',
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'RATE_LIMIT_EXCEEDED',
  'EXPAND_DEPTH_EXCEEDED',
  'GRAPHQL_VALIDATION_FAILED',
]);

/**
 * `ok`, `4xx <CODE>` (the caller's mistake: fine when expected, still never a failure of the
 * server), or `5xx <CODE>` / `graphql <CODE>` (a GraphQL error whose code is not a client one).
 */
export function classify(protocol: Protocol, answer: Answer): string {
  const code = () => {
    try {
      const body = JSON.parse(answer.body) as Body | null;
      return body?.error?.code ?? body?.errors?.[0]?.extensions?.code ?? body?.error?.message ?? 'no code';
    } catch {
      return 'no JSON body';
    }
  };
  if (answer.status >= 500) return `5xx ${answer.status} ${code()}`;
  if (answer.status >= 400) return `4xx ${answer.status} ${code()}`;
  if (protocol === 'GraphQL' && /"errors"\s*:/.test(answer.body)) {
    const c = code();
    return CLIENT_CODES.has(c) ? `4xx graphql ${c}` : `graphql ${c}`;
  }
  return 'ok';
}
