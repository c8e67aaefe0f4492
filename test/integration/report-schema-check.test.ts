// The report's schema check, from the sources and from dist/: a report that breaks its schema is refused, and
// dist/'s validator, compiled with the V8 code the build made for it and needing no package, judges reports as
// ajv's own compile does.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import { sectionFor } from '../../harness/protocols/report-section.ts';
import { openTraceDbReadOnly, reportFromDb } from '../../harness/report/report-from-db.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { REPO_ROOT, tempDir } from '../support/cli.ts';
import { sharedRun } from '../support/shared-run.ts';

const run = promisify(execFile);

describe('analyze refuses a report that breaks schemas/report.schema.json', () => {
  let db: string;
  beforeAll(async () => {
    db = await sharedRun(['--workload', 'fix-a-bug-small', '--workload', 'multi-step-with-delegation', '--quiet'], { PATH: process.env.PATH });
  }, 180_000);

  it('with the report it would have written named, and nothing returned', () => {
    const h = openTraceDbReadOnly(db, { values: 'per-run' });
    try {
      expect(reportFromDb(h, db, { sectionOf: sectionFor }).report_version).toBe(1);
      // A protocol section the schema does not know: the report must not come out.
      const broken = () => ({ reportSection: () => ({ protocol: 'a3', not_in_the_schema: true }) as unknown as BenchReport['protocol_metrics'] });
      expect(() => reportFromDb(h, db, { sectionOf: broken })).toThrow(/breaks schemas\/report\.schema\.json \(\/protocol_metrics: must/);
    } finally {
      h.close();
    }
  });
});

describe("dist/'s report validator with its build-time V8 code", () => {
  const out = join(REPO_ROOT, 'test-output', `dist-cache-${process.pid}-${Date.now()}`);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('is accepted by a plain node process and judges reports as ajv compiling the schema does', async () => {
    await run(process.execPath, [join(REPO_ROOT, 'scripts', 'build-dist.mjs'), '--outdir', out], { cwd: REPO_ROOT });
    const validators = readdirSync(join(out, 'validators')).filter((f) => f.endsWith('.cjs'));
    expect(validators.length).toBeGreaterThan(10);
    for (const f of validators) expect(existsSync(join(out, 'validators', `${f}.v8`)), f).toBe(true);
    // The report schema's file: the largest validator.
    const [file] = validators.sort((a, b) => readFileSync(join(out, 'validators', b)).length - readFileSync(join(out, 'validators', a)).length);
    // Compiled without the schema's annotations, which the standalone code would otherwise copy in with the schema
    // objects it refers to (every string value of a `description` key; a property named so has a schema as value).
    const descriptions: string[] = [];
    const collect = (x: unknown): void => {
      if (Array.isArray(x)) x.forEach(collect);
      else if (typeof x === 'object' && x !== null) {
        for (const [k, v] of Object.entries(x)) {
          if (k === 'description' && typeof v === 'string') descriptions.push(v);
          else collect(v);
        }
      }
    };
    collect(JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'report.schema.json'), 'utf8')));
    const code = readFileSync(join(out, 'validators', file!), 'utf8');
    const ascii = descriptions.filter((d) => /^[\x20-\x7e]{30,}$/.test(d) && !d.includes('"') && !d.includes('\\'));
    expect(ascii.length).toBeGreaterThan(10);
    expect(ascii.filter((d) => code.includes(d))).toEqual([]);

    const good = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'reports', 'a3.json'), 'utf8')) as BenchReport;
    const bad = structuredClone(good) as unknown as Record<string, unknown>;
    bad.extra = 1;
    delete (bad.provenance as Record<string, unknown>).seed;
    const dir = tempDir('report-cache-');
    writeFileSync(join(dir, 'reports.json'), JSON.stringify([good, bad]));
    // Loaded from a folder with no node_modules above it: the validator needs no package (its helpers are bundled in).
    for (const f of [file!, `${file!}.v8`]) copyFileSync(join(out, 'validators', f), join(dir, f));
    // A fresh process, no flags, as bin/analyze.cjs runs: V8 must take the cache (it refuses one made by another V8 or other flags).
    const probe = join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      [
        `import { readFileSync } from 'node:fs';`,
        `import { compileValidator } from ${JSON.stringify(join(REPO_ROOT, 'scripts', 'validator-code-cache.mjs'))};`,
        `const path = ${JSON.stringify(join(dir, file!))};`,
        `const { script, validate } = compileValidator(path, readFileSync(path + '.v8'));`,
        `const verdicts = JSON.parse(readFileSync(process.argv[2], 'utf8')).map((r) => ({ ok: validate(r), errors: validate.errors ?? null }));`,
        `console.log(JSON.stringify({ rejected: script.cachedDataRejected, verdicts }));`,
      ].join('\n'),
    );
    const r = JSON.parse((await run(process.execPath, [probe, join(dir, 'reports.json')])).stdout) as { rejected: boolean; verdicts: { ok: boolean; errors: unknown[] | null }[] };
    expect(r.rejected).toBe(false);
    const compiled = validatorFor<BenchReport>('report.schema.json');
    const expected = [good, bad].map((x) => ({ ok: compiled(structuredClone(x)), errors: compiled.errors ?? null }));
    expect(r.verdicts).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(r.verdicts[1]!.ok).toBe(false);
    expect(formatAjvErrors(r.verdicts[1]!.errors as never)).toEqual(["(root): must NOT have additional properties 'extra'", "/provenance: must have required property 'seed'"]);
  });
});
