/**
 * The floor for a get by id: express 5 answering `GET /bench_item/:id` with the record from a Map
 * (res.json), nothing else — `tsx bench/express-hello.ts <rows>`. Prints one JSON line once
 * listening: its pid and URL.
 */
import express from 'express';
import { makeData } from './scenarios';

const rows = Number(process.argv[2]);
const items = new Map(makeData(rows).items.map((i) => [i.id, i]));
const app = express();
app.get('/bench_item/:id', (req, res) => {
  const item = items.get(req.params.id);
  if (item) res.json(item);
  else res.sendStatus(404);
});
const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ pid: process.pid, url: `http://127.0.0.1:${port}` })}\n`);
});
