/**
 * Publishers of `publish` actions: NATS JetStream and RabbitMQ. Each opens its connection at its
 * first publish (the client library is loaded then too), keeps it for the next ones, and opens a
 * new one after it was lost; `close()` ends it. A broker that is down makes the publish throw, and
 * the dispatcher retries the delivery later. The delivery's id goes with every message (JetStream's
 * `Nats-Msg-Id`, which the stream de-duplicates within its window; AMQP's `message-id`): a
 * delivery published twice (a retry after a lost acknowledgement) can be told apart by consumers.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { ChannelModel, ConfirmChannel } from 'amqplib';

export interface NatsSettings {
  servers: string | string[];
  /** The stream the subjects are kept in: created at the first publish if missing, extended to cover a subject it does not. */
  stream?: string;
}

export interface AmqpSettings {
  url: string;
}

/** How long connecting and one publish may take before the action fails. */
const CONNECT_TIMEOUT_MS = 5000;
const PUBLISH_TIMEOUT_MS = 10_000;

/** Whether a NATS subject pattern (`a.*.c`, `a.>`) covers a subject. */
export function subjectCovers(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}

interface NatsLink {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

export class NatsPublisher {
  private link?: Promise<NatsLink>;
  /** The link `link` resolved to (to tell whether a closed connection is still the current one). */
  private current?: NatsLink;
  /** Subjects known to be in the stream (checked once each). */
  private readonly ensured = new Map<string, Promise<void>>();

  constructor(private readonly settings: NatsSettings) {}

  async publish(subject: string, data: Uint8Array, messageId: string): Promise<void> {
    const link = await this.connection();
    if (this.settings.stream) await this.ensureStream(link, subject);
    try {
      await link.js.publish(subject, data, { msgID: messageId, timeout: PUBLISH_TIMEOUT_MS });
    } catch (err) {
      throw new Error(`NATS publish to '${subject}' failed: ${(err as Error).message}`, { cause: err });
    }
  }

  private connection(): Promise<NatsLink> {
    this.link ??= this.open().catch((err: unknown) => {
      this.link = undefined;
      throw new Error(`NATS unreachable at ${String(this.settings.servers)}: ${(err as Error).message}`);
    });
    return this.link;
  }

  private async open(): Promise<NatsLink> {
    const { connect } = await import('@nats-io/transport-node');
    const { jetstream, jetstreamManager } = await import('@nats-io/jetstream');
    const nc = await connect({ servers: this.settings.servers, name: 'objectql-events', timeout: CONNECT_TIMEOUT_MS });
    const link = {
      nc,
      js: jetstream(nc, { timeout: PUBLISH_TIMEOUT_MS }),
      jsm: await jetstreamManager(nc, { timeout: PUBLISH_TIMEOUT_MS }),
    };
    // Closed for good (the client gave up reconnecting): the next publish connects again.
    void nc.closed().then(() => {
      if (this.link && this.current === link) {
        this.link = undefined;
        this.ensured.clear();
      }
    });
    this.current = link;
    return link;
  }

  private ensureStream(link: NatsLink, subject: string): Promise<void> {
    let done = this.ensured.get(subject);
    if (!done) {
      done = this.coverSubject(link, subject).catch((err: unknown) => {
        this.ensured.delete(subject);
        throw new Error(`NATS stream '${this.settings.stream}' for '${subject}': ${(err as Error).message}`);
      });
      this.ensured.set(subject, done);
    }
    return done;
  }

  private async coverSubject(link: NatsLink, subject: string): Promise<void> {
    const { JetStreamApiError, JetStreamApiCodes } = await import('@nats-io/jetstream');
    const name = this.settings.stream as string;
    let subjects: string[];
    try {
      subjects = (await link.jsm.streams.info(name)).config.subjects ?? [];
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) {
        try {
          await link.jsm.streams.add({ name, subjects: [subject] });
          return;
        } catch (addErr) {
          // Another instance made it first: read it again below.
          if (!(addErr instanceof JetStreamApiError)) throw addErr;
          subjects = (await link.jsm.streams.info(name)).config.subjects ?? [];
        }
      } else {
        throw err;
      }
    }
    if (!subjects.some((p) => subjectCovers(p, subject))) await link.jsm.streams.update(name, { subjects: [...subjects, subject] });
  }

  async close(): Promise<void> {
    const link = this.link;
    this.link = undefined;
    this.current = undefined;
    this.ensured.clear();
    if (!link) return;
    try {
      await (await link).nc.drain();
    } catch {
      /* never connected, or closed already */
    }
  }
}

interface AmqpLink {
  conn: ChannelModel;
  ch: ConfirmChannel;
}

export class AmqpPublisher {
  private link?: Promise<AmqpLink>;
  /** Queues asserted on the current channel. */
  private readonly queues = new Set<string>();

  constructor(private readonly settings: AmqpSettings) {}

  /** Publishes a persistent message and waits for the broker's confirm; `exchange` '' is the default exchange, `routingKey` the queue (asserted, durable). */
  async publish(exchange: string, routingKey: string, content: Buffer, messageId: string): Promise<void> {
    const { ch } = await this.channel();
    try {
      if (exchange === '' && !this.queues.has(routingKey)) {
        await ch.assertQueue(routingKey, { durable: true });
        this.queues.add(routingKey);
      }
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no confirm within ${PUBLISH_TIMEOUT_MS} ms`)), PUBLISH_TIMEOUT_MS);
        ch.publish(
          exchange,
          routingKey,
          content,
          { persistent: true, messageId, contentType: 'application/json', timestamp: Math.floor(Date.now() / 1000) },
          (err) => {
            clearTimeout(timer);
            if (err) reject(err instanceof Error ? err : new Error('the broker refused the message'));
            else resolve();
          },
        );
      });
    } catch (err) {
      throw new Error(
        `RabbitMQ publish to ${exchange === '' ? `queue '${routingKey}'` : `exchange '${exchange}' (routing key '${routingKey}')`} failed: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }

  private channel(): Promise<AmqpLink> {
    this.link ??= this.open().catch((err: unknown) => {
      this.link = undefined;
      throw new Error(`RabbitMQ unreachable at ${redactUrl(this.settings.url)}: ${(err as Error).message}`);
    });
    return this.link;
  }

  private async open(): Promise<AmqpLink> {
    const amqp = await import('amqplib');
    const conn = await amqp.connect(this.settings.url, { timeout: CONNECT_TIMEOUT_MS });
    let ch: ConfirmChannel;
    try {
      ch = await conn.createConfirmChannel();
    } catch (err) {
      await conn.close().catch(() => {});
      throw err;
    }
    const link: AmqpLink = { conn, ch };
    const forget = () => {
      // A channel error (a missing exchange, a queue declared otherwise) closes the channel: start afresh.
      if (this.link) {
        void this.link.then((current) => {
          if (current === link) {
            this.link = undefined;
            this.queues.clear();
            conn.close().catch(() => {});
          }
        });
      }
    };
    conn.on('error', () => {}); // 'close' follows
    conn.on('close', forget);
    ch.on('error', () => {});
    ch.on('close', forget);
    return link;
  }

  async close(): Promise<void> {
    const link = this.link;
    this.link = undefined;
    this.queues.clear();
    if (!link) return;
    try {
      const { conn } = await link;
      await conn.close();
    } catch {
      /* never connected, or closed already */
    }
  }
}

/** The URL without its password. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<invalid URL>';
  }
}
