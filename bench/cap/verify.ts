/**
 * Before CAP is measured on a scenario: its answer must hold what ObjectQL's OData answer to the
 * same query holds (Scenario.answer), or the row reports no CAP figure — a peer failing fast, or
 * answering less, would flatter us.
 */
import { sent, type BenchData, type HttpRequest, type Scenario } from '../scenarios';

async function send(root: string, request: HttpRequest): Promise<unknown> {
  const res = await fetch(root + request.path, sent(request));
  const text = await res.text();
  if (!res.ok) throw new Error(`HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

/** undefined when CAP answers as ObjectQL does, else why not. */
export async function capDiffers(s: Scenario, d: BenchData, odataRoot: string, capRoot: string): Promise<string | undefined> {
  if (!s.cap || !s.odata || !s.answer) return 'no CAP form';
  let ours: unknown, theirs: unknown;
  try {
    ours = s.answer(await send(odataRoot, s.odata(d)));
  } catch (err) {
    return `ObjectQL's OData answer: ${(err as Error).message}`;
  }
  try {
    theirs = s.answer(await send(capRoot, s.cap(d)));
  } catch (err) {
    return `CAP: ${(err as Error).message}`;
  }
  const [a, b] = [JSON.stringify(ours), JSON.stringify(theirs)];
  return a === b ? undefined : `CAP answers ${b.slice(0, 300)}, ObjectQL ${a.slice(0, 300)}`;
}
