// The console's build: `make console` writes console/dist/, which the server serves at `/`.
// `npx vite --config console/vite.config.ts` serves it with hot reload, proxying /api to a
// Tally on :3000 (TALLY_URL to change it).
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 700 },
  server: { proxy: { '/api': process.env.TALLY_URL ?? 'http://127.0.0.1:3000' } },
});
