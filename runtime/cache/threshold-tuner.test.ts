import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../core/seeded-random.ts';
import { AdaptiveThresholdTuner, newEntryThresholdState } from './threshold-tuner.ts';

describe('AdaptiveThresholdTuner priors (§5.4)', () => {
  const t = new AdaptiveThresholdTuner();
  it('answers the spec table for known task types', () => {
    expect(t.getThreshold('faq', 'high')).toBe(0.7);
    expect(t.getThreshold('coding', 'low')).toBe(0.97);
    expect(t.getThreshold('legal', 'medium')).toBe(0.92);
  });
  it('falls back to general for an unknown task type', () => {
    expect(t.getThreshold('astrology', 'medium')).toBe(0.85);
  });
  it('keeps an update and refuses out-of-range values', () => {
    const u = new AdaptiveThresholdTuner();
    u.updateThreshold('faq', 'medium', 0.75);
    expect(u.getThreshold('faq', 'medium')).toBe(0.75);
    expect(() => u.updateThreshold('faq', 'medium', 1.5)).toThrow(RangeError);
  });
  it('applies the embedder offset and refuses a bad configuration', () => {
    expect(new AdaptiveThresholdTuner({ priorOffset: -0.2 }).getThreshold('general', 'medium')).toBeCloseTo(0.65);
    expect(() => new AdaptiveThresholdTuner({ delta: 0 })).toThrow(RangeError);
    expect(() => new AdaptiveThresholdTuner({ exploreRate: 2 })).toThrow(RangeError);
  });
});

describe('AdaptiveThresholdTuner learned bound', () => {
  it('explores, never serves, with no labelled evidence', () => {
    const t = new AdaptiveThresholdTuner();
    expect(t.decide('general', 'medium', 0.99, newEntryThresholdState(), 0.5)).toMatchObject({ action: 'explore', reason: 'bound_above_delta', errorBound: 1 });
    expect(t.decide('general', 'medium', 0.5, newEntryThresholdState(), 0.5).action).toBe('reject');
  });

  it('converges on a stream with known labels: serves where the true error rate is low, never where it is high', () => {
    // Ground truth: a would-be hit at similarity s is wrong with probability 0.3 below 0.93 and 0.002 above.
    const truth = (s: number) => (s < 0.93 ? 0.3 : 0.002);
    const t = new AdaptiveThresholdTuner({ delta: 0.01, exploreRate: 0.05 });
    const rnd = seededRandom(7);
    let served = 0;
    let servedWrong = 0;
    const late: number[] = [];
    for (let i = 0; i < 6000; i++) {
      const s = 0.86 + rnd() * 0.14;
      const wrong = rnd() < truth(s);
      const d = t.decide('general', 'medium', s, newEntryThresholdState(), rnd());
      if (d.action === 'serve') {
        served++;
        if (wrong) servedWrong++;
        if (i > 4000) late.push(s);
      } else if (d.action === 'explore') t.record('general', s, !wrong, newEntryThresholdState());
    }
    expect(served).toBeGreaterThan(1000);
    expect(servedWrong / served).toBeLessThan(0.01);
    // Late in the stream the low band (30% wrong) is served at most at its very edge, where the pooled
    // estimate of "similarity >= s" is still dominated by the clean band above.
    expect(Math.min(...late)).toBeGreaterThan(0.92);
    // What serves is the certified threshold: the set at or above it is bounded by delta and sits at the
    // band's edge (the pointwise bound at 0.95 alone now has fewer labels, as served hits are not recomputed).
    const c = t.certifiedThreshold('general', t.getThreshold('general'))!;
    expect(c.errorBound).toBeLessThanOrEqual(0.01);
    expect(c.threshold).toBeGreaterThan(0.92);
    expect(c.threshold).toBeLessThan(0.95);
    expect(t.errorBound('general', 0.87)).toBeGreaterThan(0.1);
  });

  it('refuses an entry at or below the similarity where it was seen wrong', () => {
    const t = new AdaptiveThresholdTuner({ delta: 1 });
    const entry = newEntryThresholdState();
    t.record('general', 0.95, false, entry);
    expect(entry.wrongAbove).toBe(0.95);
    expect(t.decide('general', 'medium', 0.94, entry, 0.5)).toMatchObject({ action: 'reject', reason: 'below_entry_threshold' });
    expect(t.decide('general', 'medium', 0.96, entry, 0.5).action).toBe('serve');
  });

  it('samples a fraction of allowed hits for exploration', () => {
    const t = new AdaptiveThresholdTuner({ delta: 1, exploreRate: 0.25 });
    expect(t.decide('general', 'medium', 0.99, newEntryThresholdState(), 0.1)).toMatchObject({ action: 'serve' });
    const t2 = new AdaptiveThresholdTuner({ delta: 0.5, exploreRate: 0.25 });
    for (let i = 0; i < 50; i++) t2.record('general', 0.99, true, newEntryThresholdState());
    expect(t2.decide('general', 'medium', 0.99, newEntryThresholdState(), 0.1)).toMatchObject({ action: 'explore', reason: 'sampled_exploration' });
    expect(t2.decide('general', 'medium', 0.99, newEntryThresholdState(), 0.9)).toMatchObject({ action: 'serve', reason: 'bound_met' });
  });

  it('the bound never falls as errors are added (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.double({ min: 0.8, max: 1, noNaN: true }), fc.boolean()), { maxLength: 200 }), fc.double({ min: 0.8, max: 1, noNaN: true }), (obs, s) => {
        const t = new AdaptiveThresholdTuner();
        for (const [sim, ok] of obs) t.record('general', sim, ok, newEntryThresholdState());
        const before = t.errorBound('general', s);
        t.record('general', 1, false, newEntryThresholdState());
        expect(t.errorBound('general', s)).toBeGreaterThanOrEqual(before - 1e-12);
      }),
    );
  });
});

