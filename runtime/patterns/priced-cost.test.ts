import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashedTerms, predictPrompt, pricedCost, trainPromptModel, type PromptOutcomeRow } from './prompt-model.ts';
import { scoreLearned } from './learned-scoring.ts';

const FC = { seed: 27, numRuns: 200 };
const usd = fc.double({ min: 1e-7, max: 1, noNaN: true });

describe('pricedCost', () => {
  it('is the mean cost at 0, the prompt cost at 1, and between the two, monotone in the exponent, in between', () => {
    fc.assert(
      fc.property(usd, usd, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (prompt, mean, a, b) => {
        expect(pricedCost(prompt, mean, 0)).toBe(mean);
        expect(pricedCost(prompt, mean, 1)).toBe(prompt);
        const x = pricedCost(prompt, mean, a);
        expect(x).toBeGreaterThanOrEqual(Math.min(prompt, mean) * (1 - 1e-12));
        expect(x).toBeLessThanOrEqual(Math.max(prompt, mean) * (1 + 1e-12));
        // Moving the exponent toward 1 moves the cost toward the prompt's own.
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(Math.abs(pricedCost(prompt, mean, hi) - prompt)).toBeLessThanOrEqual(Math.abs(pricedCost(prompt, mean, lo) - prompt) * (1 + 1e-12) + 1e-18);
      }),
      FC,
    );
  });

  it('refuses an exponent outside [0, 1]', () => {
    expect(() => pricedCost(1, 1, -0.1)).toThrow(RangeError);
    expect(() => pricedCost(1, 1, 1.5)).toThrow(RangeError);
    expect(() => pricedCost(1, 1, Number.NaN)).toThrow(RangeError);
  });
});

// Hard prompts (only the strong model solves them) come short and long; the cost of a prompt grows with its
// length. Ranked by gain per extra dollar (exponent 1) the long hard prompt loses the strong model to its
// price at a cost_weight where the short one keeps it; ranked by gain (exponent 0) both keep it.
describe('price_exponent in the learned scorer', () => {
  const long = `prove the theorem ${'carefully '.repeat(40)}`.trim();
  const short = 'prove the theorem';
  const easy = 'spell the word';
  const row = (text: string, model: string, score: number, cost: number, key: string): PromptOutcomeRow => ({ task_key: key, terms: hashedTerms(text, 64), chars: text.length, workload_id: 'c', model, score, cost_usd: cost });
  const rows: PromptOutcomeRow[] = [];
  [short, long, easy, easy].forEach((text, j) => {
    for (let i = 0; i < 10; i++) rows.push(row(text, 'cheap', text === easy ? 1 : 0, 1e-5 * text.length, `${j}-${i}`), row(text, 'strong', 1, 1e-4 * text.length, `${j}-${i}`));
  });
  const pick = (alpha: number, text: string) => {
    const m = trainPromptModel(rows, { dim: 64, lambda: 0.5, cluster_prior: 5, k_clusters: 0, seed: 1, price_exponent: alpha });
    const means = [...m.meanCost.values()];
    return scoreLearned({ predictions: predictPrompt(m, hashedTerms(text, 64), text.length, 'c'), scale: Math.max(...means) - Math.min(...means) }, { cost_weight: 0.3, min_confidence: 0, min_sample_size: 1 }).chosen_model;
  };

  it('per prompt (1): the short hard prompt goes strong, the long one cheap', () => {
    expect(pick(1, short)).toBe('strong');
    expect(pick(1, long)).toBe('cheap');
  });

  it('at the mean (0): both hard prompts go strong, the easy one cheap', () => {
    expect(pick(0, short)).toBe('strong');
    expect(pick(0, long)).toBe('strong');
    expect(pick(0, easy)).toBe('cheap');
  });
});
