import { copyFileSync, existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { SetupError } from '../errors.ts';

/**
 * Checkpoints of a run's pattern store, so `--resume` can roll back what a half-written rep taught it.
 *
 * `<patterns.db>.ckpt-K` is the store as it stood after the run's first K finished reps (reps cut
 * short by --max-cost or Ctrl-C do not count: resume runs them again). A finished rep writes
 * ckpt-(K+1) (temp file, then rename), then commits its row to the trace DB, then removes ckpt-K; a
 * kill between any two steps leaves the checkpoint matching the trace DB's K on disk.
 */
export function checkpointPath(patternsPath: string, finishedReps: number): string {
  return `${patternsPath}.ckpt-${finishedReps}`;
}

/** Copies the store's committed state (SQLite online backup, page for page) to ckpt-K. */
export async function writeCheckpoint(patternsPath: string, finishedReps: number): Promise<void> {
  const target = checkpointPath(patternsPath, finishedReps);
  const tmp = `${target}.tmp`;
  rmSync(tmp, { force: true });
  if (existsSync(patternsPath)) {
    const db = new Database(patternsPath, { readonly: true, fileMustExist: true });
    try {
      await db.backup(tmp);
    } finally {
      db.close();
    }
  } else {
    // No store file yet: the checkpoint is an empty SQLite file, restored as "no store".
    new Database(tmp).close();
  }
  renameSync(tmp, target);
}

/** Removes ckpt-K (the previous checkpoint once the next rep is committed). */
export function dropCheckpoint(patternsPath: string, finishedReps: number): void {
  rmSync(checkpointPath(patternsPath, finishedReps), { force: true });
}

/** Every checkpoint of a store, as K values. */
export function listCheckpoints(patternsPath: string): number[] {
  const dir = dirname(patternsPath);
  const prefix = `${basename(patternsPath)}.ckpt-`;
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && /^\d+$/.test(f.slice(prefix.length)))
    .map((f) => Number(f.slice(prefix.length)));
}

/** Removes every checkpoint (a run that finished complete has nothing to resume). */
export function dropAllCheckpoints(patternsPath: string): void {
  for (const k of listCheckpoints(patternsPath)) dropCheckpoint(patternsPath, k);
  rmSync(`${checkpointPath(patternsPath, 0)}.tmp`, { force: true });
}

/**
 * Puts the store back as it was after `finishedReps` finished reps: the checkpoint replaces the
 * store file (and its WAL), every other checkpoint is removed. Without that checkpoint the store
 * cannot be trusted and resume refuses, naming the file.
 */
export function restoreCheckpoint(patternsPath: string, finishedReps: number): void {
  const source = checkpointPath(patternsPath, finishedReps);
  if (!existsSync(source))
    throw new SetupError(
      `${source}: no pattern-store checkpoint after ${finishedReps} finished rep(s), so the store cannot be rolled back to match the trace DB; start the run again with a new --db-path`,
    );
  for (const suffix of ['-wal', '-shm']) rmSync(patternsPath + suffix, { force: true });
  const tmp = `${patternsPath}.restore.tmp`;
  copyFileSync(source, tmp);
  renameSync(tmp, patternsPath);
  for (const k of listCheckpoints(patternsPath)) if (k !== finishedReps) dropCheckpoint(patternsPath, k);
  for (const f of readdirSync(dirname(patternsPath))) if (f.startsWith(`${basename(patternsPath)}.ckpt-`) && f.endsWith('.tmp')) rmSync(join(dirname(patternsPath), f), { force: true });
}
