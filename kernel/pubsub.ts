/**
 * Publish / subscribe between the parts of one deployment. The kernel holds one `pubsub` service:
 * in-process by default (this file: one kernel's listeners, nothing shared with another kernel);
 * a plugin such as `pubsub-redis` replaces it in `register` so that several instances share
 * channels. The kernel publishes every committed record change on RECORD_CHANGED_CHANNEL, so a
 * subscriber on instance A hears a change made on instance B.
 */
import type { RecordChange } from './engine/types';

export type PubSubListener = (message: unknown) => void;

export interface PubSub {
  /** Delivers `message` (JSON-serialisable) to every subscriber of `channel`, on every instance sharing this pubsub. */
  publish(channel: string, message: unknown): Promise<void>;
  /** Resolves once the subscription is active; the function it returns ends it. */
  subscribe(channel: string, listener: PubSubListener): Promise<() => Promise<void>>;
  /** Called once when the kernel stops, after every plugin has stopped. */
  close(): Promise<void>;
}

/** The channel of committed record changes (messages are RecordChange objects). */
export const RECORD_CHANGED_CHANNEL = 'record-changed';
export type RecordChangedMessage = RecordChange;

export class InProcessPubSub implements PubSub {
  private readonly channels = new Map<string, Set<PubSubListener>>();

  publish(channel: string, message: unknown): Promise<void> {
    // A message that is not JSON, or a listener that throws, rejects the promise (it does not throw).
    return new Promise((resolve) => {
      // A copy through JSON, as a networked pubsub would deliver it: no listener shares the publisher's objects.
      const text = JSON.stringify(message);
      for (const listener of [...(this.channels.get(channel) ?? [])]) listener(JSON.parse(text));
      resolve();
    });
  }

  subscribe(channel: string, listener: PubSubListener): Promise<() => Promise<void>> {
    let listeners = this.channels.get(channel);
    if (!listeners) this.channels.set(channel, (listeners = new Set()));
    // Wrapped: the same function subscribed twice is two subscriptions.
    const entry: PubSubListener = (m) => listener(m);
    listeners.add(entry);
    return Promise.resolve(() => {
      listeners.delete(entry);
      if (listeners.size === 0 && this.channels.get(channel) === listeners) this.channels.delete(channel);
      return Promise.resolve();
    });
  }

  close(): Promise<void> {
    this.channels.clear();
    return Promise.resolve();
  }
}
