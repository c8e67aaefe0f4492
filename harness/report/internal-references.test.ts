import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { compareReports } from '../compare/compare-reports.ts';
import { renderCompareTable } from '../compare/render-compare.ts';
import { loadPilot } from '../plan/pilot.ts';
import { planFrom, renderPlan } from '../plan/plan-report.ts';
import { loadReport } from './find-report.ts';
import { buildHeadline } from './headline.ts';
import { renderReportHtml } from './render-html.ts';
import { renderReportMarkdown } from './render-md.ts';
import { renderReportTable } from './render-table.ts';

// User-facing text cites docs/ pages or nothing: a user has no spec section ("§8.4") and no issue tracker ("issue 20 item 6").
const INTERNAL = /§|\bissue \d+/i;

/** Each line of `text` that cites an internal document, with where it came from. */
function hits(where: string, text: string): string[] {
  return text
    .split('\n')
    .map((line, i) => ({ line, i }))
    .filter(({ line }) => INTERNAL.test(line))
    .map(({ line, i }) => `${where}:${i + 1}: ${line.trim().slice(0, 160)}`);
}

const fixturePath = (name: 'single' | 'a3') => join(REPO_ROOT, 'test/fixtures/reports', `${name}.json`);
/** A fixture report with its headline worded by the current code (the stored one is whatever wrote the fixture). */
function fixture(name: 'single' | 'a3'): BenchReport {
  const r = structuredClone(loadReport(fixturePath(name)).report);
  return { ...r, headline: buildHeadline(r) };
}

function files(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    return statSync(p).isDirectory() ? files(p, keep) : keep(p) ? [p] : [];
  });
}

describe('no internal references in user output', () => {
  it('the rendered report (text, Markdown, HTML), plan and compare cite no spec section and no issue', () => {
    const found: string[] = [];
    for (const name of ['single', 'a3'] as const) {
      const r = fixture(name);
      found.push(...hits(`${name} table`, renderReportTable(r, { json: null, width: null })));
      found.push(...hits(`${name} markdown`, renderReportMarkdown(r)));
      found.push(...hits(`${name} html`, renderReportHtml(r)));
    }
    const pilot = loadPilot(fixturePath('a3'));
    const req = { marginPts: 5, widthPts: 10, power: 0.8 };
    found.push(...hits('plan', renderPlan(planFrom(pilot, req), pilot, req).join('\n')));
    const a = fixture('a3');
    const b = fixture('a3');
    b.protocol_metrics!.routed_turns[0]!.chosen_model = 'anthropic:claude-haiku-4-5';
    for (const [x, y] of [[a, b], [fixture('single'), a], [a, a]] as const) {
      const artifact = compareReports({ report: x, path: null, label: 'A' }, { report: y, path: null, label: 'B' });
      found.push(...hits('compare', renderCompareTable(artifact, { json: null, width: null })), ...hits('compare json', JSON.stringify(artifact, null, 1)));
    }
    expect(found).toEqual([]);
  });

  it('shipped YAML and JSON data (harness/data, runtime/data, workloads) cite no spec section and no issue', () => {
    const data = (p: string) => /\.(ya?ml|json)$/.test(p);
    const found = ['harness/data', 'runtime/data', 'workloads'].flatMap((d) =>
      files(join(REPO_ROOT, d), data).flatMap((p) => hits(relative(REPO_ROOT, p), readFileSync(p, 'utf8'))),
    );
    expect(found).toEqual([]);
  });

  it('command help and option text (harness/cli/commands) cite no spec section and no issue', () => {
    const found = files(join(REPO_ROOT, 'harness/cli'), (p) => p.endsWith('.ts') && !p.endsWith('.test.ts')).flatMap((p) =>
      // Comments are for developers; every other line can reach a user through --help or an error.
      hits(relative(REPO_ROOT, p), readFileSync(p, 'utf8').replace(/^\s*(\/\/|\*|\/\*).*$/gm, '')),
    );
    expect(found).toEqual([]);
  });
});
