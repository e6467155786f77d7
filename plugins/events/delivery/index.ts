/**
 * Deliveries: the table that carries each workflow action to the outside at least once, the
 * fan-out that makes them from the feed after commit, the dispatcher that claims and runs them, the scheduler of schedule triggers, and the
 * admin API. See claim.ts for how instances share the work.
 */
export { DELIVERY_STATUSES, DELIVERY_TABLE, MAX_ERROR_LENGTH, deliveryTables, errorText, fromDeliveryRow, newDeliveryRow } from './table';
export { createDeliveryQueue } from './queue';
export {
  FANOUT_BATCH,
  FanOutLoop,
  fanOut,
  fanOutBacklog,
  type FanOutBacklog,
  type FanOutLoopOptions,
  type FanOutOptions,
  type FanOutResult,
} from './fanout';
export { backoffCeilingMs, mayRetry, retryDelayMs } from './backoff';
export { chainsByKey, eligibleRows, type OrderedRow } from './eligible';
export { claimDue, dueFilter, release, renewClaims, settle, type ClaimOptions } from './claim';
export { startDispatcher, type Dispatcher, type DispatcherOptions, type DispatcherSettings } from './dispatcher';
export { dueMinutes, scheduledDeliveries, startScheduler, type Scheduler, type SchedulerOptions } from './scheduler';
export {
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  changeDelivery,
  encodeCursor,
  listDeliveries,
  mountDeliveryRoutes,
  parseListParams,
  toItem,
  type DeliveryItem,
  type ListParams,
} from './routes';
