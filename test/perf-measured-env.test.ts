import { describe, expect, it } from 'vitest';
import { measuredEnv, START_COST_VARIABLES } from '../scripts/perf/measured-env.ts';

describe('the environment timed processes get (scripts/perf/measured-env.ts)', () => {
  it('drops the variables that cost every Node start, names them, and leaves the rest and the input alone', () => {
    const inherited = { PATH: '/usr/bin', NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt', HOME: '/root' };
    const { env, removed } = measuredEnv(inherited);
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/root' });
    expect(removed).toEqual(['NODE_EXTRA_CA_CERTS']);
    expect(inherited.NODE_EXTRA_CA_CERTS).toBe('/etc/ssl/certs/ca-certificates.crt');
  });

  it('names nothing when none is set', () => {
    const { env, removed } = measuredEnv({ PATH: '/usr/bin' });
    expect(removed).toEqual([]);
    expect(env).toEqual({ PATH: '/usr/bin' });
    expect(START_COST_VARIABLES).toContain('NODE_EXTRA_CA_CERTS');
  });
});