describe('AdaptiveThresholdTuner certified threshold (fixed-sequence) and calibration', () => {
  it('serves the most similar candidates once a lower threshold is certified, though few labels lie above them', () => {
    const t = new AdaptiveThresholdTuner({ delta: 0.02, exploreRate: 0 });
    // 300 agreeing labels spread evenly over [0.90, 1.00): only ~3 lie at 0.997 or above.
    for (let i = 0; i < 300; i++) t.record('general', 0.9 + i / 3000, true, newEntryThresholdState());
    expect(t.errorBound('general', 0.997)).toBeGreaterThan(0.02);
    const c = t.certifiedThreshold('general', t.getThreshold('general'));
    expect(c!.threshold).toBeLessThan(0.935);
    expect(t.decide('general', 'medium', 0.997, newEntryThresholdState(), 0.5)).toMatchObject({ action: 'serve', reason: 'bound_met' });
    expect(t.decide('general', 'medium', 0.95, newEntryThresholdState(), 0.5).action).toBe('serve');
    // Below the lowest label nothing is certified: no extrapolation into unlabelled similarities.
    expect(t.decide('general', 'medium', 0.89, newEntryThresholdState(), 0.5)).toMatchObject({ action: 'explore', reason: 'bound_above_delta' });
  });

  it('is monotone: a candidate more similar than a served one is served too (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0.8, max: 1, noNaN: true }), fc.boolean()), { maxLength: 400 }),
        fc.double({ min: 0.85, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 0.15, noNaN: true }),
        (obs, s, up) => {
          const t = new AdaptiveThresholdTuner({ delta: 0.1, exploreRate: 0 });
          for (const [sim, ok] of obs) t.record('general', sim, ok, newEntryThresholdState());
          if (t.decide('general', 'medium', s, newEntryThresholdState(), 0.5).action === 'serve')
            expect(t.decide('general', 'medium', Math.min(1, s + up), newEntryThresholdState(), 0.5).action).toBe('serve');
        },
      ),
    );
  });

  it('a fork shares the ledgers: a calibration replay through fork({ exploreRate: 1 }) warms the serving tuner', () => {
    const t = new AdaptiveThresholdTuner({ delta: 0.05, exploreRate: 0 });
    const calibrating = t.fork({ exploreRate: 1 });
    expect(calibrating.config.exploreRate).toBe(1);
    expect(t.config.exploreRate).toBe(0);
    for (let i = 0; i < 100; i++) {
      const d = calibrating.decide('general', 'medium', 0.9 + i / 1000, newEntryThresholdState(), 0.5);
      expect(d.action).toBe('explore');
      calibrating.record('general', 0.9 + i / 1000, true, newEntryThresholdState());
    }
    expect(t.observations('general')).toBe(100);
    expect(t.decide('general', 'medium', 0.95, newEntryThresholdState(), 0.5).action).toBe('serve');
  });

  it('converges on a stream with known labels from a calibration stream: held-out wrong-hit rate within delta', () => {
    // Ground truth: wrong with probability 0.2 below 0.94, 0.003 above. Calibrate on one draw of the stream,
    // then serve a second, independent draw and count what a served hit got wrong.
    const truth = (s: number) => (s < 0.94 ? 0.2 : 0.003);
    const rnd = seededRandom(11);
    const draw = () => {
      const s = 0.85 + rnd() * 0.15;
      return { s, wrong: rnd() < truth(s) };
    };
    const t = new AdaptiveThresholdTuner({ delta: 0.02, exploreRate: 0.02 });
    const calibrating = t.fork({ exploreRate: 1 });
    for (let i = 0; i < 1500; i++) {
      const { s, wrong } = draw();
      if (calibrating.decide('general', 'medium', s, newEntryThresholdState(), rnd()).action === 'explore') calibrating.record('general', s, !wrong, newEntryThresholdState());
    }
    const threshold = t.certifiedThreshold('general', t.getThreshold('general'))!.threshold;
    expect(threshold).toBeGreaterThan(0.935);
    expect(threshold).toBeLessThan(0.96);
    let served = 0;
    let servedWrong = 0;
    let aboveBoundary = 0;
    for (let i = 0; i < 3000; i++) {
      const { s, wrong } = draw();
      if (s >= 0.94) aboveBoundary++;
      const d = t.decide('general', 'medium', s, newEntryThresholdState(), rnd());
      if (d.action === 'serve') {
        served++;
        if (wrong) servedWrong++;
      } else if (d.action === 'explore') t.record('general', s, !wrong, newEntryThresholdState());
    }
    expect(servedWrong / served).toBeLessThanOrEqual(0.02);
    // It serves most of what is safe to serve, from the first held-out query on.
    expect(served / aboveBoundary).toBeGreaterThan(0.8);
  });
});
