import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { openPatternDb } from './pattern-db.ts';

const dir = mkdtempSync(join(tmpdir(), 'pattern-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

describe('openPatternDb', () => {
  it('prepares a statement when it is first run, not when the file opens', () => {
    const path = join(dir, 'store.db');
    openPatternDb(path, 1000).close();
    const prepare = vi.spyOn(Database.prototype, 'prepare');
    const d = openPatternDb(path, 1000);
    try {
      const atOpen = prepare.mock.calls.length;
      expect(d.read(() => d.allFingerprints())).toEqual([]);
      expect(d.allFingerprints()).toEqual([]);
      const fingerprintReads = prepare.mock.calls.slice(atOpen).filter(([sql]) => /FROM fingerprints ORDER BY/.test(sql));
      // Prepared once, at the first read, and kept.
      expect(fingerprintReads).toHaveLength(1);
      // The open prepared none of the store's statements (only its pragmas' and data_version's).
      expect(prepare.mock.calls.slice(0, atOpen).filter(([sql]) => !/^PRAGMA /i.test(sql))).toEqual([]);
    } finally {
      d.close();
    }
  });

  it('statements prepared late read and write as before', () => {
    const d = openPatternDb(join(dir, 'rw.db'), 1000);
    try {
      d.write(() => d.insertFingerprint({ id: 'f1', kind: 'structural', structural_json: '{}', structural_sig: 's1', created_at_us: 5 }));
      expect(d.fingerprintBySig('s1')?.id).toBe('f1');
      expect(d.countFingerprints()).toBe(1);
      expect(d.deleteOrphan('f1')).toBe(true);
      expect(d.countFingerprints()).toBe(0);
    } finally {
      d.close();
    }
  });
});
