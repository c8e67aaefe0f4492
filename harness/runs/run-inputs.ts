import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { SetupError } from '../errors.ts';

/**
 * What a run's reps were judged with, as content digests: each selected workload's workload.yaml,
 * workspace/, check/ and sim script, and the commit. `bench run --resume` compares them with what is
 * on disk now, so reps judged by different checks (or code) never mix silently.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS bench_run_inputs (
  run_id TEXT NOT NULL,
  input TEXT NOT NULL,
  digest TEXT NOT NULL,
  PRIMARY KEY (run_id, input)
);
`;

/** The parts of a workload that are hashed, and where they live. */
export interface WorkloadParts {
  name: string;
  dir: string;
  workspaceDir: string;
  checkDir: string | null;
  simScriptPath: string | null;
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** SHA-256 over a file tree: every entry's relative path, kind and content (a link's target, not what it points to), in sorted order. */
export function treeDigest(root: string): string {
  const h = createHash('sha256');
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(root, path));
      if (st.isSymbolicLink()) h.update(`L\0${path}\0${readlinkSync(join(root, path))}\n`);
      else if (st.isDirectory()) {
        h.update(`D\0${path}\n`);
        walk(path);
      } else h.update(`F\0${path}\0${(st.mode & 0o111) !== 0 ? 'x' : '-'}\0${sha(readFileSync(join(root, path)))}\n`);
    }
  };
  walk('');
  return h.digest('hex');
}

/** The inputs of a run as "name → digest": `commit`, and `<workload> workload.yaml|workspace/|check/|sim` per workload. */
export function runInputs(workloads: readonly WorkloadParts[], commit: string | null): Map<string, string> {
  const out = new Map<string, string>([['commit', commit ?? '(not a git checkout)']]);
  const file = (p: string | null) => (p && existsSync(p) ? sha(readFileSync(p)) : '(absent)');
  for (const w of workloads) {
    out.set(`${w.name} workload.yaml`, file(join(w.dir, 'workload.yaml')));
    out.set(`${w.name} workspace/`, treeDigest(w.workspaceDir));
    out.set(`${w.name} check/`, w.checkDir && existsSync(w.checkDir) ? treeDigest(w.checkDir) : '(absent)');
    out.set(`${w.name} sim script`, file(w.simScriptPath));
  }
  return out;
}

/** What differs between the inputs a run recorded and those now, one line each (empty when none). */
export function inputChanges(stored: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of now) {
    const was = stored.get(k);
    if (was === undefined) out.push(`${k}: not recorded before`);
    else if (was !== v) out.push(k === 'commit' ? `commit: ${was.slice(0, 12)} -> ${v.slice(0, 12)}` : `${k} changed`);
  }
  for (const k of stored.keys()) if (!now.has(k)) out.push(`${k}: recorded before, gone now`);
  return out;
}

/** The inputs stored for a run; null when the DB records none (written by an older bench). */
export function storedInputs(db: Database, runId: string): Map<string, string> | null {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'bench_run_inputs'").get() === undefined) return null;
  const rows = db.prepare('SELECT input, digest FROM bench_run_inputs WHERE run_id = ?').all(runId) as { input: string; digest: string }[];
  return rows.length ? new Map(rows.map((r) => [r.input, r.digest])) : null;
}

/**
 * Records the run's inputs. On `--resume`, first compares them with what the DB recorded and refuses
 * (exit 2, listing each change) unless `acceptChanged`; returns the changes accepted.
 */
export function reconcileRunInputs(db: Database, runId: string, now: ReadonlyMap<string, string>, o: { dbPath: string; resume: boolean; acceptChanged: boolean }): string[] {
  db.exec(SCHEMA);
  const stored = o.resume ? storedInputs(db, runId) : null;
  const changes = !o.resume ? [] : stored === null ? ['workload and commit digests: not recorded (the DB was written by an older bench)'] : inputChanges(stored, now);
  if (changes.length && !o.acceptChanged)
    throw new SetupError(
      `--resume ${o.dbPath}: what the run's reps were judged with has changed since it started:\n  ${changes.join('\n  ')}\n` +
        'Put the workloads (and checkout) back as they were, or start a new run with a new --db-path; --accept-changed resumes anyway and the report says so',
    );
  db.transaction(() => {
    db.prepare('DELETE FROM bench_run_inputs WHERE run_id = ?').run(runId);
    const ins = db.prepare('INSERT INTO bench_run_inputs (run_id, input, digest) VALUES (?, ?, ?)');
    for (const [k, v] of now) ins.run(runId, k, v);
  })();
  return changes;
}
