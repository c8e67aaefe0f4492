import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.ts';
import { runTool, toolErrorOf } from '../test-support/run-tool.ts';
import { createRunShellTool } from './run-shell.ts';

let fx: WorkspaceFixture;
beforeEach(() => {
  fx = createWorkspaceFixture({ 'a.txt': 'alpha\n' });
});
afterEach(() => fx.cleanup());

// sandbox 'auto': whichever this machine has; the output contract is the same.
const shell = createRunShellTool({ hostPath: process.env.PATH ?? '' });

describe('run_shell', () => {
  it('returns the output followed by the exit code', async () => {
    const out = await runTool(shell, { command: 'cat a.txt' }, fx.ws);
    expect(out).toEqual({ content: 'alpha\n[exit code: 0]', command_executed: 'cat a.txt', success: true });
  });

  it('treats a non-zero exit as a completed call that reports the code', async () => {
    const out = await runTool(shell, { command: 'echo oops >&2; exit 4' }, fx.ws);
    expect(out.content).toBe('oops\n[exit code: 4]');
    expect(out.success).toBe(false);
  });

  it('never shows the absolute workspace location, so output is the same run to run', async () => {
    const out = await runTool(shell, { command: 'pwd; echo "$HOME/a.txt"; ls "$PWD"' }, fx.ws);
    // HOME is a fresh empty directory (issue 12), shown as ~ since its name is random.
    expect(out.content).toBe('.\n~/a.txt\na.txt\n[exit code: 0]');
  });

  it('fails with timeout when the command overruns timeout_seconds', async () => {
    const e = await toolErrorOf(runTool(shell, { command: 'sleep 30', timeout_seconds: 0.3 }, fx.ws));
    expect(e.errorClass).toBe('timeout');
    expect(e.message).toContain('0.3s');
  });

  it('declares its input schema with the fixed field names and limits', () => {
    expect(shell.side_effects).toBe('execute');
    expect(shell.input_schema).toMatchObject({
      additionalProperties: false,
      required: ['command'],
      properties: { timeout_seconds: { default: 60, maximum: 600 } },
    });
  });
});
