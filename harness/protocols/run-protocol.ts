import type { Analytics } from '../../runtime/analytics/index.ts';
import type { PatternSlot } from '../../runtime/learning/index.ts';
import type { PatternStore } from '../../runtime/patterns/index.ts';
import type { TurnRouter } from '../../runtime/routing/index.ts';
import type { BenchReport, Provenance } from '../../schemas/types/report.ts';
import type { FingerprintSource } from '../report/protocol-metrics.ts';
import type { RunStore, WorkloadRunRecord } from '../runs/run-store.ts';
import type { RunnerDeps } from '../runner/run-workload.ts';
import type { RunJob, ShardSpec } from '../runner/shard.ts';
import type { Workload } from '../workloads/workload.ts';
import type { HoldoutKind, PassSpec, ProtocolName } from './protocol.ts';

/**
 * A protocol of `bench run` (single, signal, A3): the suite runner plans its jobs, runs each one
 * through it, and asks it for its report section. The runner owns only orchestration (trace DB,
 * job ledger, checkpoints, concurrency, progress, resume); what a job means lives here.
 */
export interface RunProtocol {
  readonly name: ProtocolName;
  /** The passes in run order: what `--passes` selects from and the report orders by. */
  readonly passes: readonly PassSpec[];
  /** Every job of the whole run in one-machine order (refused past `maxJobs`, exit 2). */
  plan(workloads: readonly Workload[], reps: number, maxJobs: number): RunJob[];
  /** Runs one planned job to its rep record. */
  runOne(job: RunJob, ctx: ProtocolContext): Promise<WorkloadRunRecord>;
  /** After a pass has run `ran` jobs here: recording errors it finds (a seeding pass that left turns out of the store). */
  afterPass(pass: PassSpec, ran: number, ctx: ProtocolContext): string[];
  /** Work after the planned passes that is not in the job plan (A3's C-oos holdout); true when it stopped early. */
  finish(ctx: ProtocolContext): Promise<boolean>;
  /** The report's `protocol_metrics`, from the trace DB alone (null when the protocol has none). */
  reportSection(input: ReportSectionInput): BenchReport['protocol_metrics'];
}

/** What a protocol sees of a run while it executes. */
export interface ProtocolContext {
  runId: string;
  workloads: readonly Workload[];
  seedPasses: number;
  temperature: number;
  /** `--model` (forced cheap) and `--baseline` (forced strong). */
  cheapModel: string;
  strongModel: string;
  shard: ShardSpec | null;
  holdout: HoldoutKind | null;
  /** `--seed`: what the random arm's coins are derived from. */
  runSeed: number;
  /** A3: run Pass R, the random router at Pass C's share, after the planned passes (off with --no-random-arm). */
  randomArm: boolean;
  /** The run's shared pattern store. */
  patterns: PatternStore;
  runs: RunStore;
  /** The collaborators every rep shares; a job adds the router and the progress callback. */
  deps: Omit<RunnerDeps, 'router' | 'onProgress'>;
  /** The run's router (slot 4 over the run's store). */
  router: TurnRouter;
  /** The policy chain without slot 4 (no pattern store): what Pass R's coin routes through. */
  chainRouter: TurnRouter;
  /** Analytics over the trace DB as committed so far. */
  analytics(): Analytics;
  /** The runner's progress line, for planned jobs. */
  onProgress: NonNullable<RunnerDeps['onProgress']>;
  /** Opens an empty pattern store of the run's kind at `path`, emitting no events. */
  openStore(path: string): PatternStore;
  /** Slot 4 over `store`, and a router that uses it. */
  routerFor(store: PatternStore): { router: TurnRouter; slot: PatternSlot };
  /** Stops the run's learning loop (the run's store learns nothing more). */
  stopLearning(): void;
  /** Commits a rep run outside the job plan; true to stop (e.g. --max-cost reached). */
  onRecord(record: WorkloadRunRecord): boolean;
  /** Lets the event bus deliver what is queued. */
  drain(): Promise<void>;
}

/** What a protocol's report section is built from. */
export interface ReportSectionInput {
  analytics: Analytics;
  records: readonly WorkloadRunRecord[];
  provenance: Provenance;
  fingerprints: FingerprintSource<unknown> | null;
  fingerprintsV2: FingerprintSource<unknown> | null;
}
