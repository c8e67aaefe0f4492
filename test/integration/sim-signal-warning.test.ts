import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { simSignalWarning } from '../../harness/signal/sim-signal-warning.ts';
import type { Workload } from '../../harness/workloads/workload.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';
import { startFakeAnthropic, type LoopbackServer } from '../support/loopback/index.ts';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A signal block as `bench signal --write` leaves it. */
const block = (provider: string, simulated: boolean) =>
  `signal:\n  score_gap: 0.5\n  solved_gap: 0.75\n  reps: 4\n  provider: ${provider}\n  simulated: ${simulated}\n` +
  '  cheap_model: anthropic:claude-haiku-4-5\n  strong_model: anthropic:claude-sonnet-4-6\n  measured_at: 2026-11-24T12:00:00Z\n';

/** Copies a shipped workload into `dir` under `name`, marked high with the given signal block (or none). */
function highCopy(dir: string, from: string, signal: string | null) {
  cpSync(join(REPO_ROOT, 'workloads', from), join(dir, from), { recursive: true });
  const file = join(dir, from, 'workload.yaml');
  const text = readFileSync(file, 'utf8').replace(/^signal:\n(?: {2}.*\n)+/m, '');
  writeFileSync(file, text.replace(/^signal_strength: marginal\n/m, `signal_strength: high\n${signal ?? ''}`));
}

const wl = (name: string, strength: 'high' | 'marginal', signal?: { provider: string; simulated: boolean }) =>
  ({ spec: { name, signal_strength: strength, ...(signal ? { signal } : {}) } }) as unknown as Workload;

describe('a sim-measured "high" on a real provider is flagged in the report', () => {
  it('warns only on a real provider, only for high workloads not measured on one, and names how each was measured', () => {
    const ws = [
      wl('a', 'high', { provider: 'sim', simulated: true }),
      wl('b', 'high', { provider: 'anthropic', simulated: false }),
      wl('c', 'marginal'),
      wl('d', 'high'),
    ];
    expect(simSignalWarning(ws, true)).toBeNull();
    const w = simSignalWarning(ws, false)!;
    expect(w).toContain('a (measured on sim)');
    expect(w).toContain('d (never measured)');
    expect(w).not.toMatch(/\bb \(/);
    expect(w).not.toMatch(/\bc \(/);
    expect(w).toContain('bench signal');
    expect(simSignalWarning([ws[1]!, ws[2]!], false)).toBeNull();
  });

  it(
    'bench run on the anthropic API (loopback) selecting a sim-measured high workload carries the warning; a sim run does not',
    { timeout: 180_000 },
    async () => {
      const dir = tempDir();
      highCopy(dir, 'fix-a-bug-small', block('sim', true));
      highCopy(dir, 'write-a-doc-from-notes', block('anthropic', false));
      const server = await startFakeAnthropic();
      servers.push(server);
      const db = join(tempDir(), 'real.db');
      const r = await bench(['run', '--provider', 'anthropic', '--base-url', server.baseURL, '--workloads-dir', dir, '--db-path', db], {
        env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-ant-test' },
      });
      expect(r.code, r.stderr).not.toBe(2);
      const report = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
      expect(report.workloads.map((w) => w.workload).sort()).toEqual(['fix-a-bug-small', 'write-a-doc-from-notes']);
      const warned = report.warnings.filter((w) => w.includes('not measured on a real provider'));
      expect(warned).toHaveLength(1);
      expect(warned[0]).toContain('fix-a-bug-small (measured on sim)');
      expect(warned[0]).not.toContain('write-a-doc-from-notes');

      const simDb = join(tempDir(), 'sim.db');
      const s = await bench(['run', '--provider', 'sim', '--workloads-dir', dir, '--workload', 'fix-a-bug-small', '--db-path', simDb], {
        env: { PATH: process.env.PATH },
      });
      expect(s.code, s.stderr).not.toBe(2);
      const simReport = JSON.parse(readFileSync(simDb.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
      expect(simReport.warnings.some((w) => w.includes('not measured on a real provider'))).toBe(false);
    },
  );
});
