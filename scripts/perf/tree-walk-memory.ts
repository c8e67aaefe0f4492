// Memory and time of the workspace walk over N empty files in one directory (default 1,000,000),
// against its peer from the same run: the walk it replaced (a stack of full paths, readdirSync per
// directory), each in its own process so its peak RSS is its own; then removeTree's time. Prints JSON.
//
//   nice npx tsx scripts/perf/tree-walk-memory.ts [--files N]
import { spawnSync } from 'node:child_process';
import { closeSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { diskUsage } from '../../runtime/sandbox/resource-limits.ts';
import { removeTree } from '../../runtime/sandbox/remove-tree.ts';

const { values } = parseArgs({ options: { files: { type: 'string' }, measure: { type: 'string' }, dir: { type: 'string' } } });

/** The walk before issue 29: every path of a directory pushed at once, so memory grows with the widest directory. */
function previousWalk(root: string): number {
  const seen = new Set<string>();
  let apparent = 0;
  const stack = [root];
  while (stack.length > 0) {
    const p = stack.pop()!;
    let st;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    if (st.nlink > 1 && !st.isDirectory()) {
      const key = `${st.dev}:${st.ino}`;
      if (seen.has(key)) continue;
      seen.add(key);
    }
    apparent += st.size;
    if (st.isDirectory()) for (const name of readdirSync(p)) stack.push(join(p, name));
  }
  return apparent;
}

if (values.measure) {
  const dir = values.dir!;
  const startRss = process.memoryUsage().rss;
  const t0 = performance.now();
  if (values.measure === 'previous') previousWalk(dir);
  else if (values.measure === 'walk') diskUsage([dir], Infinity, { maxEntries: Infinity, maxDepth: 256 });
  else removeTree(dir);
  console.log(JSON.stringify({ measure: values.measure, ms: Math.round(performance.now() - t0), start_rss_mb: Math.round(startRss / 1e6), max_rss_mb: Math.round((process.resourceUsage().maxRSS * 1024) / 1e6) }));
} else {
  const files = Number(values.files ?? 1_000_000);
  const root = mkdtempSync('/var/tmp/metis-walk-');
  const dir = join(root, 'tree');
  mkdirSync(join(dir, 'f'), { recursive: true });
  for (let i = 0; i < files; i++) closeSync(openSync(join(dir, 'f', String(i)), 'w'));
  const self = fileURLToPath(import.meta.url);
  const run = (measure: string) => JSON.parse(spawnSync(process.execPath, ['--import', 'tsx', self, '--measure', measure, '--dir', dir], { encoding: 'utf8' }).stdout) as Record<string, number | string>;
  const previous = run('previous');
  const walk = run('walk');
  const remove = run('remove');
  removeTree(root);
  console.log(JSON.stringify({ bench: 'tree_walk_memory', files, walk, peer_previous_walk: previous, remove_tree: remove }, null, 1));
}
