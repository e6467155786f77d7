/**
 * THE permission matrix: what each user may do with each object of the sample application (plus
 * the matrix's own `note`, fixtures/), written out by hand from the permission files, not computed
 * from them. Every protocol adapter is held to exactly these expectations (data-cases.ts and
 * describe-cases.ts turn each cell into requests); a denial is FORBIDDEN (403) with
 * details.required_permission and details.user_roles, or UNAUTHORIZED (401) for the anonymous
 * caller; a record outside the caller's scope is NOT_FOUND, as if it did not exist; a hidden field
 * is rejected exactly like a field that does not exist.
 */
import { expect } from 'chai';
import type { Condition, Rec } from './protocol';
import type { UserName } from './users';

export const OBJECTS = ['project', 'task', 'expense', 'milestone', 'account', 'contact', 'note'] as const;
export type ObjectName = (typeof OBJECTS)[number];

/** Every record of each object after seeding (the sample's data files and fixtures/note.data.yml), sorted. */
export const RECORDS: Record<ObjectName, string[]> = {
  project: ['prj-apollo', 'prj-gemini', 'prj-mercury'],
  task: ['tsk-apollo-api', 'tsk-apollo-design', 'tsk-apollo-launch', 'tsk-gemini-kickoff', 'tsk-gemini-research', 'tsk-mercury-handover'],
  expense: ['exp-apollo-hardware', 'exp-apollo-travel', 'exp-mercury-licence'],
  milestone: ['ms-apollo-beta', 'ms-mercury-golive'],
  account: ['acc-acme', 'acc-globex', 'acc-initech'],
  contact: ['con-hank', 'con-jane', 'con-mia', 'con-raj'],
  note: ['n-alice', 'n-bob', 'n-carol'],
};

/**
 * One user's rights on one object.
 * - ops: the operations allowed at the object level, letters of 'RCUD' (read, create, update, delete).
 * - ids: the records the user reads (default: all of them when R is allowed).
 * - writeIds: the records the user may update and delete (default: ids).
 * - hidden: fields the user may not read; readonly: fields they read but may not write.
 */
export interface Cell {
  ops: string;
  ids?: string[];
  writeIds?: string[];
  hidden?: string[];
  readonly?: string[];
}

const NONE: Cell = { ops: '' };
const READ: Cell = { ops: 'R' };
const ALL: Cell = { ops: 'RCUD' };
/** An object without a permission file: open to every caller, anonymous ones included. */
const OPEN: Record<UserName, Cell> = {
  alice: ALL,
  bob: ALL,
  carol: ALL,
  victor: ALL,
  root: ALL,
  nobody: ALL,
  aliceViewer: ALL,
  anonymous: ALL,
};

export const GRID: Record<ObjectName, Record<UserName, Cell>> = {
  // project.permission.yml: managers all; members their own (owner), no delete, actual_cost hidden, budget read-only; viewers read.
  project: {
    alice: { ops: 'RCU', ids: ['prj-apollo', 'prj-mercury'], hidden: ['actual_cost'], readonly: ['budget'] },
    bob: { ops: 'RCU', ids: ['prj-gemini'], hidden: ['actual_cost'], readonly: ['budget'] },
    carol: ALL,
    victor: READ,
    root: ALL,
    nobody: NONE,
    // The viewer entry shows actual_cost and every project; only the member entry writes, and only hers, and neither field.
    aliceViewer: { ops: 'RCU', writeIds: ['prj-apollo', 'prj-mercury'], readonly: ['budget', 'actual_cost'] },
    anonymous: NONE,
  },
  // task.permission.yml: members the tasks assigned to them, no delete.
  task: {
    alice: { ops: 'RCU', ids: ['tsk-apollo-design', 'tsk-apollo-launch', 'tsk-mercury-handover'] },
    bob: { ops: 'RCU', ids: ['tsk-apollo-api', 'tsk-gemini-kickoff', 'tsk-gemini-research'] },
    carol: ALL,
    victor: READ,
    root: ALL,
    nobody: NONE,
    aliceViewer: { ops: 'RCU', writeIds: ['tsk-apollo-design', 'tsk-apollo-launch', 'tsk-mercury-handover'] },
    anonymous: NONE,
  },
  // expense.permission.yml: managers all, viewers read, members nothing.
  expense: { alice: NONE, bob: NONE, carol: ALL, victor: READ, root: ALL, nobody: NONE, aliceViewer: READ, anonymous: NONE },
  milestone: OPEN,
  account: OPEN,
  contact: OPEN,
  // fixtures/note.permission.yml: members their own notes, all operations, secret hidden, locked and
  // picture read-only; viewers every note, secret and attachment hidden.
  note: {
    alice: { ops: 'RCUD', ids: ['n-alice'], hidden: ['secret'], readonly: ['locked', 'picture'] },
    bob: { ops: 'RCUD', ids: ['n-bob'], hidden: ['secret'], readonly: ['locked', 'picture'] },
    carol: ALL,
    victor: { ops: 'R', hidden: ['secret', 'attachment'] },
    root: ALL,
    nobody: NONE,
    // The member entry shows the attachment, the viewer entry every note: she reads every note's attachment.
    aliceViewer: { ops: 'RCUD', writeIds: ['n-alice'], hidden: ['secret'], readonly: ['locked', 'picture'] },
    anonymous: NONE,
  },
};

