import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { padStablePrefix, paddingUnits, PREFIX_TARGET } from './prefix-padding.ts';

/** A padding problem measured in characters: base, whole blocks, then fill units. */
function run(base: string, blocks: string[], units: string[], target = { min: 100, max: 200 }) {
  const compose = (bs: readonly string[], us: readonly string[]) => [base, ...bs, ...us].join('|');
  return { r: padStablePrefix({ compose, measure: (s) => s.length, blocks, units, target }), compose, target };
}

const text = fc.stringMatching(/^[a-z]{1,60}$/);

describe('padStablePrefix (context-assembler.md §5.1)', () => {
  it('leaves a prefix already at the minimum alone, and otherwise never passes the maximum (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.array(text, { maxLength: 8 }), fc.array(text, { maxLength: 20 }), (base, blocks, units) => {
        const { r, target } = run(base, blocks, units);
        if (base.length >= target.min) expect(r.system).toBe(base);
        else {
          expect(r.tokens).toBe(r.system.length);
          expect(r.tokens).toBeLessThanOrEqual(target.max);
          expect(r.system.startsWith(base)).toBe(true);
        }
      }),
    );
  });

  it('takes whole blocks in order before any fill unit, and fill units only as a leading run (property)', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 8 }), fc.array(text, { maxLength: 20 }), (blocks, units) => {
        const { r, compose } = run('b', blocks, units);
        expect(r.system).toBe(compose(r.blocks, units.slice(0, r.unitCount)));
        // Blocks keep their priority order: the chosen ones are a subsequence of the given ones.
        let i = 0;
        for (const b of blocks) if (b === r.blocks[i]) i += 1;
        expect(i).toBe(r.blocks.length);
        // The next fill unit would not have fit: the block is cut at a unit boundary, not skipped over.
        if (r.unitCount < units.length) expect(compose(r.blocks, units.slice(0, r.unitCount + 1)).length).toBeGreaterThan(200);
      }),
    );
  });

  it('skips a block too big for the band and still takes a smaller one after it', () => {
    const { r } = run('base', ['x'.repeat(500), 'y'.repeat(60)], ['z'.repeat(30), 'w'.repeat(30)]);
    expect(r.blocks).toEqual(['y'.repeat(60)]);
    expect(r.unitCount).toBe(2);
    expect(r.tokens).toBeGreaterThanOrEqual(100);
    expect(r.tokens).toBeLessThanOrEqual(200);
  });

  it('pads up toward the maximum, not only to the minimum', () => {
    const { r } = run('b', [], Array.from({ length: 40 }, () => 'u'.repeat(9)));
    expect(r.tokens).toBeGreaterThan(190);
    expect(r.tokens).toBeLessThanOrEqual(200);
  });

  it('uses the spec band by default: 4,500 to 5,500 heuristic tokens', () => {
    expect(PREFIX_TARGET).toEqual({ min: 4500, max: 5500 });
  });
});

describe('paddingUnits', () => {
  it('splits on blank lines and keeps each heading with the paragraph after it', () => {
    expect(paddingUnits('## Top\n\nIntro line\nmore\n\n### 1. A\n\nalpha\n\n\nbeta\n')).toEqual(['## Top\n\nIntro line\nmore', '### 1. A\n\nalpha', 'beta']);
  });

  it('never yields a bare heading except a trailing one, and loses no paragraph (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(text, text.map((t) => `### ${t}`)), { minLength: 1, maxLength: 20 }), (paras) => {
        const units = paddingUnits(paras.join('\n\n'));
        expect(units.join('\n\n')).toBe(paras.join('\n\n'));
        for (const u of units.slice(0, -1)) expect(u.split('\n\n').every((p) => p.startsWith('### '))).toBe(false);
      }),
    );
  });
});
