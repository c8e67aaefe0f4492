import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isPatternStoreV2, type PatternStore, type StoredFingerprint, type StoredOutcome } from '../../runtime/patterns/index.ts';
import type { PatternSlot } from '../../runtime/learning/index.ts';
import type { TurnRouter } from '../../runtime/routing/index.ts';
import { HOLDOUT_PASS } from '../jobs/passes.ts';
import type { WorkloadRunRecord } from '../runs/run-store.ts';
import type { Workload } from '../workloads/workload.ts';
import { runWorkloadRep, type RunnerDeps } from '../runner/run-workload.ts';

/**
 * What Passes A and B left in the run's pattern store, taken before Pass C learns anything: the
 * fingerprints (with their workload), their outcome accumulators and, under v2, their embeddings.
 */
export interface HoldoutSeed {
  fingerprints: ReadonlyMap<string, StoredFingerprint & { embedding: Float32Array | null }>;
  outcomes: readonly StoredOutcome[];
}

/** Copies the seeded store's rows (call it right after Pass B). */
export function snapshotSeed(store: PatternStore): HoldoutSeed {
  const v2 = isPatternStoreV2(store) ? store : null;
  return {
    fingerprints: new Map(store.fingerprints().map((f) => [f.id, { ...f, embedding: v2?.fingerprintEmbedding(f.id) ?? null }])),
    outcomes: store.outcomes(),
  };
}

/**
 * Fills an empty store with every seed outcome whose fingerprint is NOT from `heldOut`, with
 * `workload_id` null as in real traffic (pattern-store.md §5.2). Each accumulator is replayed through
 * the store's own API: `sample_size` records at the row's mean cost and latency, then
 * `success_score_count` verdicts at its mean score, which leaves the same counts and means.
 */
export function seedWithout(target: PatternStore, seed: HoldoutSeed, heldOut: string): { outcomes: number; skipped: number } {
  const v2 = isPatternStoreV2(target) ? target : null;
  let outcomes = 0;
  let skipped = 0;
  for (const o of seed.outcomes) {
    const fp = seed.fingerprints.get(o.fingerprint_id);
    if (!fp || fp.structural.workload_id === heldOut) {
      skipped += 1;
      continue;
    }
    outcomes += 1;
    const features = { ...fp.structural, workload_id: null };
    for (let i = 0; i < o.sample_size; i++) {
      const turn_id = `holdout:${o.fingerprint_id}:${o.primary_model}:${i}`;
      const ctx = { session_id: 'holdout-seed', turn_id, parent_event_id: null };
      const input = { turn_id, features, primary_model: o.primary_model, success_score: null, cost_usd: o.avg_cost_usd, latency_ms: o.avg_latency_ms, pricing_version: o.pricing_version_last };
      if (v2) v2.record({ ...input, embedding: fp.embedding }, ctx);
      else target.record(input, ctx);
      if (i < o.success_score_count)
        target.updateScore({ turn_id, score: o.success_score_mean, confidence: 1, eval_id: `eval:${turn_id}`, pricing_version: null, min_eval_confidence: 0 }, ctx);
    }
  }
  return { outcomes, skipped };
}

/** What the holdout pass needs from the run. */
export interface HoldoutRunOptions {
  runId: string;
  workloads: readonly Workload[];
  seedPasses: number;
  temperature: number;
  seed: HoldoutSeed;
  /** Opens an empty pattern store of the run's kind (v1 or v2) at `path`, emitting no events. */
  openStore(path: string): PatternStore;
  /** Slot 4 over a store, and a router that uses it. */
  routerFor(slot: PatternStore): { router: TurnRouter; slot: PatternSlot };
  /** Shared collaborators of every rep (the router is replaced per workload). */
  deps: Omit<RunnerDeps, 'router'>;
  /** Called with each finished rep; return true to stop (e.g. --max-cost reached). */
  onRecord(record: WorkloadRunRecord): boolean;
}

/**
 * Pass C-oos (`--holdout workload`): for each workload, a frozen store seeded from the other
 * workloads' A and B outcomes routes that workload's reps, with `workload_id` null on the turns too.
 * The sim is asked for pass C's draws, so C-oos is paired with Pass C rep by rep. The stores are
 * temporary and do not learn during the pass (its own outcomes never reach its own routing).
 */
export async function runHoldoutPass(o: HoldoutRunOptions): Promise<{ stopped: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'metis-holdout-'));
  try {
    for (const workload of o.workloads) {
      const store = o.openStore(join(dir, `${workload.spec.name}.db`));
      try {
        seedWithout(store, o.seed, workload.spec.name);
        const { router } = o.routerFor(store);
        for (let rep = 0; rep < o.seedPasses; rep++) {
          if (o.deps.interrupt?.aborted) return { stopped: true };
          const record = await runWorkloadRep(
            { runId: o.runId, workload, pass: HOLDOUT_PASS.name, rep, stickyModel: null, temperature: o.temperature, workloadId: null },
            { ...o.deps, router, providerFor: (w, _pass, r) => o.deps.providerFor(w, 'C', r) },
          );
          if (o.onRecord(record)) return { stopped: true };
        }
      } finally {
        store.close();
      }
    }
    return { stopped: false };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
