// A matrix router reads each cluster's workspace routing.yaml once: nothing edits a run's workspaces while it
// routes, and the runtime's per-turn read (a session's agent may edit its file) cost a file check per task.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../runtime/core/clock.ts';
import { createMemoryLogger } from '../../runtime/core/logger.ts';
import { createEventBus } from '../../runtime/events/bus.ts';
import { openMemoryPatternStore } from '../../runtime/patterns/index.ts';
import { defaultRoutingConfig } from '../../runtime/routing/index.ts';
import { createMatrixRouter } from './matrix-router.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function setup() {
  const workspacesDir = mkdtempSync(join(tmpdir(), 'matrix-ws-'));
  dirs.push(workspacesDir);
  mkdirSync(join(workspacesDir, 'k1', '.metis'), { recursive: true });
  const write = (text: string) => writeFileSync(join(workspacesDir, 'k1', '.metis', 'routing.yaml'), text);
  const logger = createMemoryLogger();
  const clock = createVirtualClock(1_700_000_000_000_000);
  const bus = createEventBus({ mode: 'strict', logger, clock });
  // An empty store: slot 4 abstains, so the workspace file's default_model (slot 6) decides.
  const router = () =>
    createMatrixRouter({ models: ['cheap', 'strong'], defaultModel: 'cheap', routing: defaultRoutingConfig(), store: openMemoryPatternStore('ws-test', { logger, clock }), bus, workspacesDir, pricingVersion: 'test' });
  return { write, router };
}

describe('matrix router: workspace routing.yaml', () => {
  it("applies a cluster's file, read once per router: a change mid-run reaches the next router only", () => {
    const { write, router } = setup();
    write('default_model: strong\n');
    const task = { text: 'What is 2 + 2?', cluster: 'k1' };
    const other = { text: 'Name a prime.', cluster: 'k2' };
    const first = router();
    expect(first.route(task, 'known', 't1', 0)).toBe(1);
    expect(first.route(other, 'known', 't2', 0)).toBe(0);
    write('default_model: cheap\n');
    // The same router, by either path: the file as it read it.
    expect(first.route(task, 'known', 't3', 0.1)).toBe(1);
    expect(first.prepare!(task, 'known').route('t4', 0.2)).toBe(1);
    // A fresh router (the next fold's) reads the file as it now is.
    expect(router().route(task, 'known', 't5', 0)).toBe(0);
  });
});
