import { resolve } from 'node:path';
import { SetupError } from '../../errors.ts';
import { exportInspect } from '../../export/inspect/export-inspect.ts';
import { exportOtlp } from '../../export/otlp/export-otlp.ts';
import { checkEndpoint, OtlpSendError, parseHeaders } from '../../export/otlp/otlp-send.ts';
import { openTraceDbReadOnly } from '../../report/report-from-db.ts';
import type { CommandSpec } from '../command.ts';
import { collect } from '../parse-args.ts';

const EXAMPLES = `
Formats:
  otlp     OpenTelemetry spans (GenAI semantic conventions v1.41.0): run → invoke_agent per rep → turn →
           chat per model call → execute_tool per tool call. --out writes OTLP/JSON, --endpoint sends
           OTLP/HTTP (both may be given).
  inspect  Inspect eval logs (.json, the EvalLog schema of inspect_ai, shipped in schemas/third-party/inspect):
           one per (run, pass) in --out DIR; samples = workloads, epochs = reps; scores: hidden_check
           (main), gated_score. Open them with: inspect view --log-dir DIR

Message and tool content (private in the event catalog) is left out unless --include-content.

Examples:
  npx bench export --format otlp --db-path reports/.runs/bench-X.db --out run.otlp.json
  npx bench export --format inspect --db-path reports/.runs/bench-X.db --out logs/ --include-content
  npx bench export --format otlp --db-path run.db --endpoint http://127.0.0.1:4318/v1/traces
  npx bench export --format otlp --db-path run.db --endpoint https://cloud.langfuse.com/api/public/otel/v1/traces \\
      --header "Authorization=Basic $(printf %s "$LANGFUSE_PUBLIC_KEY:$LANGFUSE_SECRET_KEY" | base64 -w0)"`;

/** `bench export`: a run's trace DB in formats other tools read (OTLP spans, Inspect eval logs). */
export const exportCommandSpec: CommandSpec = {
  configure(cmd) {
    cmd
      .requiredOption('--format <format>', 'otlp or inspect')
      .requiredOption('--db-path <path>', 'the trace DB of a bench run')
      .option('--run <id>', 'export this run only (default: every run in the DB)')
      .option('--out <path>', 'otlp: the OTLP/JSON file to write; inspect: the directory for the .json logs')
      .option('--endpoint <url>', "otlp: send OTLP/HTTP to this traces URL (e.g. http://127.0.0.1:4318/v1/traces)")
      .option('--header <name=value>', 'otlp: an HTTP header for --endpoint (repeatable), e.g. Authorization=Basic ...', collect, [])
      .option('--force', 'replace an existing --out file (otlp) or existing logs of the same names (inspect); refused otherwise', false)
      .option('--include-content', 'also export messages, tool arguments and results, user text and check output (private)', false)
      .addHelpText('after', EXAMPLES);
  },
  async run(cmd, _args, io) {
    const o = cmd.opts<{ format: string; dbPath: string; run?: string; out?: string; endpoint?: string; header: string[]; includeContent: boolean; force: boolean }>();
    if (o.format !== 'otlp' && o.format !== 'inspect') throw new SetupError(`--format '${o.format}': expected otlp or inspect`);
    if (o.format === 'inspect') {
      if (!o.out) throw new SetupError('--format inspect needs --out DIR (the directory for the .json eval logs)');
      if (o.endpoint || o.header.length > 0) throw new SetupError('--endpoint and --header apply to --format otlp only');
      const dbPath = resolve(io.cwd, o.dbPath);
      const db = openTraceDbReadOnly(dbPath);
      try {
        const logs = exportInspect(db, { dbPath, runId: o.run ?? null, includeContent: o.includeContent, outDir: resolve(io.cwd, o.out), force: o.force });
        for (const l of logs) io.out(`wrote ${l.path} (run ${l.runId}, pass ${l.pass}, ${l.samples} sample(s); valid against Inspect's EvalLog schema)`);
        return 0;
      } finally {
        db.close();
      }
    }
    if (!o.out && !o.endpoint) throw new SetupError('--format otlp needs --out FILE, --endpoint URL, or both');
    if (o.header.length > 0 && !o.endpoint) throw new SetupError('--header applies to --endpoint; give --endpoint URL too');
    const target = o.endpoint ? { url: checkEndpoint(o.endpoint, '--endpoint'), headers: parseHeaders(o.header) } : null;
    const dbPath = resolve(io.cwd, o.dbPath);
    const outPath = o.out ? resolve(io.cwd, o.out) : null;
    const db = openTraceDbReadOnly(dbPath);
    try {
      const s = await exportOtlp(db, { dbPath, runId: o.run ?? null, includeContent: o.includeContent, outPath, target, force: o.force });
      const where = [outPath, target?.url].filter(Boolean).join(' and ');
      io.out(`exported ${s.spans} span(s) of ${s.runs.length} run(s) (${s.runs.join(', ')}) to ${where}${o.includeContent ? ' with content' : ''}`);
      return 0;
    } catch (e) {
      // A collector that refuses or is not there is the user's setup: the message names the URL.
      if (e instanceof OtlpSendError) throw new SetupError(e.message);
      throw e;
    } finally {
      db.close();
    }
  },
};
