import { describe, expect, it } from 'vitest';
import { parseSandboxMode } from './sandbox-mode.ts';

describe('parseSandboxMode', () => {
  it('reads the four modes, and nothing or empty as auto', () => {
    expect(parseSandboxMode(undefined)).toBe('auto');
    expect(parseSandboxMode('')).toBe('auto');
    for (const m of ['auto', 'bwrap', 'unshare', 'none']) expect(parseSandboxMode(m)).toBe(m);
  });

  it('refuses anything else, naming the source and the accepted values', () => {
    expect(() => parseSandboxMode('off')).toThrow(/METIS_SANDBOX="off" is not a sandbox mode; use one of auto, bwrap, unshare, none/);
    expect(() => parseSandboxMode('BWRAP', '--sandbox')).toThrow(/--sandbox="BWRAP"/);
  });
});
