import { readdirSync } from 'node:fs';
import { Command, Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_CATALOG, requestedCommand } from './command-catalog.ts';
import type { CliIO } from '../io/cli-io.ts';
import { main } from './main.ts';

/** Runs `bench ARGS` in-process and returns what it printed. */
async function bench(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { out: (s) => out.push(s), err: (s) => err.push(s), isTTY: false, progress: () => {}, env: {}, cwd: process.cwd() };
  const code = await main(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('the command catalog', () => {
  it('lists exactly the twelve commands bench registered before it loaded them lazily, one per module', () => {
    expect(COMMAND_CATALOG.map((e) => e.name)).toEqual(['run', 'list', 'validate', 'analyze', 'report', 'compare', 'signal', 'view', 'merge', 'export', 'import', 'plan']);
    const modules = readdirSync(new URL('./commands/', import.meta.url)).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(modules.map((f) => f.replace(/\.ts$/, '')).sort()).toEqual(COMMAND_CATALOG.map((e) => e.name).sort());
  });

  it('gives each command the usage its module configures, so bench --help reads as when every module was loaded', async () => {
    const help = new Help();
    for (const entry of COMMAND_CATALOG) {
      const cmd = new Command('bench').command(entry.name);
      (await entry.load()).configure(cmd);
      expect(help.subcommandTerm(cmd), entry.name).toBe(`${entry.name} ${entry.usage}`);
    }
  });

  it('prints the same bench --help as a program with every command configured', async () => {
    const eager = new Command('bench')
      .description('Metis bench: run LLM-agent workloads through the Metis runtime and report cost savings and quality.')
      .exitOverride()
      .showHelpAfterError('(run with --help for usage)');
    for (const entry of COMMAND_CATALOG) (await entry.load()).configure(eager.command(entry.name).description(entry.description));
    const lazy = await bench(['--help']);
    expect(lazy.code).toBe(0);
    expect(lazy.out).toBe(eager.helpInformation().trimEnd());
  });

  it("configures the command named on the line, also after `help`, and only that one's flags apply", async () => {
    const run = await bench(['run', '--help']);
    expect(run.code).toBe(0);
    expect(run.out).toContain('--workload');
    const validate = await bench(['help', 'validate']);
    expect(validate.out).toContain('Usage: bench validate [options] [paths...]');
    const list = await bench(['list', '--no-such-flag']);
    expect(list.code).toBe(2);
    expect(list.err).toContain("unknown option '--no-such-flag'");
  });

  it('reads the requested command as commander does: the first word, or the one after help', () => {
    expect(requestedCommand(['list', '--json'])?.name).toBe('list');
    expect(requestedCommand(['help', 'run'])?.name).toBe('run');
    expect(requestedCommand(['--help'])).toBeUndefined();
    expect(requestedCommand(['nosuch', 'run'])).toBeUndefined();
  });
});
