import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';

const ENV = { PATH: process.env.PATH };
const read = (db: string) => JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;

/** Report numbers, without ids, paths and clocks. */
function numbers(r: BenchReport) {
  return {
    workloads: r.workloads.map((w) => ({ ...w, reps: w.reps.map(({ session_ids: _s, started_at_us: _a, ended_at_us: _b, check, ...rest }) => ({ ...rest, check: check && { ...check, output_tail: '' } })) })),
    aggregate: r.aggregate,
    routing: r.routing,
    cache: r.cache,
  };
}

describe('record and replay (spec §11)', () => {
  it('a recorded simulated run replays to identical report numbers, still labelled simulated', async () => {
    const dir = tempDir();
    const cassette = join(dir, 'suite.jsonl');
    const a = join(dir, 'rec.db');
    const rec = await bench(['run', '--workload', 'fix-a-bug-small', '--workload', 'write-a-doc-from-notes', '--seed', '3', '--record', cassette, '--db-path', a], { env: ENV });
    expect(rec.code, rec.stderr).not.toBe(2);
    const lines = readFileSync(cassette, 'utf8').trim().split('\n');
    expect(lines.length).toBe(read(a).aggregate.savings.rows_total);
    const b = join(dir, 'rep.db');
    const rep = await bench(['run', '--workload', 'fix-a-bug-small', '--workload', 'write-a-doc-from-notes', '--replay', cassette, '--db-path', b], { env: ENV });
    expect(rep.code).toBe(rec.code);
    expect(numbers(read(b))).toEqual(numbers(read(a)));
    expect(read(b).provenance.actual_provider).toBe('replay:sim');
    expect(read(b).banner).toMatch(/SIMULATED/);
  });

  it('a request the cassette lacks is exit 2 naming it', async () => {
    const dir = tempDir();
    const cassette = join(dir, 'one.jsonl');
    await bench(['run', '--workload', 'write-a-doc-from-notes', '--record', cassette, '--db-path', join(dir, 'r.db')], { env: ENV });
    // Replaying another workload asks for requests this cassette never saw.
    const r = await bench(['run', '--workload', 'fix-a-bug-small', '--replay', cassette, '--db-path', join(dir, 'x.db')], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${cassette}: no recorded response for request`);
    expect(r.stderr).toContain('model anthropic:claude-haiku-4-5');
  });

  it('a missing or corrupt cassette is exit 2 naming the file and line', async () => {
    const dir = tempDir();
    const missing = await bench(['run', '--workload', 'fix-a-bug-small', '--replay', join(dir, 'nope.jsonl'), '--db-path', join(dir, 'a.db')], { env: ENV });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.jsonl');
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"version":1}\nnot json\n');
    const corrupt = await bench(['run', '--workload', 'fix-a-bug-small', '--replay', bad, '--db-path', join(dir, 'b.db')], { env: ENV });
    expect(corrupt.code).toBe(2);
    expect(corrupt.stderr).toMatch(/bad\.jsonl:1: not a cassette entry/);
  });
});
