/**
 * The record triggers of the enabled workflows, by the object they watch, and the deliveries an
 * event makes: one per action of every workflow whose trigger it fires (match.ts).
 */
import type { NewDelivery, StoredEvent, Workflow } from '../types';
import { matchesTrigger } from './match';

export class Triggers {
  private byObject = new Map<string, Workflow[]>();

  /** The workflows to match events against (at start, and again whenever they are reloaded). */
  set(workflows: readonly Workflow[]): void {
    const map = new Map<string, Workflow[]>();
    for (const w of workflows) {
      if (!w.enabled || w.trigger.kind !== 'record') continue;
      const list = map.get(w.trigger.object) ?? [];
      list.push(w);
      map.set(w.trigger.object, list);
    }
    this.byObject = map;
  }

  /** The objects some enabled workflow watches. */
  objects(): string[] {
    return [...this.byObject.keys()];
  }

  watches(object: string): boolean {
    return this.byObject.has(object);
  }

  /** One delivery per action of every enabled workflow the event fires. */
  deliveriesOf(event: StoredEvent): NewDelivery[] {
    const fired = (this.byObject.get(event.object) ?? []).filter((w) => w.trigger.kind === 'record' && matchesTrigger(w.trigger, event));
    return fired.flatMap((workflow) =>
      workflow.actions.map((_action, index) => ({
        id: `${event.datasource}:${event.position}:${workflow.name}:${index}`,
        workflow: workflow.name,
        action: index,
        orderingKey: `${workflow.name}:${event.object}:${event.recordId}`,
        sequence: event.position * 1000 + index,
        payload: { event },
      })),
    );
  }
}
