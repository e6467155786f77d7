/** The realtime plugin's options, checked when the plugin is made (a wrong value names its key). */
import { z } from 'zod';
import { parsePluginOptions, routePrefix } from '../../kernel';

export interface RealtimeOptions {
  /** Path of the WebSocket endpoint (default /api/realtime), under the instance's basePath. */
  path?: string;
  /** Seconds between server pings; a socket that has not answered the previous one is closed (default `limits.websocket.heartbeatSeconds`, 30). */
  heartbeatSeconds?: number;
  /** Subscriptions one socket may hold at once (default `limits.websocket.maxSubscriptionsPerConnection`, 100). */
  maxSubscriptions?: number;
  /** Largest client message in bytes (default 65536); a larger one gets an error, the socket stays open. */
  maxMessageBytes?: number;
  /**
   * Changes of the object a resuming `subscribe` (`after`) may replay from the change feed: more
   * changes since `after` than this (seen by the subscriber or not) is an error telling the client
   * to reload (default 1000).
   */
  maxReplay?: number;
}

/** The options with defaults; the limits left out are the kernel's shared WebSocket limits (`limits.websocket`). */
export type RealtimeSettings = Required<Pick<RealtimeOptions, 'path' | 'maxMessageBytes' | 'maxReplay'>> &
  Pick<RealtimeOptions, 'heartbeatSeconds' | 'maxSubscriptions'>;

/** Changes a resuming subscription may replay by default. */
export const DEFAULT_MAX_REPLAY = 1000;

const positiveInt = z
  .number({ error: 'must be a whole number, at least 1' })
  .int({ error: 'must be a whole number, at least 1' })
  .min(1, { error: 'must be a whole number, at least 1' });

const schema = z.strictObject(
  {
    path: routePrefix.optional(),
    heartbeatSeconds: z
      .number({ error: 'must be a number of seconds' })
      .positive({ error: 'must be a positive number of seconds' })
      .optional(),
    maxSubscriptions: positiveInt.optional(),
    maxMessageBytes: positiveInt.min(256, { error: 'must be at least 256' }).optional(),
    maxReplay: positiveInt.max(100_000, { error: 'may be at most 100000' }).optional(),
  },
  { error: 'must be a map {path?, heartbeatSeconds?, maxSubscriptions?, maxMessageBytes?, maxReplay?}' },
);

export function parseRealtimeOptions(input: unknown): RealtimeSettings {
  const o = parsePluginOptions('realtime', schema, input);
  return {
    path: o.path ?? '/api/realtime',
    heartbeatSeconds: o.heartbeatSeconds,
    maxSubscriptions: o.maxSubscriptions,
    maxMessageBytes: o.maxMessageBytes ?? 65536,
    maxReplay: o.maxReplay ?? DEFAULT_MAX_REPLAY,
  };
}
