import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import type { CompareArtifact } from '../../schemas/types/compare.ts';
import { bench, tempDir } from '../support/cli.ts';

// Pattern store v2 through the CLI (pattern-store.md §16, spec §8.4): selection by flag or by
// routing.yaml, hybrid fingerprints and the embedding cache in the patterns DB, v2 tightness in the
// report, the same numbers from analyze --skip-execute, and clear exit-2 errors.
const env = { PATH: process.env.PATH };
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as BenchReport;
const A3 = ['run', '--protocol', 'a3', '--seed-passes', '2', '--workload', 'fix-a-bug-small', '--workload', 'regex-with-edge-cases', '--provider', 'sim', '--quiet'];

describe('bench run --fingerprint-version v2', () => {
  let db: string;
  let report: BenchReport;
  beforeAll(async () => {
    db = join(tempDir(), 'v2.db');
    const r = await bench([...A3, '--fingerprint-version', 'v2', '--db-path', db], { env });
    expect(r.code, r.stderr).not.toBe(2);
    report = read(db.replace(/\.db$/, '.json'));
  }, 120_000);

  it('records the choice in provenance and every fingerprint as a hybrid of the offline embedder', () => {
    expect(report.provenance).toMatchObject({ fingerprint_version: 'v2', embedding_provider: 'local:hashing-384', embedding_alpha: 0.6 });
    const conn = new Database(report.provenance.patterns_db_path!, { readonly: true });
    const kinds = conn.prepare('SELECT kind, embedding_provider AS p, embedding_dim AS d, COUNT(*) AS n FROM fingerprints GROUP BY 1, 2, 3').all();
    const cached = conn.prepare('SELECT COUNT(*) AS n FROM embedding_cache').get() as { n: number };
    const version = conn.prepare("SELECT value FROM store_meta WHERE key = 'schema_version'").get() as { value: string };
    conn.close();
    expect(kinds).toEqual([{ kind: 'hybrid', p: 'local:hashing-384', d: 384, n: expect.any(Number) }]);
    // One cache row per distinct user message of the two workloads (3 + 1 turns), embedded on the recording path.
    expect(cached.n).toBe(4);
    expect(version.value).toBe('2');
    // §16.8: the trace tells hybrid records from structural ones.
    const trace = new Database(db, { readonly: true });
    const kindsOf = (type: string) => trace.prepare("SELECT DISTINCT json_extract(payload_json, '$.fingerprint_kind') AS k FROM events WHERE type = ?").all(type);
    expect(kindsOf('pattern.recorded')).toEqual([{ k: 'hybrid' }]);
    // Pass C routes on cached embeddings (the recording path of passes A and B filled the cache).
    expect(kindsOf('pattern.matched')).toEqual([{ k: 'hybrid' }]);
    trace.close();
  });

  it('reports v1 and v2 cluster tightness over the same fingerprints, in the table and the JSON', async () => {
    const t = report.protocol_metrics!.cluster_tightness;
    expect(t.v1!.fingerprints).toBe(t.v2!.fingerprints);
    expect(t.v2!.intra).not.toBe(t.v1!.intra);
    const again = await bench(['report', db.replace(/\.db$/, '.json')], { env });
    expect(again.stdout).toMatch(/cluster tightness \(v2, \d+ fingerprints\)/);
  });

  it('analyze --skip-execute recomputes the same report, v2 tightness included', async () => {
    const out = join(tempDir(), 'again.json');
    const r = await bench(['analyze', '--skip-execute', '--db-path', db, '--json', out], { env });
    expect(r.code, r.stderr).not.toBe(2);
    expect(read(out)).toEqual(report);
  });
});