/**
 * The object whose records hold files: server.ts seeds one per record and attachment field
 * (uploaded and attached by root); file-cases.ts reads who may download and upload from its cells.
 */
export const FILE_OBJECT: ObjectName = 'note';
/** Its attachment fields and their types (fixtures/note.object.yml). */
export const FILE_FIELDS: Record<string, 'file' | 'image'> = { attachment: 'file', picture: 'image' };

/** The cell with its defaults filled in. */
export function cell(object: ObjectName, user: UserName): Required<Cell> {
  const c = GRID[object][user];
  const ids = c.ops.includes('R') ? (c.ids ?? RECORDS[object]) : [];
  return { ops: c.ops, ids, writeIds: c.writeIds ?? ids, hidden: c.hidden ?? [], readonly: c.readonly ?? [] };
}

/** The objects a user may read. */
export function readable(user: UserName): ObjectName[] {
  return OBJECTS.filter((o) => GRID[o][user].ops.includes('R'));
}

/** An attachment value linking to a file outside the server's storage (valid, and no upload's). */
const LINK = (name: string, type: string) => ({ name, url: `https://files.example.com/${name}`, size: 1, type });

/**
 * Writes each object can take from any user allowed to: a new record (which lands inside the
 * caller's own scope: hooks make the caller the owner/assignee, notes name their owner), a harmless
 * change, and a valid value for each field a user may not read or write.
 */
export const WRITES: Record<
  ObjectName,
  { create(user: { id?: string }, visible: (o: ObjectName) => string[]): Rec; update: Rec; values: Rec }
> = {
  project: { create: () => ({ name: 'Matrix project' }), update: { priority: 'urgent' }, values: { actual_cost: 1, budget: 1 } },
  task: {
    create: (_u, visible) => ({ title: 'Matrix task', project: visible('project')[0] ?? 'prj-apollo' }),
    update: { estimate_hours: 9 },
    values: {},
  },
  expense: { create: () => ({ project: 'prj-apollo', amount: 10 }), update: { note: 'Matrix' }, values: {} },
  milestone: { create: () => ({ name: 'Matrix milestone' }), update: { reached: true }, values: {} },
  account: { create: () => ({ name: 'Matrix account' }), update: { phone: '+1 555 0000' }, values: {} },
  contact: { create: () => ({ last_name: 'Matrix' }), update: { first_name: 'Matrix' }, values: {} },
  note: {
    create: (u) => ({ title: 'Matrix note', owner: u.id ?? null }),
    update: { title: 'Matrix' },
    values: { secret: 'x', locked: true, attachment: LINK('x.txt', 'text/plain'), picture: LINK('x.png', 'image/png') },
  },
};

/** A field name no object has: a hidden field must be answered exactly as this one is. */
export const NO_SUCH_FIELD = 'no_such_field';
/** A record id no object has: a record out of scope must be answered exactly as this one is. */
export const NO_SUCH_ID = 'no-such-record';

/** The expected result of one explicit case. */
export type Expect =
  /** Success; `check` looks at the returned record or action result. */
  | { ok: true; check?: (result: Rec) => void }
  /** FORBIDDEN (UNAUTHORIZED when anonymous) naming this required_permission. */
  | { denied: string }
  /** NOT_FOUND, worded exactly as for an id that does not exist. */
  | { notFound: true }
  /** VALIDATION_ERROR naming `field`, worded exactly as when `field` holds `sameAs` instead. */
  | { invalid: string; sameAs: unknown };

