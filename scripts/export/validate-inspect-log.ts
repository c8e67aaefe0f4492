// Validates Inspect eval logs against the shipped EvalLog schema (schemas/third-party/inspect) and prints
// one JSON line per file; exit 1 when any fails. Usage: npx tsx scripts/export/validate-inspect-log.ts FILE...
import { readFileSync } from 'node:fs';
import { inspectErrors, inspectEvalLogValidator, INSPECT_SCHEMA_PATH } from '../../harness/export/inspect/inspect-schema.ts';

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: npx tsx scripts/export/validate-inspect-log.ts FILE...\n');
  process.exit(2);
}
const validate = inspectEvalLogValidator();
let failed = 0;
for (const file of files) {
  const log = JSON.parse(readFileSync(file, 'utf8')) as { samples?: unknown[]; eval?: { model?: string; metadata?: { pass?: string } } };
  const valid = validate(log);
  if (!valid) failed += 1;
  process.stdout.write(`${JSON.stringify({ file, schema: `${INSPECT_SCHEMA_PATH}#/components/schemas/EvalLog`, valid, errors: inspectErrors(validate.errors), samples: log.samples?.length ?? 0, pass: log.eval?.metadata?.pass ?? null, model: log.eval?.model ?? null })}\n`);
}
process.exit(failed ? 1 : 0);
