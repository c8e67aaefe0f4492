import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// scripts/perf/numpy-crossfit.py is the floor matrix-crossfit.ts divides the protocol's CPU by: it must play the
// same cross-fit as the plain K-NN it stands for, or the ratio means nothing.
const SCRIPT = fileURLToPath(new URL('../scripts/perf/numpy-crossfit.py', import.meta.url));
const hasNumpy = spawnSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0;

/** A seeded stream of floats in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Fold {
  train: number[];
  test: number[];
  inner: { train: number[]; test: number[] }[];
}

/** The cross-fit by brute force: the K most similar training tasks vote; per weight the best (1 − w)·score − w·normalised cost. */
function expectedPicks(unit: Float32Array, dim: number, score: number[][], cost: number[][], weights: number[], k: number, folds: Fold[], n: number): number[][] {
  const picks = weights.map(() => new Array<number>(n).fill(-1));
  for (const { train, test } of folds)
    for (const q of test) {
      const sims = train.map((t) => {
        let dot = 0;
        for (let j = 0; j < dim; j++) dot += unit[q * dim + j]! * unit[t * dim + j]!;
        return { t, dot };
      });
      const near = sims.sort((a, b) => b.dot - a.dot).slice(0, k);
      const models = score[0]!.length;
      const s = Array.from({ length: models }, (_, m) => near.reduce((a, x) => a + score[x.t]![m]!, 0) / near.length);
      const c = Array.from({ length: models }, (_, m) => near.reduce((a, x) => a + cost[x.t]![m]!, 0));
      const lo = Math.min(...c);
      const spread = Math.max(...c) - lo;
      weights.forEach((w, i) => {
        const u = s.map((v, m) => (1 - w) * v - (spread > 0 ? (w * (c[m]! - lo)) / spread : 0));
        picks[i]![q] = u.indexOf(Math.max(...u));
      });
    }
  return picks;
}

describe('the numpy floor of matrix-crossfit', () => {
  it.skipIf(!hasNumpy)('plays the plain K-NN cross-fit: the same picks per weight, every held-out task and inner fold counted', () => {
    const n = 80;
    const dim = 6;
    const k = 5;
    const r = rng(7);
    const unit = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) {
      const v = Array.from({ length: dim }, () => r() * 2 - 1);
      const norm = Math.hypot(...v);
      v.forEach((x, j) => (unit[i * dim + j] = x / norm));
    }
    const score = Array.from({ length: n }, () => [r() < 0.5 ? 1 : 0, r() < 0.8 ? 1 : 0, r()]);
    const cost = Array.from({ length: n }, () => [r() * 0.001, 0.002 + r() * 0.01, r() * 0.005]);
    const weights = [0, 0.3, 0.7, 1];
    const foldOf = Array.from({ length: n }, (_, i) => i % 2);
    const folds: Fold[] = [0, 1].map((f) => {
      const train = foldOf.flatMap((x, t) => (x === f ? [] : [t]));
      const test = foldOf.flatMap((x, t) => (x === f ? [t] : []));
      return { train, test, inner: [0, 1].map((j) => ({ train: train.filter((_, x) => x % 2 !== j), test: train.filter((_, x) => x % 2 === j) })) };
    });
    const dir = mkdtempSync(join(tmpdir(), 'numpy-floor-'));
    try {
      writeFileSync(join(dir, 'vectors.f32'), new Uint8Array(unit.buffer));
      writeFileSync(join(dir, 'plan.json'), JSON.stringify({ n, dim, k, weights, score, cost, folds }));
      const out = spawnSync('python3', [SCRIPT, dir], { encoding: 'utf8' });
      expect(out.stderr).toBe('');
      expect(out.status).toBe(0);
      const got = JSON.parse(out.stdout) as { picks: number[][]; queries: number; cpu_ms: number };
      expect(got.picks).toEqual(expectedPicks(unit, dim, score, cost, weights, k, folds, n));
      // Every outer held-out task and every inner one is a query (the nested folds are work the floor pays too).
      expect(got.queries).toBe(n + n);
      expect(got.cpu_ms).toBeGreaterThanOrEqual(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
