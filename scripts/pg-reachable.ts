// Exit 0 when a PostgreSQL server answers at the given URL (used to decide whether the
// integration suite also runs against the real PostgreSQL).
import { createConnection } from 'node:net';

const url = new URL(process.argv[2] ?? 'postgres://127.0.0.1:5432');
const socket = createConnection({ host: url.hostname || '127.0.0.1', port: Number(url.port || 5432) });
const timer = setTimeout(() => {
  socket.destroy();
  process.exit(1);
}, 2000);
socket.on('connect', () => {
  clearTimeout(timer);
  socket.end();
  process.exit(0);
});
socket.on('error', () => {
  clearTimeout(timer);
  process.exit(1);
});
