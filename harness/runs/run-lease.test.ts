import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SetupError } from '../errors.ts';
import { LEASE_STALE_US, takeRunLease, type LeaseHolder } from './run-lease.ts';

const A: LeaseHolder = { host: 'box-a', pid: 4242, pidNamespace: 'boot-1/pid:[1]' };
const B: LeaseHolder = { host: 'box-b', pid: 777, pidNamespace: 'boot-2/pid:[1]' };
const A2: LeaseHolder = { host: 'box-a', pid: 5151, pidNamespace: 'boot-1/pid:[1]' };

function db(): Database.Database {
  return new Database(join(mkdtempSync(join(tmpdir(), 'lease-')), 'run.db'));
}

describe('a run has one writer: its lease', () => {
  it('a second taker on a live lease is refused, naming the holder host, pid and since when', () => {
    const d = db();
    let now = 1_700_000_000_000_000;
    const first = takeRunLease(d, 'run_1', { dbPath: '/x/run.db', nowUs: () => now, holder: A, isAlive: () => true });
    now += 1_000_000;
    let err: unknown = null;
    try {
      takeRunLease(d, 'run_1', { dbPath: '/x/run.db', nowUs: () => now, holder: B, isAlive: () => true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SetupError);
    expect((err as Error).message).toContain('/x/run.db: run run_1 is being written by another bench: host box-a, pid 4242, since 2023-11-14T22:13:20.000000Z');
    first.assertHeld();
    first.release();
  });

  it('a lease whose holder stopped beating is taken over after the stale window, from any host; the old holder then may not write', () => {
    const d = db();
    let now = 0;
    const first = takeRunLease(d, 'run_1', { dbPath: 'r.db', nowUs: () => now, holder: A, isAlive: () => true });
    now += LEASE_STALE_US; // exactly at the window: still held
    expect(() => takeRunLease(d, 'run_1', { dbPath: 'r.db', nowUs: () => now, holder: B, isAlive: () => true })).toThrow(/being written by another bench/);
    now += 1;
    const second = takeRunLease(d, 'run_1', { dbPath: 'r.db', nowUs: () => now, holder: B, isAlive: () => true });
    expect(second.tookOverFrom?.host).toBe('box-a');
    expect(() => first.assertHeld()).toThrow(/taken over by another bench \(host box-b, pid 777/);
    second.assertHeld();
    // The old holder's release must not free the new holder's lease.
    first.release();
    second.assertHeld();
  });

  it('on the same machine a holder whose pid is gone is taken over at once; a live pid or another pid namespace is not', () => {
    const d = db();
    const now = () => 10;
    takeRunLease(d, 'run_1', { dbPath: 'r.db', nowUs: now, holder: A, isAlive: () => true });
    // Same host name, other machine (another boot / pid namespace): the pid says nothing there.
    expect(() => takeRunLease(d, 'run_1', { dbPath: 'r.db', nowUs: now, holder: { ...A2, pidNamespace: 'boot-9/pid:[1]' }, isAlive: () => false })).toThrow(/being written/);
    expect(() => takeRunLease(d, 'run_1', { dbPath: 'r.db', nowUs: now, holder: A2, isAlive: () => true })).toThrow(/being written/);
    const taken = takeRunLease(d, 'run_1', { dbPath: 'r.db', nowUs: now, holder: A2, isAlive: (pid) => pid !== 4242 });
    expect(taken.tookOverFrom?.pid).toBe(4242);
  });

  it('the heartbeat keeps a lease alive past the stale window; release frees the run', async () => {
    const d = db();
    let now = 0;
    const first = takeRunLease(d, 'run_1', { dbPath: 'r.db', nowUs: () => now, holder: A, isAlive: () => true, heartbeatMs: 5 });
    now = 3 * LEASE_STALE_US;
    await new Promise((r) => setTimeout(r, 40));
    expect(() => takeRunLease(d, 'run_1', { dbPath: 'r.db', nowUs: () => now + 1, holder: B, isAlive: () => true })).toThrow(/being written/);
    first.release();
    takeRunLease(d, 'run_1', { dbPath: 'r.db', nowUs: () => now, holder: B, isAlive: () => true }).release();
    // Leases are per run: another run in the same DB is free.
    takeRunLease(d, 'run_2', { dbPath: 'r.db', nowUs: () => now, holder: A, isAlive: () => true }).release();
  });
});
