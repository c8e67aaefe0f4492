// Embedding-cache write throughput at a 10k-row cap (harness §12: ≥ 10,000 writes/s). Writes go in batches
// (the recording path's unit) and the cap trims in amortised passes (§17.2). Prints one JSON object.
// Usage: npx tsx scripts/perf/embedding-cache.ts [writes] [batch]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSystemClock } from '../../runtime/core/clock.ts';
import { createEmbeddingCache, l2Normalize, upgradeToV2 } from '../../runtime/patterns/index.ts';

const N = Number(process.argv[2] ?? 50_000);
const BATCH = Number(process.argv[3] ?? 100);
const CAP = 10_000;
const dir = mkdtempSync(join(tmpdir(), 'embcache-'));
const db = new Database(join(dir, 'p.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
upgradeToV2(db);
const cache = createEmbeddingCache(db, createSystemClock(), { max_rows: CAP, max_age_days: 90 });
const v = l2Normalize(Float32Array.from({ length: 384 }, (_, i) => Math.sin(i)));
// Pre-fill to the cap so every measured write runs against a full cache.
for (let i = 0; i < CAP; i += BATCH) cache.putMany('perf', Array.from({ length: BATCH }, (_, j) => ({ text: `pre ${i + j}`, vector: v })));
const t0 = performance.now();
for (let i = 0; i < N; i += BATCH) cache.putMany('perf', Array.from({ length: BATCH }, (_, j) => ({ text: `text ${i + j}`, vector: v })));
const ms = performance.now() - t0;
const rows = cache.stats().rows;
let single = 0;
const t1 = performance.now();
for (let i = 0; i < 5_000; i++) {
  cache.putMany('perf', [{ text: `single ${i}`, vector: v }]);
  single++;
}
const msSingle = performance.now() - t1;
db.close();
rmSync(dir, { recursive: true, force: true });
const writesPerS = Math.round((N / ms) * 1000);
const singlePerS = Math.round((single / msSingle) * 1000);
console.log(
  JSON.stringify({
    cap: CAP,
    dim: 384,
    writes: N,
    batch: BATCH,
    writes_per_s: writesPerS,
    rows_after: rows,
    max_rows_bound: CAP + Math.ceil(CAP / 10),
    single_write_tx_per_s: singlePerS,
    seed_writes_per_s_at_cap: 150,
    target_writes_per_s: 10_000,
    meets_target: Math.min(writesPerS, singlePerS) >= 10_000,
  }),
);
