/**
 * Adds deliveries to a datasource's deliveries table. The fan-out enqueues inside its transaction,
 * which also moves its cursor past their events (already claimed, when this instance's dispatcher
 * takes them once committed); the scheduler enqueues outside one, keyed by workflow and minute, so
 * that every instance may try and one row results.
 */
import { ObjectQLError } from '../../../kernel';
import type { DeliveryQueue } from '../types';
import { DELIVERY_TABLE, fromDeliveryRow, newDeliveryRow } from './table';

export function createDeliveryQueue(now: () => Date = () => new Date()): DeliveryQueue {
  return {
    async enqueue(ds, tx, deliveries, claim) {
      const at = now();
      const rows = deliveries.map((delivery) => newDeliveryRow(delivery, at, claim));
      await ds.createMany!(DELIVERY_TABLE, rows, tx);
      return claim ? rows.map(fromDeliveryRow) : [];
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
