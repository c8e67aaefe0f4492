import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MatrixReport } from '../../schemas/types/matrix-report.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { verdictLead } from '../report/verdict-lead.ts';
import { renderMatrixHtml, renderMatrixMarkdown, renderMatrixText, routerSeries } from './render-matrix.ts';

// A GSM8K matrix run (`bench run --workload routellm-gsm8k`): the online setting fell back to one model at every cost_weight.
const gsm8k = (): MatrixReport => JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/reports/matrix-gsm8k.json'), 'utf8')) as MatrixReport;

describe('matrix HTML', () => {
  it('draws a router setting whose points all sit on one spot as a marker above the models, never as a line hidden under one', () => {
    const r = gsm8k();
    const online = r.settings.find((s) => s.setting === 'online')!;
    expect(new Set(online.points.map((p) => `${p.cost_per_task_usd}/${p.solved_rate.estimate}`)).size).toBe(1);
    const series = routerSeries(r);
    const drawn = series[r.settings.indexOf(online)]!;
    expect(drawn).toMatchObject({ type: 'scatter', name: 'router, online', symbol: 'triangle' });
    expect(drawn.z).toBeGreaterThan(2);
    // The settings with a spread stay curves.
    for (const [i, s] of r.settings.entries()) if (s.setting !== 'online') expect(series[i]!.type).toBe('line');
  });

  it('opens with the text headline’s first sentence, its other sentences under it, intervals unbroken', () => {
    const r = gsm8k();
    const html = renderMatrixHtml(r);
    const { lead, details } = verdictLead(r.headline);
    expect(renderMatrixText(r).startsWith(lead)).toBe(true);
    expect(details.length).toBeGreaterThan(0);
    const headline = html.match(/<p class="headline">([\s\S]*?)<\/p>/)![1]!;
    expect(headline.replace(/<[^>]+>/g, '')).toBe(lead);
    expect(headline).toContain('<span class="iv">[83, 88]</span>');
    const text = html.replace(/<svg[\s\S]*?<\/svg>/g, '');
    expect((text.match(/\[[^[\]<\n]{1,60}\]/g) ?? []).length).toBe((text.match(/<span class="iv">\[[^[\]<\n]{1,60}\]<\/span>/g) ?? []).length);
  });

  it('says, in text, markdown and HTML, when too few clusters make every interval wide by construction', () => {
    const many = gsm8k();
    expect(many.provenance.clusters).toBeGreaterThanOrEqual(5);
    for (const out of [renderMatrixText(many), renderMatrixMarkdown(many), renderMatrixHtml(many)]) expect(out).not.toContain('wide by construction');
    // GSM8K's confirm half: 2 length clusters, where the CR2 t has 1 degree of freedom.
    const two = { ...many, provenance: { ...many.provenance, clusters: 2 } };
    for (const out of [renderMatrixText(two, { json: null, db: null, width: 1000 }), renderMatrixMarkdown(two), renderMatrixHtml(two)]) {
      expect(out).toContain('Only 2 clusters: every interval rests on at most 1 degree of freedom and is wide by construction');
    }
  });
});
