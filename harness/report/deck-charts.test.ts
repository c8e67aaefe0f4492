import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { labelLines, niceCeil, renderArmChart, renderHeadlineCard, spreadLabels } from './deck-charts.ts';
import { loadReport } from './find-report.ts';
import { verdictLead } from './verdict-lead.ts';
import { wrapWords } from './legend.ts';

/** The words of an SVG's text elements, one space between elements (a label wrapped over lines reads whole). */
const svgText = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!.replace(/&#39;/g, "'").replace(/&quot;/g, '"')).join(' ');

describe('deck chart layout', () => {
  it('niceCeil picks 1, 2, 2.5 or 5 × 10^k at or above the value', () => {
    expect([0.148, 0.42, 1.4, 2.6, 7, 10].map(niceCeil)).toEqual([0.2, 0.5, 2, 5, 10, 10]);
    fc.assert(fc.property(fc.double({ min: 1e-6, max: 1e6, noNaN: true }), (x) => niceCeil(x) >= x * (1 - 1e-9) && niceCeil(x) <= 2.5 * x * (1 + 1e-9)));
  });

  it('spreadLabels keeps every label at least the gap from the next and inside the band when it can', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 400, noNaN: true }), { minLength: 1, maxLength: 12 }), (ys) => {
        const out = [...spreadLabels(ys, 24, 0, 400)].sort((a, b) => a - b);
        for (let i = 1; i < out.length; i++) expect(out[i]! - out[i - 1]!).toBeGreaterThanOrEqual(24 - 1e-9);
        expect(out[0]!).toBeGreaterThanOrEqual(0);
        expect(out.at(-1)!).toBeLessThanOrEqual(400);
      }),
    );
  });

  it('spreadLabels with per-label heights keeps each label at least its own height above the next', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.double({ min: 0, max: 400, noNaN: true }), fc.integer({ min: 18, max: 60 })), { minLength: 1, maxLength: 8 }), (labels) => {
        const ys = labels.map(([y]) => y);
        const heights = labels.map(([, h]) => h);
        const out = spreadLabels(ys, heights, 0, 600);
        const order = out.map((y, i) => ({ y, i })).sort((a, b) => a.y - b.y);
        for (let j = 1; j < order.length; j++) expect(order[j]!.y - order[j - 1]!.y).toBeGreaterThanOrEqual(heights[order[j - 1]!.i]! - 1e-9);
      }),
    );
  });

  it('labelLines wraps a long label to the column and keeps every word and the figures', () => {
    const p = { label: "emulator's model-based optimum (not measured)", kind: 'model' as const, cost_usd: 0.1153323, solved_rate: 0.2586 };
    const lines = labelLines(p, 34);
    expect(lines.every((l) => l.length <= 34)).toBe(true);
    expect(lines.join(' ').replace(/\s+/g, ' ')).toBe("emulator's model-based optimum (not measured) 26% · $0.115");
  });

  it('says when a point is drawn on top of another (the random router at a 0% share sits on A)', () => {
    const svg = renderArmChart([
      { label: 'A: always haiku', kind: 'arm', cost_usd: 0.0536, solved_rate: 0 },
      { label: 'B: always sonnet', kind: 'arm', cost_usd: 0.2, solved_rate: 0.33 },
      { label: "random router at C's share", kind: 'random', cost_usd: 0.0536, solved_rate: 0 },
    ]);
    expect(svgText(svg)).toContain("random router at C's share (on A's point)");
    expect(svgText(svg)).not.toContain("B: always sonnet (on");
  });

  it('spreadLabels leaves a lone label at its point', () => {
    expect(spreadLabels([120], 24, 0, 400)).toEqual([120]);
  });

  it('wrapWords never exceeds the width unless one word does, and loses no word', () => {
    const text = 'routing (Pass C) saved 29% [22, 35] against always-sonnet-4-6 at the same solved rate';
    const lines = wrapWords(text, 30);
    expect(lines.every((l) => l.length <= 30)).toBe(true);
    expect(lines.join(' ')).toBe(text);
  });

  it('draws one point and one label per arm', () => {
    const svg = renderArmChart([
      { label: 'A: always haiku', kind: 'arm', cost_usd: 0.15, solved_rate: 0.5 },
      { label: 'B: always sonnet', kind: 'arm', cost_usd: 0.42, solved_rate: 0.83 },
      { label: 'hindsight oracle', kind: 'oracle', cost_usd: 0.3, solved_rate: 0.83 },
    ]);
    for (const label of ['A: always haiku', 'B: always sonnet', 'hindsight oracle']) expect(svg).toContain(label);
  });

  it('draws the model-based optimum apart: its own hollow symbol, its label last, and the cost axis set by measured arms only (issue 23 item 3)', () => {
    const measured = [
      { label: 'A: always haiku', kind: 'arm' as const, cost_usd: 0.15, solved_rate: 0.5 },
      { label: 'B: always sonnet', kind: 'arm' as const, cost_usd: 0.42, solved_rate: 0.8 },
    ];
    const model = { label: "emulator's model-based optimum (not measured)", kind: 'model' as const, cost_usd: 4.2, solved_rate: 0.85 };
    const svg = renderArmChart([model, ...measured]);
    expect(svgText(svg)).toContain('model-based optimum (not measured)');
    // The axis ends where the measured arms need it ($0.5), not at the model point's $4.2.
    expect(svg).toMatch(/>\$0\.5</);
    expect(svg).not.toMatch(/>\$5</);
    expect(svg.indexOf('B: always sonnet')).toBeLessThan(svg.indexOf('model-based optimum'));
  });

  it('headline card: every line of the verdict above the simulated-provider note, all inside the card', () => {
    const report = loadReport(join(REPO_ROOT, 'test/fixtures/reports/a3-oracle.json')).report;
    const svg = renderHeadlineCard(report);
    const ys = [...svg.matchAll(/<text[^>]*transform="[^"]*?(-?[\d.]+)\)"[^>]*>([^<]*)<\/text>/g)].map((m) => ({ y: Number(m[1]), text: m[2]! }));
    const note = ys.find((t) => t.text.startsWith('Simulated provider'))!;
    const verdict = ys.filter((t) => !t.text.startsWith('Simulated provider'));
    expect(verdict.map((t) => t.text).join(' ')).toBe(verdictLead(report.headline!.verdict).lead.replace(/'/g, '&#39;'));
    expect(note.y).toBeGreaterThan(Math.max(...verdict.map((t) => t.y)) + 26);
    expect(Number(svg.match(/<svg width="\d+" height="(\d+)"/)![1])).toBeGreaterThan(note.y + 16);
  });
});
