import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from './temp.ts';

/** Where the viewer package (a devDependency, for this test only) is installed. */
export const INSPECT_VIEWER_DIR = join(REPO_ROOT, 'node_modules', '@metrevals', 'inspect-log-viewer');

// The page's script: Inspect's own App over its static-HTTP API, which reads `<log_dir>/listing.json` and the logs
// beside it. Built here rather than shipped, since the package is a React library, not a served app.
const ENTRY = `
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { App, clientApi, initializeStore, simpleHttpApi } from '@metrevals/inspect-log-viewer';
const logDir = new URLSearchParams(location.search).get('log_dir') ?? 'logs';
const api = clientApi(simpleHttpApi(logDir));
initializeStore(api, { downloadFiles: false, webWorkers: false, streamSamples: false, streamSampleData: false, nativeFind: false }, undefined);
createRoot(document.getElementById('app')).render(createElement(App, { api }));
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Inspect log viewer</title>
<link rel="stylesheet" href="viewer.css"></head>
<body><div id="app"></div><script type="module" src="viewer.js"></script></body></html>
`;

/** Writes the viewer page (index.html, viewer.js, viewer.css) into `outDir`; nothing is fetched from the network. */
export async function buildInspectViewer(outDir: string): Promise<void> {
  await build({
    stdin: { contents: ENTRY, resolveDir: INSPECT_VIEWER_DIR, loader: 'js' },
    bundle: true,
    format: 'esm',
    outfile: join(outDir, 'viewer.js'),
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
    minify: false,
  });
  writeFileSync(join(outDir, 'viewer.css'), readFileSync(join(INSPECT_VIEWER_DIR, 'lib', 'styles', 'index.css')));
  writeFileSync(join(outDir, 'index.html'), PAGE);
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };

/** A loopback-only static server over `root` (GET only, no path outside it); resolves with its base URL. */
export async function serveStatic(root: string): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = normalize(join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
    if (req.method !== 'GET' || !(path + sep).startsWith(root + sep) && path !== root) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = readFileSync(path.endsWith(sep) ? join(path, 'index.html') : path);
      res.writeHead(200, { 'content-type': TYPES[extname(path) || '.html'] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    server,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
