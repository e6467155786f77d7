/**
 * The soak's listeners: realtime sockets (carol and alice, half each, subscribed to tasks) and
 * graphql-ws clients (the same users, subscribed to taskCreated/Updated/Deleted), open for the whole
 * soak. Counts the events each kind receives, per 10 s window, and every failure: an error message,
 * a subscription the server ended, a socket closed before the soak closed it.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { apiKey, bearer, ROUTES, type Target, type UserName } from './target';
import { ask, closeSocket, openSocket, text } from './ws-clients';

export interface Listeners {
  /** Events received, by kind. */
  events: { realtime: number; graphql: number };
  /** Events per window index, by kind. */
  eventsAt: { realtime: number[]; graphql: number[] };
  failures: string[];
  close(): Promise<void>;
}

export async function listen(target: Target, count: number, windowOf: (at: number) => number): Promise<Listeners> {
  const users: UserName[] = ['carol', 'alice'];
  const events = { realtime: 0, graphql: 0 };
  const eventsAt = { realtime: [] as number[], graphql: [] as number[] };
  const failures: string[] = [];
  let closing = false;
  const count1 = (kind: 'realtime' | 'graphql') => {
    events[kind]++;
    const w = windowOf(Date.now());
    eventsAt[kind][w] = (eventsAt[kind][w] ?? 0) + 1;
  };

  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i++) {
    const user = users[i % users.length];
    const ws = await openSocket(target.ws + ROUTES.realtime, { headers: apiKey(user) });
    sockets.push(ws);
    ws.on('message', (data: WebSocket.RawData) => {
      const m = JSON.parse(text(data)) as { type: string; code?: string; message?: string };
      if (m.type === 'change') count1('realtime');
      else if (m.type === 'error') failures.push(`realtime ${user}: ${m.code} ${m.message}`);
    });
    ws.on('close', (code, reason) => {
      if (!closing) failures.push(`realtime ${user}: socket closed ${code} ${reason.toString()}`);
    });
    const ack = await ask(ws, { type: 'subscribe', id: 'tasks', object: 'task' });
    if (ack.type !== 'ack') throw new Error(`realtime subscribe as ${user}: ${JSON.stringify(ack)}`);
  }

  const clients: Client[] = [];
  const subscribed: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const user = users[i % users.length];
    const authorization = await bearer(user);
    const client = createClient({
      url: target.ws + ROUTES.graphql,
      webSocketImpl: WebSocket,
      connectionParams: { authorization },
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: (err) => failures.push(`graphql-ws ${user}: ${String((err as Error)?.message ?? JSON.stringify(err))}`),
      on: {
        closed: (event) => {
          if (!closing) failures.push(`graphql-ws ${user}: socket closed ${(event as { code?: number }).code}`);
        },
      },
    });
    clients.push(client);
    for (const field of ['taskCreated', 'taskUpdated', 'taskDeleted']) {
      subscribed.push(
        new Promise<void>((resolve) => {
          client.subscribe(
            { query: `subscription { ${field} { id status } }` },
            {
              next: (result) => {
                if (result.errors?.length) failures.push(`graphql-ws ${user} ${field}: ${JSON.stringify(result.errors).slice(0, 200)}`);
                else count1('graphql');
              },
              error: (err) => failures.push(`graphql-ws ${user} ${field}: ${JSON.stringify(err).slice(0, 200)}`),
              complete: () => {
                if (!closing) failures.push(`graphql-ws ${user} ${field}: completed by the server`);
              },
            },
          );
          resolve();
        }),
      );
    }
  }
  await Promise.all(subscribed);
  // graphql-ws acknowledges a subscription only by its first event: let the server count them first.
  await new Promise((r) => setTimeout(r, 500));

  return {
    events,
    eventsAt,
    failures,
    close: async () => {
      closing = true;
      for (const ws of sockets) closeSocket(ws);
      await Promise.all(clients.map((c) => Promise.resolve(c.dispose())));
    },
  };
}
