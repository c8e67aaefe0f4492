// reportFromDb opens the run's pattern store as the run recorded it. The routing schema's defaults (a validator to
// load and run) size a v2 store's embedding cache; a v1 store has none, so a v1 run's report must not build them.
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { sectionFor } from '../../harness/protocols/report-section.ts';
import { openTraceDbReadOnly, reportFromDb } from '../../harness/report/report-from-db.ts';
import { defaultRoutingConfig } from '../../runtime/routing/routing-config.ts';
import type * as RoutingConfigModule from '../../runtime/routing/routing-config.ts';
import { sharedRun } from '../support/shared-run.ts';

vi.mock('../../runtime/routing/routing-config.ts', async (importOriginal) => {
  const m = await importOriginal<typeof RoutingConfigModule>();
  return { ...m, defaultRoutingConfig: vi.fn(m.defaultRoutingConfig) };
});

const reportOf = (db: string) => {
  const h = openTraceDbReadOnly(db, { values: 'per-run' });
  try {
    return reportFromDb(h, db, { sectionOf: sectionFor, env: {} });
  } finally {
    h.close();
  }
};

describe("reportFromDb builds the routing defaults only for a store that reads them", () => {
  let v1: string;
  let v2: string;
  beforeAll(async () => {
    // The same arguments as the other readers of a shared run, so the run is built once.
    v1 = await sharedRun(['--workload', 'fix-a-bug-small', '--workload', 'multi-step-with-delegation', '--quiet'], { PATH: process.env.PATH });
    v2 = await sharedRun(['--workload', 'fix-a-bug-small', '--fingerprint-version', 'v2', '--quiet'], { PATH: process.env.PATH });
  }, 300_000);

  it('not for a v1 store', () => {
    vi.mocked(defaultRoutingConfig).mockClear();
    const report = reportOf(v1);
    expect(report.provenance.fingerprint_version).toBe('v1');
    // The run has a store to open.
    expect(existsSync(report.provenance.patterns_db_path!)).toBe(true);
    expect(defaultRoutingConfig).not.toHaveBeenCalled();
  });

  it('for a v2 store, whose embedding cache they size', () => {
    vi.mocked(defaultRoutingConfig).mockClear();
    const report = reportOf(v2);
    expect(report.provenance.fingerprint_version).toBe('v2');
    expect(existsSync(report.provenance.patterns_db_path!)).toBe(true);
    expect(defaultRoutingConfig).toHaveBeenCalledTimes(1);
  });
});
