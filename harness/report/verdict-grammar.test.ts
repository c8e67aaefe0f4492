import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aboveClaim, nonInferiorityKind, normalUnitsNeeded, savingsClaim, signedPts, solvedRateClaim, solvedRateClause, unitsStillNeeded, noVariation, zeroWidth, type IntervalFigure } from './verdict-grammar.ts';

/** An interval with its estimate inside, in [−100, 100]. */
const interval = fc
  .tuple(fc.double({ min: -100, max: 100, noNaN: true }), fc.double({ min: -100, max: 100, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }))
  .map(([a, b, t]): IntervalFigure => {
    const low = Math.min(a, b);
    const high = Math.max(a, b);
    return { low, high, estimate: low + t * (high - low) };
  });
const margin = fc.integer({ min: 1, max: 20 });

describe('verdict grammar', () => {
  it('a solved-rate clause names the solved rate once: never "solved rate solved fewer tasks"', () => {
    expect(solvedRateClause(solvedRateClaim({ estimate: -16, low: -23, high: -9 }, { units: 135 }))).toBe('solved fewer tasks: −16 [−23, −9] pts');
    fc.assert(
      fc.property(interval, margin, (d, m) => {
        const clause = solvedRateClause(solvedRateClaim(d, { marginPts: m, units: 45 }));
        expect(clause).toMatch(/^solved (rate( non-inferior| inconclusive|, no variation: no claim)|fewer tasks)/);
        expect(clause).not.toMatch(/solved rate solved/);
      }),
    );
  });

  it('the issue\'s wordings', () => {
    expect(savingsClaim({ estimate: 23, low: 6, high: 41 })).toBe('saved 23% [6, 41]');
    expect(savingsClaim({ estimate: 17, low: -1, high: 35 })).toBe('no saving shown (17% [−1, 35])');
    expect(savingsClaim({ estimate: -12, low: -20, high: -4 })).toBe('cost more (savings −12% [−20, −4])');
    expect(solvedRateClaim({ estimate: -1, low: -4, high: 2 }, { units: 45 })).toBe('non-inferior (within 5 pts): −1 [−4, +2] pts');
    expect(solvedRateClaim({ estimate: -11, low: -24, high: -2 }, { units: 45 })).toBe('solved fewer tasks: −11 [−24, −2] pts');
    // n · (half-width / distance to the farther boundary)²: 45 · (13 / 11)² = 62.85 → 63 in all, 18 more than the 45 in hand.
    expect(solvedRateClaim({ estimate: -11, low: -24, high: 2 }, { units: 45 })).toBe(
      'inconclusive: somewhere between −24 and +2 pts; 18 more paired units would be needed to decide (63 in all) (non-inferiority margin 5 pts)',
    );
  });

  it('states the declared margin, and the units-needed function is pluggable', () => {
    expect(solvedRateClaim({ estimate: -7, low: -9, high: -1 }, { units: 45, marginPts: 10 })).toBe('non-inferior (within 10 pts), though it solved fewer tasks: −7 [−9, −1] pts');
    expect(solvedRateClaim({ estimate: -3, low: -12, high: 6 }, { units: 45, unitsNeeded: () => 999 })).toContain('954 more paired units would be needed to decide (999 in all)');
    expect(solvedRateClaim({ estimate: -3, low: -12, high: 6 }, { units: 45, unitsNeeded: () => null })).toContain('the design cannot decide: no estimate of the paired units needed');
  });

  it('the units-needed figure is the number still to collect: "2 … would be needed" is never said with 2 in hand', () => {
    // The case: two paired units in hand, and the power answer is 2 in all.
    expect(unitsStillNeeded(2, 2)).toMatch(/^the design cannot decide by adding units/);
    expect(unitsStillNeeded(3, 2)).toBe('1 more paired unit would be needed to decide (3 in all)');
    expect(solvedRateClaim({ estimate: -3, low: -12, high: 6 }, { units: 2, unitsNeeded: () => 2 })).not.toMatch(/\b2 (more )?paired units would be needed/);
  });

  it('a zero-width interval says "no variation: no claim", and a missing one says why', () => {
    // The case: six paired units with identical outcomes were declared non-inferior.
    expect(solvedRateClaim({ estimate: 0, low: 0, high: 0 }, { units: 6 })).toBe('no variation: no claim (0 pts, an interval of zero width from 6 paired units; margin 5 pts)');
    expect(savingsClaim({ estimate: 67, low: 67, high: 67 })).toBe('no variation: no claim (savings 67%, an interval of zero width)');
    expect(aboveClaim({ estimate: 0, low: 0, high: 0 }, 'random at its mix')).toBe('0 pts (no variation: no claim) against random at its mix');
    expect(savingsClaim({ estimate: 30, low: null, high: null })).toBe('no saving shown (30% (no interval: fewer than 2 workloads))');
    expect(solvedRateClaim({ estimate: 0, low: null, high: null }, { units: 3 })).toMatch(/^inconclusive \(margin 5 pts\)/);
  });

  it('property: "saved" only when the whole interval is above 0, "cost more" only when below', () => {
    fc.assert(
      fc.property(interval, (s) => {
        const t = savingsClaim(s);
        const width = !zeroWidth(s.low!, s.high!);
        expect(t.startsWith('saved ')).toBe(width && s.low! > 0);
        expect(t.startsWith('cost more')).toBe(width && s.high! < 0);
        expect(t.startsWith('no saving shown')).toBe(width && s.low! <= 0 && s.high! >= 0);
      }),
    );
  });

  it('property: non-inferior iff lo > −margin; fewer iff hi < 0 and not non-inferior; inconclusive otherwise, and the margin is in the sentence', () => {
    fc.assert(
      fc.property(interval, margin, (d, m) => {
        const t = solvedRateClaim(d, { units: 30, marginPts: m });
        const kind = nonInferiorityKind(d, m);
        const width = !zeroWidth(d.low!, d.high!);
        expect(kind === 'no_variation').toBe(!width);
        expect(kind === 'non_inferior').toBe(width && d.low! > -m);
        expect(kind === 'fewer').toBe(width && d.low! <= -m && d.high! < 0);
        expect(t.startsWith({ non_inferior: 'non-inferior', fewer: 'solved fewer tasks', inconclusive: 'inconclusive', no_variation: 'no variation: no claim' }[kind])).toBe(true);
        if (kind !== 'fewer') expect(t).toContain(`${m} pts`);
        // A drop whose interval reaches below 0 is never worded as "no change" or "the same".
        expect(t).not.toMatch(/no significant change|the same/);
        if (width && d.high! < 0) expect(t).toContain('fewer tasks');
      }),
    );
  });

  it('property: on a symmetric inconclusive interval, deciding needs at least the units already spent', () => {
    fc.assert(
      fc.property(fc.double({ min: -50, max: 50, noNaN: true }), fc.double({ min: 0.5, max: 50, noNaN: true }), margin, fc.integer({ min: 2, max: 500 }), (e, half, m, n) => {
        const d = { estimate: e, low: e - half, high: e + half };
        fc.pre(nonInferiorityKind(d, m) === 'inconclusive');
        expect(normalUnitsNeeded(d, m, n)!).toBeGreaterThanOrEqual(n);
      }),
    );
  });

  it('property: the printed points round-trip, with a true minus sign and no "−0"', () => {
    fc.assert(
      fc.property(fc.double({ min: -100, max: 100, noNaN: true }), (x) => {
        const t = signedPts(x);
        expect(t).not.toMatch(/^[−+]0$/);
        expect(Number(t.replace('−', '-'))).toBe(Math.abs(Math.round(x)) === 0 ? 0 : Number(Math.abs(x).toFixed(0)) * Math.sign(x));
      }),
    );
  });

  it('against the random router: above, below or not distinguishable', () => {
    expect(aboveClaim({ estimate: 4, low: 1, high: 7 }, 'random at its mix')).toBe('+4 pts [+1, +7] above random at its mix');
    expect(aboveClaim({ estimate: -6, low: -11, high: -1 }, 'random at its mix')).toBe('−6 pts [−11, −1]: below random at its mix');
    expect(aboveClaim({ estimate: 1, low: -3, high: 5 }, 'random at its mix')).toBe('+1 pts [−3, +5]: not distinguishable from random at its mix');
  });
});

