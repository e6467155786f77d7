/**
 * Adds deliveries to a datasource's deliveries table. The outbox enqueues inside the write's
 * transaction, so a delivery exists exactly when its event committed; the scheduler enqueues
 * outside one, keyed by workflow and minute, so that every instance may try and one row results.
 */
import { ObjectQLError } from '../../../kernel';
import type { DeliveryQueue } from '../types';
import { DELIVERY_TABLE, newDeliveryRow } from './table';

export function createDeliveryQueue(now: () => Date = () => new Date()): DeliveryQueue {
  return {
    async enqueue(ds, tx, deliveries) {
      const at = now();
      for (const delivery of deliveries) await ds.create(DELIVERY_TABLE, newDeliveryRow(delivery, at), tx);
    },
    async enqueueOnce(ds, delivery) {
      try {
        await ds.create(DELIVERY_TABLE, newDeliveryRow(delivery, now()));
        return true;
      } catch (err) {
        // Its id exists already: another instance (or an earlier tick) enqueued it.
        if (err instanceof ObjectQLError && err.code === 'CONFLICT') return false;
        throw err;
      }
    },
  };
}