export interface ExplicitCase {
  title: string;
  user: UserName;
  object: ObjectName;
  run: { op: 'create'; data: Rec } | { op: 'update'; id: string; data: Rec } | { op: 'action'; action: string; id?: string; input?: Rec };
  expect: Expect;
  /** After a success: fields of this record as stored. */
  stored?: { id: string; values: Rec };
}

/** Cases the grid cannot express: writes that would leave the caller's scope, and actions. */
export const EXPLICIT: ExplicitCase[] = [
  {
    title: 'a member creating a project owned by someone else',
    user: 'alice',
    object: 'project',
    run: { op: 'create', data: { name: 'Gift', owner: 'bob' } },
    expect: { denied: 'record_filters' },
  },
  {
    title: 'a member moving her project to someone else',
    user: 'alice',
    object: 'project',
    run: { op: 'update', id: 'prj-mercury', data: { owner: 'bob' } },
    expect: { denied: 'record_filters' },
  },
  {
    title: 'member+viewer creating a project for someone else',
    user: 'aliceViewer',
    object: 'project',
    run: { op: 'create', data: { name: 'Gift', owner: 'bob' } },
    expect: { denied: 'record_filters' },
  },
  {
    title: 'a member handing her note to someone else',
    user: 'alice',
    object: 'note',
    run: { op: 'update', id: 'n-alice', data: { owner: 'bob' } },
    expect: { denied: 'record_filters' },
  },
  {
    title: 'a member creating a task on a project he cannot see',
    user: 'bob',
    object: 'task',
    run: { op: 'create', data: { title: 'Sneaky', project: 'prj-apollo' } },
    expect: { invalid: 'project', sameAs: NO_SUCH_ID },
  },

  // Actions (project.action.ts): reading the object is required to run one; what the handler
  // writes is checked as the same caller.
  {
    title: 'the global action, as a member: her projects only',
    user: 'alice',
    object: 'project',
    run: { op: 'action', action: 'summary' },
    expect: { ok: true, check: projectsCounted(2) },
  },
  {
    title: 'the global action, as a manager: every project',
    user: 'carol',
    object: 'project',
    run: { op: 'action', action: 'summary' },
    expect: { ok: true, check: projectsCounted(3) },
  },
  {
    title: 'the global action, with no role',
    user: 'nobody',
    object: 'project',
    run: { op: 'action', action: 'summary' },
    expect: { denied: 'allow_read' },
  },
  {
    title: 'the global action, anonymously',
    user: 'anonymous',
    object: 'project',
    run: { op: 'action', action: 'summary' },
    expect: { denied: 'allow_read' },
  },
  {
    title: 'a record action on a project out of scope',
    user: 'alice',
    object: 'project',
    run: { op: 'action', action: 'close', id: 'prj-gemini', input: { reason: 'x' } },
    expect: { notFound: true },
  },
  {
    title: 'a record action whose handler edits, as a viewer',
    user: 'victor',
    object: 'project',
    run: { op: 'action', action: 'close', id: 'prj-apollo', input: { reason: 'x' } },
    expect: { denied: 'allow_edit' },
  },
  {
    title: 'a record action on her own project',
    user: 'alice',
    object: 'project',
    run: { op: 'action', action: 'close', id: 'prj-apollo', input: { reason: 'Delivered' } },
    expect: { ok: true },
    stored: { id: 'prj-apollo', values: { status: 'done' } },
  },
  {
    title: 'a record action, anonymously',
    user: 'anonymous',
    object: 'project',
    run: { op: 'action', action: 'close', id: 'prj-apollo', input: { reason: 'x' } },
    expect: { denied: 'allow_read' },
  },
];

/** summary's groups count this many projects in all. */
function projectsCounted(n: number) {
  return (result: Rec) =>
    expect(
      result.groups.reduce((sum: number, g: Rec) => sum + g.count, 0),
      JSON.stringify(result),
    ).to.equal(n);
}

/** Filters that reach for records out of scope by a visible field: they must find nothing. */
export const PROBES: Partial<Record<ObjectName, Partial<Record<UserName, Condition[]>>>> = {
  project: { alice: [['owner', '=', 'bob']], bob: [['owner', '!=', 'bob']] },
  task: { alice: [['assignee', '=', 'bob']], bob: [['project', '=', 'prj-mercury']] },
  note: { alice: [['owner', 'in', ['bob', 'carol']]], bob: [['title', 'contains', 'Alice']] },
};
