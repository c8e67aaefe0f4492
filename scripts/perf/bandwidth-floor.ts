// The memory-bandwidth floor that scripts/perf/knn-scale.ts (and knn-phases.ts) set the exact int8 query
// against: one single-threaded SIMD pass that only reads `bytes` bytes, median of 9 passes, in a fresh
// memory whose pages are touched first. Shared so that every script measures the floor the same way.
import { performance } from 'node:perf_hooks';
import { get, I32, kernelModule, lazyKernel, set, simd, V128, V128_LOAD, V128_ZERO, vec } from '../../runtime/patterns/embeddings/wasm-bytes.ts';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.max(0, Math.ceil(0.5 * s.length) - 1))]!.toFixed(3));
};

// The floor: a SIMD loop that ORs every 16 bytes into two accumulators, no arithmetic worth the name.
const [M, , OUT, ROWS, WIDTH, END, ACC, ACC2] = [0, 1, 2, 3, 4, 5, 6, 7] as const;
const V128_OR = simd(0x50);
const READ_BODY = [
  ...vec([[1, I32], [2, V128]]),
  ...get(M), ...get(ROWS), ...get(WIDTH), 0x6c, 0x6a, ...set(END), // END = m + rows·width
  ...V128_ZERO, ...set(ACC),
  ...V128_ZERO, ...set(ACC2),
  0x02, 0x40, 0x03, 0x40, // block, loop
  ...get(M), ...get(END), 0x4f, 0x0d, 1, // m >= END → done
  ...get(ACC), ...get(M), ...V128_LOAD(0), ...V128_OR, ...set(ACC),
  ...get(ACC2), ...get(M), ...V128_LOAD(16), ...V128_OR, ...set(ACC2),
  ...get(ACC), ...get(M), ...V128_LOAD(32), ...V128_OR, ...set(ACC),
  ...get(ACC2), ...get(M), ...V128_LOAD(48), ...V128_OR, ...set(ACC2),
  ...get(M), 0x41, 0xc0, 0x00, 0x6a, ...set(M), // m += 64
  0x0c, 0, 0x0b, 0x0b,
  ...get(OUT), ...get(ACC), ...get(ACC2), ...V128_OR, ...simd(0x0b), 4, 0, // v128.store
  0x0b,
];
const readKernel = lazyKernel(kernelModule('read', 5, READ_BODY), 'read');

/**
 * One read pass over `bytes` bytes (a multiple of 64) of a memory allocated once, pages touched first;
 * each call returns its wall and process-CPU milliseconds. For passes a caller interleaves with its own
 * work, so that both are measured under the same load (a fresh memory per pass would also make the
 * caller's work pay for freeing the last one).
 */
export function createFloorPass(bytes: number): () => { ms: number; cpu_ms: number } {
  const k = readKernel(Math.ceil((bytes + 64) / 65_536))!;
  new Uint8Array(k.memory.buffer, 0, bytes).fill(1);
  return () => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    k.dots(0, 0, bytes, bytes / 64, 64);
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    return { ms, cpu_ms: (c.user + c.system) / 1000 };
  };
}

/**
 * Median ms of one read pass over `bytes` bytes (a multiple of 64) in a fresh memory, pages touched first;
 * `cpu_ms` is the median of the process's CPU time over the same passes (what a loaded machine's wall
 * time hides: the pass waiting for a core).
 */
export function bandwidthFloor(bytes: number, passes = 9): { ms: number; cpu_ms: number; gb_per_s: number } {
  const pass = createFloorPass(bytes);
  const runs = Array.from({ length: passes }, pass);
  const ms = median(runs.map((r) => r.ms));
  return { ms, cpu_ms: median(runs.map((r) => r.cpu_ms)), gb_per_s: Number((bytes / ms / 1e6).toFixed(2)) };
}
