import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { cachedParse, cachedResult } from './parsed-file-cache.ts';

const temp = () => mkdtempSync(join(tmpdir(), 'parsed-cache-'));

describe('cachedParse', () => {
  it('parses an unchanged file once, and again after any change to it', () => {
    const dir = temp();
    const cache = temp();
    const file = join(dir, 'a.yaml');
    writeFileSync(file, 'x: 1\n');
    const parse = vi.fn(() => ({ x: 1, list: [1, 'two', null, true], nested: { y: 'z' } }));
    const first = cachedParse('t', file, parse, cache);
    const second = cachedParse('t', file, parse, cache);
    expect(parse).toHaveBeenCalledTimes(1);
    expect(second).toEqual(first);
    // Same size, later mtime: parsed again.
    writeFileSync(file, 'x: 2\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    const edited = vi.fn(() => ({ x: 2 }));
    expect(cachedParse('t', file, edited, cache)).toEqual({ x: 2 });
    expect(edited).toHaveBeenCalledTimes(1);
    expect(cachedParse('t', file, edited, cache)).toEqual({ x: 2 });
    expect(edited).toHaveBeenCalledTimes(1);
  });

  it('parses every time without a cache folder, after a parse that threw, and for data JSON would change', () => {
    const dir = temp();
    const cache = temp();
    const file = join(dir, 'a.yaml');
    writeFileSync(file, 'x: 1\n');
    const plain = vi.fn(() => ({ x: 1 }));
    cachedParse('t', file, plain, undefined);
    cachedParse('t', file, plain, undefined);
    expect(plain).toHaveBeenCalledTimes(2);

    const broken = vi.fn((): unknown => {
      throw new Error(`${file}:1:1: bad`);
    });
    expect(() => cachedParse('t', file, broken, cache)).toThrow('bad');
    expect(() => cachedParse('t', file, broken, cache)).toThrow('bad');
    expect(broken).toHaveBeenCalledTimes(2);

    // Infinity and undefined do not survive JSON: such a result is never kept.
    const odd = vi.fn(() => ({ big: Infinity, gone: undefined as unknown }));
    expect(cachedParse('u', file, odd, cache).big).toBe(Infinity);
    expect(cachedParse('u', file, odd, cache).big).toBe(Infinity);
    expect(odd).toHaveBeenCalledTimes(2);
    expect(readdirSync(cache)).toEqual([]);
  });

  it('keeps files of different kinds and paths apart', () => {
    const dir = temp();
    const cache = temp();
    const a = join(dir, 'a.yaml');
    const b = join(dir, 'b.yaml');
    writeFileSync(a, 'same\n');
    writeFileSync(b, 'same\n');
    expect(cachedParse('k', a, () => 'A', cache)).toBe('A');
    expect(cachedParse('k', b, () => 'B', cache)).toBe('B');
    expect(cachedParse('other', a, () => 'A2', cache)).toBe('A2');
    expect(cachedParse('k', a, () => 'never', cache)).toBe('A');
  });

  it('keeps a result against several paths, missing ones and folders included, and computes again when any of them changes', () => {
    const dir = temp();
    const cache = temp();
    const file = join(dir, 'a.yaml');
    const folder = join(dir, 'sub');
    const absent = join(dir, 'later.yaml');
    writeFileSync(file, 'x: 1\n');
    mkdirSync(folder);
    const paths = [file, folder, absent];
    let calls = 0;
    const compute = () => ({ n: ++calls });
    expect(cachedResult('m', paths, compute, cache)).toEqual({ n: 1 });
    expect(cachedResult('m', paths, compute, cache)).toEqual({ n: 1 });
    // The missing path appears: computed again, then kept.
    writeFileSync(absent, 'y\n');
    expect(cachedResult('m', paths, compute, cache)).toEqual({ n: 2 });
    expect(cachedResult('m', paths, compute, cache)).toEqual({ n: 2 });
    // The folder is replaced by a file of its name: computed again.
    rmSync(folder, { recursive: true });
    writeFileSync(folder, '');
    expect(cachedResult('m', paths, compute, cache)).toEqual({ n: 3 });
    // The same paths in another order are another question, as are other paths.
    expect(cachedResult('m', [absent, folder, file], compute, cache)).toEqual({ n: 4 });
    expect(cachedResult('m', [file], compute, cache)).toEqual({ n: 5 });
    expect(cachedResult('m', paths, compute, cache)).toEqual({ n: 3 });
    // An edit of the first path, same size, later mtime: computed again.
    writeFileSync(file, 'x: 2\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(cachedResult('m', paths, compute, cache)).toEqual({ n: 6 });
  });
});
