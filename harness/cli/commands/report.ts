import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Option } from 'commander';
import type { BenchReport } from '../../../schemas/types/report.ts';
import { findReport } from '../../report/find-report.ts';
import { renderReportMarkdown } from '../../report/render-md.ts';
import { renderReportTable } from '../../report/render-table.ts';
import type { CommandSpec } from '../command.ts';
import { readMatrixReport, renderMatrixAs } from '../../matrix/read-matrix-report.ts';
import { addWidthOptions, tableWidth } from '../parse-args.ts';

type ReportFormat = 'table' | 'md' | 'html' | 'json';

const EXAMPLES = `
RUN is a run id, a report JSON, or a trace DB (the JSON beside it is read); default: the newest report
in --runs-dir by the started_at it records. The JSON is validated against schemas/report.schema.json.

Exit codes: 0 rendered; 2 the report is missing or invalid (the message names the file and the first problem).
Examples:
  npx bench report --format md >> "$GITHUB_STEP_SUMMARY"
  npx bench report reports/.runs/nightly.json --format html --out reports/report.html
  npx bench report --format md --image reports/slides/   # reports/slides/headline-card.svg, main-chart.svg
  npx bench report --kind signal                    # the latest bench signal run`;

async function render(report: BenchReport, format: ReportFormat, jsonPath: string, width: number | null): Promise<string> {
  switch (format) {
    case 'table':
      return renderReportTable(report, { json: jsonPath, width });
    case 'md':
      return renderReportMarkdown(report);
    case 'html': {
      // Loaded on demand: the charting library costs ~0.3 s to import and only this format needs it.
      const { renderReportHtml } = await import('../../report/render-html.ts');
      return renderReportHtml(report);
    }
    case 'json':
      return JSON.stringify(report, null, 2);
  }
}

/** The slide pictures of `--image`: file name to SVG. */
async function slideImages(report: BenchReport): Promise<Record<string, string>> {
  // Loaded on demand, like the HTML: only these outputs need the charting library.
  const { armPoints, costAxisLabel, renderArmChart, renderHeadlineCard } = await import('../../report/deck-charts.ts');
  return { 'headline-card.svg': renderHeadlineCard(report), 'main-chart.svg': renderArmChart(armPoints(report), undefined, costAxisLabel(report)) };
}

/** `bench report [RUN]`: a finished run rendered as a table, Markdown, self-contained HTML with charts, or JSON (spec §9). */
export const reportCommandSpec: CommandSpec = {
  configure(cmd) {
    cmd
      .argument('[run]', 'run id, report JSON path, or trace DB path (default: the latest report in --runs-dir)')
      .addOption(new Option('--format <format>', 'output format').choices(['table', 'md', 'html', 'json']).default('table'))
      .option('--runs-dir <dir>', 'where run outputs live (for run ids and the latest run)', 'reports/.runs')
      .addOption(new Option('--kind <kind>', 'with no run: the latest benchmark run, or the latest `bench signal` run').choices(['benchmark', 'signal']).default('benchmark'))
      .option('--out <file>', 'write to this file instead of stdout')
      .option('--image <dir>', 'also write the headline card and the main chart (cost vs solved rate per arm) as SVG files for slides')
      .addHelpText('after', EXAMPLES);
    addWidthOptions(cmd);
  },
  async run(cmd, args, io) {
    const run = args[0] as string | undefined;
    const o = cmd.opts<{ format: ReportFormat; runsDir: string; kind: 'benchmark' | 'signal'; out?: string; image?: string; width?: number; wide?: boolean }>();
    // A matrix run (its JSON or its DB) has its own report shape and renderings.
    const matrix = run ? readMatrixReport(resolve(io.cwd, run)) : null;
    if (matrix) {
      const text = renderMatrixAs(matrix, o.format, { json: null, db: matrix.provenance.db_path }, o.out ? null : tableWidth(o, io));
      if (o.out) {
        mkdirSync(dirname(resolve(io.cwd, o.out)), { recursive: true });
        writeFileSync(resolve(io.cwd, o.out), `${text}\n`);
      }
      else io.out(text);
      return 0;
    }
    const { path, report } = findReport(run, { cwd: io.cwd, runsDir: o.runsDir, kind: o.kind });
    const text = await render(report, o.format, path, tableWidth(o, io));
    if (o.image) {
      for (const [file, svg] of Object.entries(await slideImages(report))) {
        const out = resolve(io.cwd, o.image, file);
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, svg);
        io.err(`wrote ${out}`);
      }
    }
    if (o.out) {
      const out = resolve(io.cwd, o.out);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, `${text}\n`);
    } else {
      io.out(text);
    }
    return 0;
  },
};
