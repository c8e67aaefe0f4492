// Whether two matrix JSON reports say the same thing: every field equal except provenance fields that name
// the run rather than its figures (run id, paths, clock times, commit, per-setting timings). A speed change
// to the matrix protocol must leave this silent (main's report against the branch's, same options).
// Usage: npx tsx scripts/perf/matrix-report-diff.ts before.json after.json   (exit 1 and the paths on a difference)
import { readFileSync } from 'node:fs';

const IGNORED_PROVENANCE = new Set(['run_id', 'matrix_path', 'started_at', 'ended_at', 'metis_commit_sha', 'metis_dirty', 'db_path', 'timings_ms']);

function diff(a: unknown, b: unknown, path: string, out: string[]): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${path}: ${a.length} items vs ${b.length}`);
    else a.forEach((x, i) => diff(x, b[i], `${path}[${i}]`, out));
  } else if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
      if (path === '.provenance' && IGNORED_PROVENANCE.has(k)) continue;
      if (!(k in ao) || !(k in bo)) out.push(`${path}.${k}: only in ${k in ao ? 'the first' : 'the second'}`);
      else diff(ao[k], bo[k], `${path}.${k}`, out);
    }
  } else if (!Object.is(a, b)) out.push(`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
}

const [first, second] = process.argv.slice(2);
if (!first || !second) throw new Error('usage: matrix-report-diff.ts before.json after.json');
const out: string[] = [];
diff(JSON.parse(readFileSync(first, 'utf8')), JSON.parse(readFileSync(second, 'utf8')), '', out);
console.log(out.length === 0 ? `${first} = ${second} (provenance ids, paths and times aside)` : `${first} ≠ ${second}: ${out.length} differences`);
for (const line of out.slice(0, 30)) console.log(`  ${line}`);
process.exitCode = out.length === 0 ? 0 : 1;
