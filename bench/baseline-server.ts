// Baseline for the benchmarks: bare node:http answering a fixed JSON body, so figures
// can be read as "how much does Tally add over Node itself".
import { createServer } from 'node:http';

const body = process.env.BASELINE_BODY ?? '{"status":"OK"}';
createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');
