import { describe, expect, it } from 'vitest';
import { bench } from '../support/cli.ts';

describe('bench plan (issue 23 item 6)', () => {
  it('plans from an A3 report: components, both targets, USD per design at the report’s prices', async () => {
    const r = await bench(['plan', '--from', 'test/fixtures/reports/a3.json', '--margin', '5', '--width', '10']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/variance components \(pts²\): workloads [\d.]+, runs not estimated/);
    expect(r.stdout).toContain('Target: a 95% interval 10.0 pts wide (half-width ±5.0)');
    expect(r.stdout).toContain('Target: decide non-inferiority at 5.0 pts with 80% power');
    // The words match the math: the decisive half-width is max(d + M, −d), the distance to the farther boundary.
    const d = Number(/pilot difference ([+−][\d.]+) pts/.exec(r.stdout)![1]!.replace('−', '-'));
    expect(r.stdout).toContain(`decides once its half-width is under ${Math.max(d + 5, -d).toFixed(1)} pts, the distance to the farther of −5.0 and 0`);
    expect(r.stdout).not.toContain('nearer');
    expect(r.stdout).toMatch(/at prices \S+ \(simulated provider/);
    expect(r.stdout).toMatch(/\$\d+\.\d\d/);
  });

  it('refuses a non-A3 pilot and a missing file, exit 2 naming the file and the fix', async () => {
    const single = await bench(['plan', '--from', 'test/fixtures/reports/single.json']);
    expect(single.code).toBe(2);
    expect(single.stderr).toMatch(/single\.json: protocol single; bench plan needs an A3 run.*--protocol a3/);
    const missing = await bench(['plan', '--from', 'nope.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.json: no such file; give a report JSON/);
    expect((await bench(['plan', '--from', 'test/fixtures/reports/a3.json', '--width', '0'])).code).toBe(2);
  });
});
