import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitRidge, hashedTerms, kMeans, leastSquares, nearestCentroid, predictPrompt, sparseDot, trainPromptModel, type PromptOutcomeRow, type SparseVec } from './prompt-model.ts';
import { scoreLearned } from './learned-scoring.ts';

const FC = { seed: 27, numRuns: 40 };

/** A sparse vector over `dim` from (index, value) pairs (later pairs of a repeated index win). */
function sparse(pairs: [number, number][]): SparseVec {
  const m = new Map(pairs);
  const idx = [...m.keys()].sort((a, b) => a - b);
  return { idx: Int32Array.from(idx), val: Float64Array.from(idx.map((i) => m.get(i)!)) };
}

describe('hashedTerms', () => {
  it('is a unit vector with sorted unique indices inside dim, and the same for the same words', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 30 }), fc.integer({ min: 8, max: 512 }), (words, dim) => {
        const v = hashedTerms(words.join(' '), dim);
        const norm = Math.sqrt(v.val.reduce((a, x) => a + x * x, 0));
        // Signed hashing can cancel a pair of colliding words to zero: the norm is 1 or the vector is empty of mass.
        expect(norm === 0 || Math.abs(norm - 1) < 1e-9).toBe(true);
        for (let j = 0; j < v.idx.length; j++) {
          expect(v.idx[j]).toBeGreaterThanOrEqual(0);
          expect(v.idx[j]).toBeLessThan(dim);
          if (j > 0) expect(v.idx[j]!).toBeGreaterThan(v.idx[j - 1]!);
        }
        expect(hashedTerms(words.join('  ').toUpperCase(), dim)).toEqual(v);
      }),
      FC,
    );
  });
});

describe('fitRidge', () => {
  it('recovers a planted linear gain (small λ, noise-free, more tasks than features)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 6, maxLength: 6 }), fc.double({ min: -0.5, max: 0.5, noNaN: true }), fc.integer({ min: 0, max: 1e6 }), (w, b, seed) => {
        let s = seed;
        const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
        const dim = 6;
        const xs = Array.from({ length: 120 }, () => sparse(Array.from({ length: 3 }, (): [number, number] => [Math.floor(rand() * dim), rand() * 2 - 1])));
        const y = xs.map((x) => b + sparseDot(x, w));
        const fit = fitRidge(xs, y, dim, 1e-6, 200);
        // Predictions match the planted function on the training rows.
        xs.forEach((x, t) => expect(fit.intercept + sparseDot(x, fit.w)).toBeCloseTo(y[t]!, 3));
      }),
      FC,
    );
  });

  it('is linear in its target: the fit of a difference is the difference of the fits (so per-model fits model the gain)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 15 }), fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 4, maxLength: 40 }), (rows) => {
        const xs = rows.map(([i, v]) => sparse([[i, v], [(i * 7) % 16, 0.5]]));
        const a = rows.map((r) => r[2]);
        const c = rows.map((r) => r[3]);
        const fa = fitRidge(xs, a, 16, 2, 200);
        const fc2 = fitRidge(xs, c, 16, 2, 200);
        const fd = fitRidge(xs, a.map((x, t) => x - c[t]!), 16, 2, 200);
        for (let i = 0; i < 16; i++) expect(fd.w[i]!).toBeCloseTo(fa.w[i]! - fc2.w[i]!, 6);
        expect(fd.intercept).toBeCloseTo(fa.intercept - fc2.intercept, 9);
      }),
      FC,
    );
  });

  it('refuses λ ≤ 0 and mismatched lengths', () => {
    expect(() => fitRidge([], [], 4, 0)).toThrow(RangeError);
    expect(() => fitRidge([sparse([[0, 1]])], [], 4, 1)).toThrow(RangeError);
  });
});

describe('kMeans', () => {
  it('assigns every vector to its nearest centroid, uses at most k clusters, and repeats for the same seed', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.stringMatching(/^[a-e]{1,2}$/), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 100 }), (docs, k, seed) => {
        const xs = docs.map((d) => hashedTerms(d.join(' '), 32));
        const fit = kMeans(xs, k, 32, seed);
        expect(fit.centroids.length).toBe(Math.min(k, xs.length));
        xs.forEach((x, t) => {
          expect(fit.assign[t]).toBeGreaterThanOrEqual(0);
          expect(fit.assign[t]).toBeLessThan(fit.centroids.length);
          expect(fit.assign[t]).toBe(nearestCentroid(x, fit.centroids));
        });
        expect(kMeans(xs, k, 32, seed)).toEqual(fit);
      }),
      FC,
    );
  });
});

describe('leastSquares', () => {
  it('recovers a line exactly', () => {
    fc.assert(
      fc.property(fc.double({ min: -5, max: 5, noNaN: true }), fc.double({ min: -5, max: 5, noNaN: true }), fc.uniqueArray(fc.integer({ min: 0, max: 1000 }), { minLength: 2, maxLength: 20 }), (a, b, x) => {
        const fit = leastSquares(x, x.map((v) => a * v + b));
        expect(fit.slope).toBeCloseTo(a, 6);
        expect(fit.intercept).toBeCloseTo(b, 4);
      }),
      FC,
    );
  });
});

describe('trainPromptModel + scoreLearned', () => {
  const row = (text: string, cluster: string | null, model: string, score: number, cost: number, key: string): PromptOutcomeRow => ({ task_key: key, terms: hashedTerms(text, 64), chars: text.length, workload_id: cluster, model, score, cost_usd: cost });
  const rows: PromptOutcomeRow[] = [];
  for (let i = 0; i < 20; i++) {
    const hard = i % 2 === 0;
    const text = hard ? 'prove the theorem' : 'spell the word';
    rows.push(row(text, 'c', 'cheap', hard ? 0 : 1, 0.001 * text.length, `t${i}`), row(text, 'c', 'strong', 1, 0.01 * text.length, `t${i}`));
  }
  const m = trainPromptModel(rows, { dim: 64, lambda: 0.5, cluster_prior: 5, k_clusters: 2, seed: 1, price_exponent: 1 });

  it('predicts the words\' gain and prices each prompt from its length', () => {
    const hard = predictPrompt(m, hashedTerms('prove the theorem', 64), 17, 'c');
    const easy = predictPrompt(m, hashedTerms('spell the word', 64), 14, 'c');
    const gain = (p: typeof hard) => p.find((x) => x.model === 'strong')!.p - p.find((x) => x.model === 'cheap')!.p;
    expect(gain(hard)).toBeGreaterThan(0.6);
    expect(gain(easy)).toBeLessThan(0.4);
    expect(hard.find((x) => x.model === 'strong')!.cost_usd).toBeCloseTo(0.17, 9);
  });

  it('chooses by utility: the strong model for the hard prompt at a middling cost_weight, the cheap one for the easy prompt', () => {
    const opts = { cost_weight: 0.3, min_confidence: 0, min_sample_size: 5 };
    expect(scoreLearned({ predictions: predictPrompt(m, hashedTerms('prove the theorem', 64), 17, 'c'), scale: 0.2 }, opts).chosen_model).toBe('strong');
    expect(scoreLearned({ predictions: predictPrompt(m, hashedTerms('spell the word', 64), 14, 'c'), scale: 0.2 }, opts).chosen_model).toBe('cheap');
    // Too few tasks behind the top model: slot 4 abstains.
    expect(scoreLearned({ predictions: predictPrompt(m, hashedTerms('prove the theorem', 64), 17, 'c'), scale: 0.2 }, { ...opts, min_sample_size: 100 }).chosen_model).toBeNull();
  });
});
