// Where an exact 1M-row query of the Tier 2 index spends its time, phase by phase, against the same
// bandwidth floor as scripts/perf/knn-scale.ts (one SIMD pass that only reads the int8 bytes):
// - kernel_only: the int8 kernel over every row with a floor no row reaches (nothing written back);
// - candidates: the whole int8 stage of a query (quantise the query, kernel, selection of the rows that
//   can reach the top 10), per kind of data, with how many rows it leaves to re-score in float32;
// - bounds: the same pass writing both bounds of every row (what the tests check, not the query path).
// Re-scoring the survivors from float32 rows is not here: knn-scale.ts times whole queries.
// Wall and CPU milliseconds are medians of QUERIES queries. Usage:
// node --import tsx scripts/perf/knn-phases.ts [rows (default 1000000)]
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createQuantizedRows } from '../../runtime/patterns/embeddings/quantized-rows.ts';
import { createSimdInt8Filter, int8TileBytes } from '../../runtime/patterns/embeddings/simd-int8-dots.ts';
import { bandwidthFloor } from './bandwidth-floor.ts';

const N = Number(process.argv[2] ?? 1_000_000);
const DIM = 384;
const QUERIES = 15;
let seed = 12_345;
const rand = () => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32) * 2 - 1;
const unit = (v: Float32Array) => {
  let s = 0;
  for (const x of v) s += x * x;
  const k = 1 / Math.sqrt(s);
  for (let i = 0; i < v.length; i++) v[i] = v[i]! * k;
  return v;
};
const centres = Array.from({ length: 1_000 }, () => unit(Float32Array.from({ length: DIM }, rand)));
/** A random unit row, or a clustered one (a centre plus noise), as knn-scale.ts builds them. */
const row = (kind: 'random' | 'clustered', v: Float32Array) => {
  if (kind === 'random') for (let i = 0; i < DIM; i++) v[i] = rand();
  else {
    const c = centres[Math.floor(((rand() + 1) / 2) * centres.length)]!;
    for (let i = 0; i < DIM; i++) v[i] = c[i]! + 0.06 * rand();
  }
  return unit(v);
};
const round3 = (x: number) => Number(x.toFixed(3));
/** Median wall and CPU ms of `f` over QUERIES calls. */
function time(f: (i: number) => void): { wall_ms: number; cpu_ms: number } {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    f(i);
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const med = (xs: number[]) => round3([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
  return { wall_ms: med(wall), cpu_ms: med(cpu) };
}

const out: Record<string, unknown> = { rows: N, dim: DIM, queries: QUERIES, load_average: loadavg().map(round3) };
{
  // The kernel alone, over tiles as the index lays them (four rows, then their scales, errors and norms).
  const bytes = Math.ceil(N / 4) * int8TileBytes(DIM);
  const k = createSimdInt8Filter(Math.ceil((bytes + DIM * 2 + 64) / 65_536))!;
  const data = new Int8Array(k.memory.buffer, 0, bytes);
  for (let i = 0; i < data.length; i++) data[i] = Math.imul(i, 2_654_435_761) >> 25;
  const th = { floor: Infinity, t: 1e-5, qNorm: 1, qErr: 1e-3, slack: 2 ** -126 };
  out.kernel_only = time(() => k.filter(0, bytes, bytes + DIM * 2, N, DIM, 0, th));
}
out.floor = bandwidthFloor(N * DIM);
for (const kind of ['random', 'clustered'] as const) {
  const m = createQuantizedRows(DIM, N);
  const v = new Float32Array(DIM);
  for (let r = 0; r < N; r++) m.set(r, row(kind, v));
  const qs = Array.from({ length: QUERIES }, () => row(kind, new Float32Array(DIM)));
  let survivors = 0;
  const candidates = time((i) => (survivors = Math.max(survivors, m.candidates(qs[i]!, N, 10).length)));
  out[kind] = { candidates, most_survivors: survivors, bounds: time((i) => m.bounds(qs[i]!, N)), floor_again: bandwidthFloor(N * DIM) };
}
console.log(JSON.stringify(out));
