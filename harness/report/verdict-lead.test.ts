import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { loadReport } from './find-report.ts';
import { renderReportTable } from './render-table.ts';
import { verdictLead, verdictSentences } from './verdict-lead.ts';

const fixture = (name: string) => loadReport(join(REPO_ROOT, 'test/fixtures/reports', `${name}.json`)).report;

// Words the headline grammar writes: figures with decimals, money, intervals, backquoted commands.
const word = fc.constantFrom('saved', '62%', '[47, 78];', '$0.3545,', '0.5', 'solved', 'rate', '(Pass', 'B,', 'measured)', '−100', 'pts', 'non-inferior', '`bench', 'run`', 'e2e', 'haiku-4-5/sonnet-4-6');
// The first sentence may open with a model or arm name (lower case); the notes after it open with a capital.
const sentence = (heads: string[]) => fc.tuple(fc.constantFrom(...heads), fc.array(word, { minLength: 1, maxLength: 12 })).map(([head, rest]) => `${head} ${rest.join(' ')}.`);
const NOTES = ['The router', 'Against random', 'Price effect', 'To measure routing:'];

describe('verdictLead', () => {
  it('splits a verdict into sentences that join back to it, word for word', () => {
    fc.assert(
      fc.property(sentence(['routing (Pass C) vs always-sonnet-4-6,', 'claude-haiku-4-5,', ...NOTES]), fc.array(sentence(NOTES), { maxLength: 4 }), (first, notes) => {
        const sentences = [first, ...notes];
        const verdict = sentences.join(' ');
        expect(verdictSentences(verdict)).toEqual(sentences);
        const { lead, scope, claim, details } = verdictLead(verdict);
        expect([lead, ...details].join(' ')).toBe(verdict);
        expect(scope === null ? claim : `${scope} ${claim}`).toBe(lead);
      }),
    );
  });

  it('never ends a sentence inside a figure ($0.35, 0.5) or before a lower-case word', () => {
    expect(verdictSentences('haiku, on 15 units: solved 40% [12, 68], spent $0.3545. Price effect 0.5 of 67%; not a saving. to be continued')).toEqual([
      'haiku, on 15 units: solved 40% [12, 68], spent $0.3545.',
      'Price effect 0.5 of 67%; not a saving. to be continued',
    ]);
  });

  // The older fixtures hold verdicts written before the scope-colon wording; their lead is still the first sentence.
  it.each(['single', 'a3', 'a3-oracle'])('%s: the lead is the first sentence of the text headline', (name) => {
    const report = fixture(name);
    const text = renderReportTable(report, { json: 'r.json', width: null }).split('\n');
    const sentence = text[text.indexOf('=== Headline ===') + 1]!;
    const { lead, scope, claim, details } = verdictLead(report.headline!.verdict);
    expect(sentence.startsWith(lead)).toBe(true);
    expect(sentence).toBe([lead, ...details].join(' '));
    expect(scope === null ? claim : `${scope} ${claim}`).toBe(lead);
  });

  it('a3 run: the claim is the words after the scope, the notes are sentences of their own', () => {
    const { scope, claim, details } = verdictLead(fixture('a3-oracle').headline!.verdict);
    expect(scope).toBe("routing (Pass C) vs always-claude-sonnet-4-6 (Pass B, measured), on 3 paired (workload, rep) units over 3 workloads, conditional on this run's learned state:");
    expect(claim.startsWith('saved 62% [47, 78]; solved rate inconclusive')).toBe(true);
    expect(details.map((d) => d.split(' ').slice(0, 3).join(' '))).toEqual(['The router never', 'Against random at']);
  });
});
