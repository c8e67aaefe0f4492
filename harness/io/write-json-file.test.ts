import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeJsonFile } from './write-json-file.ts';

describe('writeJsonFile: a report is replaced whole or not at all', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'metis-json-'));
    dirs.push(d);
    return d;
  };

  it('writes indented JSON with a final newline over the previous file, leaving nothing else beside it', () => {
    const d = dir();
    const path = join(d, 'report.json');
    writeFileSync(path, '{"old": true}\n');
    writeJsonFile(path, { a: [1, 2], b: 'x' });
    expect(readFileSync(path, 'utf8')).toBe('{\n  "a": [\n    1,\n    2\n  ],\n  "b": "x"\n}\n');
    expect(readdirSync(d)).toEqual(['report.json']);
  });

  it('writes the UTF-8 of JSON.stringify(value, null, 2) and a newline, byte for byte, non-ASCII text and nesting included', () => {
    const d = dir();
    const path = join(d, 'report.json');
    const value = { v: 1, workloads: [{ name: 'a', reps: [{ tail: 'ok' }] }, { name: 'b', reps: [{ tail: '本日 ０１４３ – −1' }] }], headline: { method: 'Bell–McCaffrey', n: null }, list: [] };
    writeJsonFile(path, value);
    expect(readFileSync(path).equals(Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8'))).toBe(true);
  });

  it('a write that fails half-way leaves the previous report as it was, and no temporary file', () => {
    const d = dir();
    const path = join(d, 'report.json');
    writeFileSync(path, '{"old": true}\n');
    // The temporary file's name taken by a directory: the write fails where a full disk or a kill would stop it.
    mkdirSync(`${path}.${process.pid}.tmp`);
    expect(() => writeJsonFile(path, { new: true })).toThrow(/EISDIR|illegal operation on a directory/);
    expect(readFileSync(path, 'utf8')).toBe('{"old": true}\n');
    expect(readdirSync(d)).toEqual(['report.json']);
  });

  it('a value JSON cannot hold is refused before anything is written', () => {
    const d = dir();
    const path = join(d, 'report.json');
    writeFileSync(path, '{"old": true}\n');
    expect(() => writeJsonFile(path, { n: 1n })).toThrow(/BigInt/);
    expect(readFileSync(path, 'utf8')).toBe('{"old": true}\n');
  });
});