/** Any figure the grammar can be handed: a missing interval, a zero-width one, or one of positive width. */
const anyFigure = fc.oneof(
  interval,
  fc.double({ min: -100, max: 100, noNaN: true }).map((x): IntervalFigure => ({ estimate: x, low: x, high: x })),
  fc.double({ min: -100, max: 100, noNaN: true }).map((x): IntervalFigure => ({ estimate: x, low: null, high: null })),
);
/** A units-needed answer: the normal approximation, a fixed total (possibly below the units in hand), or none. */
const unitsNeededFn = fc.oneof(
  fc.constant(normalUnitsNeeded),
  fc.integer({ min: 1, max: 2000 }).map((n) => () => n),
  fc.constant(() => null),
);

describe('every sentence the grammar can produce, against its interval', () => {
  it('property: each claim word appears only when its interval allows it', () => {
    fc.assert(
      fc.property(anyFigure, margin, fc.integer({ min: 1, max: 500 }), unitsNeededFn, fc.integer({ min: 0, max: 2 }), (f, m, units, need, digits) => {
        const width = f.low !== null && f.high !== null && !zeroWidth(f.low, f.high);
        const zero = f.low !== null && f.high !== null && zeroWidth(f.low, f.high);
        const sentences = {
          savings: savingsClaim(f),
          solved: solvedRateClause(solvedRateClaim(f, { marginPts: m, units, unitsNeeded: need })),
          above: aboveClaim(f, 'the reference', digits),
        };
        for (const t of Object.values(sentences)) {
          // A zero-width interval makes no claim, and says so; nothing else says it.
          expect(t.includes('no variation: no claim')).toBe(zero);
          expect(t).not.toMatch(/NaN|Infinity|-\d|§|issue \d+/);
        }
        const s = sentences.savings;
        if (s.startsWith('saved')) expect(width && f.low! > 0).toBe(true);
        if (s.startsWith('cost more')) expect(width && f.high! < 0).toBe(true);
        const q = sentences.solved;
        if (/non-inferior \(within/.test(q)) expect(width && f.low! > -m).toBe(true);
        if (/solved more tasks/.test(q)) expect(width && f.low! > 0).toBe(true);
        if (/fewer tasks/.test(q)) expect(width && f.high! < 0).toBe(true);
        if (width && f.high! < 0) expect(q).toMatch(/fewer tasks/);
        // The units figure is what is still to collect: a positive count, and never the units already in hand as "needed".
        const more = /(\d+) more paired units? would be needed to decide \((\d+) in all\)/.exec(q);
        if (more) {
          expect(Number(more[1])).toBeGreaterThan(0);
          expect(Number(more[1]) + units).toBe(Number(more[2]));
        }
        expect(q).not.toMatch(/(?<!more )paired units would be needed/);
        const a = sentences.above;
        if (/ above the reference/.test(a)) expect(width && f.low! > 0).toBe(true);
        if (/below the reference/.test(a)) expect(width && f.high! < 0).toBe(true);
      }),
    );
  });
});

describe('zero width', () => {
  it('ends apart by floating-point rounding alone are one point: no claim, no "[86, 86]"', () => {
    // A cost-only rule's solved rate, seen in a GSM8K matrix report: a variance of ~1e-32 left these ends.
    const rounding: IntervalFigure = { estimate: 0.8625954198473282, low: 0.862595419847328, high: 0.8625954198473285 };
    expect(noVariation(rounding)).toBe(true);
    expect(savingsClaim({ estimate: 86.25954198473282, low: 86.2595419847328, high: 86.25954198473285 })).toMatch(/no variation/);
    // A real spread, however small on the printed scale, stays an interval.
    expect(zeroWidth(0.8625, 0.8626)).toBe(false);
    expect(noVariation({ estimate: 0, low: -1e-9, high: 1e-9 })).toBe(false);
  });
});