describe('choosing the store', () => {
  it('routing.yaml pattern.fingerprint_version: v2 selects v2; the flag overrides it', async () => {
    const dir = tempDir();
    const cfg = join(dir, 'routing.yaml');
    writeFileSync(cfg, 'pattern:\n  fingerprint_version: v2\n  embedding_alpha: 0.4\n');
    const db = join(dir, 'a.db');
    const r = await bench([...A3.slice(0, 4), '1', ...A3.slice(5), '--routing-config', cfg, '--db-path', db], { env });
    expect(r.code, r.stderr).not.toBe(2);
    expect(read(db.replace(/\.db$/, '.json')).provenance).toMatchObject({ fingerprint_version: 'v2', embedding_alpha: 0.4 });
    const db1 = join(dir, 'b.db');
    await bench([...A3.slice(0, 4), '1', ...A3.slice(5), '--routing-config', cfg, '--fingerprint-version', 'v1', '--db-path', db1], { env });
    expect(read(db1.replace(/\.db$/, '.json')).provenance).toMatchObject({ fingerprint_version: 'v1', embedding_provider: null });
  }, 300_000); // two A3 runs: a fixed 60 s is missed on a loaded 2-core machine

  it.each([
    [['--embedding-provider', 'openai:text-embedding-3-small'], 'OPENAI_API_KEY is not set'],
    [['--embedding-provider', 'cohere:embed-multilingual-v3.0'], 'COHERE_API_KEY is not set'],
    [['--embedding-provider', 'local:transformers:all-MiniLM-L6-v2'], '@huggingface/transformers'],
    [['--embedding-provider', 'word2vec'], 'unknown embedding provider id'],
    [['--fingerprint-version', 'v1', '--embedding-provider', 'local:hashing-384'], '--embedding-provider needs --fingerprint-version v2'],
    [['--fingerprint-version', 'v3'], "argument 'v3' is invalid. Allowed choices are v1, v2"],
  ])('%j is exit 2: %s', async (flags, message) => {
    const r = await bench(['run', '--workload', 'fix-a-bug-small', '--provider', 'sim', ...flags, '--db-path', join(tempDir(), 'x.db')], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('a routing.yaml with an unknown key is exit 2 naming the file and line', async () => {
    const cfg = join(tempDir(), 'routing.yaml');
    writeFileSync(cfg, 'pattern:\n  fingerprint_version: v2\n  embeding_alpha: 0.4\n');
    const r = await bench(['run', '--workload', 'fix-a-bug-small', '--provider', 'sim', '--routing-config', cfg, '--db-path', join(tempDir(), 'y.db')], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${cfg}:3`);
    expect(r.stderr).toContain('embeding_alpha');
  });
});

describe('bench compare v1 v2', () => {
  it('runs both arms on the same seeds and prints the table and the §16.10 test-5 verdict; the artifact records both', async () => {
    const out = tempDir();
    // Two workloads, so there are inter-workload pairs for the tightness verdict.
    const r = await bench(['compare', 'v1', 'v2', '--seed-passes', '2', '--workload', 'fix-a-bug-small', '--workload', 'regex-with-edge-cases', '--out-dir', out, '--quiet'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('SIMULATED PROVIDER');
    expect(r.stdout).toMatch(/tightness test .*: (PASS|FAIL)/);
    const json = /json: (\S+compare\.json)/.exec(r.stdout)![1]!;
    const artifact = JSON.parse(readFileSync(json, 'utf8')) as CompareArtifact;
    expect([artifact.a.fingerprint_version, artifact.b.fingerprint_version]).toEqual(['v1', 'v2']);
    expect(artifact.rows.some((row) => row.scope === 'v2')).toBe(true);
    const v1 = read(json.replace(/compare\.json$/, 'v1.json'));
    const v2 = read(json.replace(/compare\.json$/, 'v2.json'));
    expect([v1.provenance.fingerprint_version, v2.provenance.fingerprint_version]).toEqual(['v1', 'v2']);
    // Same seeds, same workloads: passes A and B never consult slot 4's answer, so their costs agree exactly.
    expect(v2.protocol_metrics!.passes[0]!.actual_cost_usd).toBe(v1.protocol_metrics!.passes[0]!.actual_cost_usd);
    expect(v2.protocol_metrics!.passes[1]!.actual_cost_usd).toBe(v1.protocol_metrics!.passes[1]!.actual_cost_usd);
  }, 120_000);
});
