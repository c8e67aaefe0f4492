import type { Analytics } from '../../runtime/analytics/index.ts';
import type { PatternSlot } from '../../runtime/learning/index.ts';
import type { PatternStore } from '../../runtime/patterns/index.ts';
import type { TurnRouter } from '../../runtime/routing/index.ts';
import type { BenchReport, Provenance } from '../../schemas/types/report.ts';
import type { ReportSectionInput } from '../report/protocol-metrics.ts';
import type { RunStore, WorkloadRunRecord } from '../runs/run-store.ts';
import type { RunnerDeps } from '../runner/run-workload.ts';
import type { RunJob, ShardSpec } from '../jobs/shard.ts';
import type { Workload } from '../workloads/workload.ts';
import type { PassSpec, ProtocolName } from '../jobs/passes.ts';

/** The types one protocol works in: what plans it, what its jobs see, a job, a job's result, and its report section. */
export interface ProtocolTypes {
  /** What `plan` reads (the selected workloads, the loaded streams or matrix). */
  planInput: unknown;
  /** What a job sees while it runs. */
  ctx: unknown;
  /** One unit of work; `pass` names the group it runs in (a pass, a stream, a matrix setting). */
  job: { pass: string };
  /** What one job leaves behind. */
  result: unknown;
  /** What the report section is built from. */
  sectionInput: unknown;
  /** The protocol's part of the report. */
  section: unknown;
}

/**
 * A protocol of `bench run` (single, signal, A3, query streams, matrices): it plans its jobs, runs one,
 * and builds its report section. runSuite drives every protocol alike (plan, run each pass's jobs,
 * commit, report) through the run's host; what a job means lives here.
 */
export interface Protocol<T extends ProtocolTypes> {
  readonly name: string;
  /** The passes (groups of jobs) in run order: what `--passes` selects from and the report orders by. */
  readonly passes: readonly { readonly name: string }[];
  /** Every job of the whole run in one-machine order (setup errors, exit 2, before any work). */
  plan(input: T['planInput']): T['job'][];
  /** Runs one planned job to its result. */
  runOne(job: T['job'], ctx: T['ctx']): Promise<T['result']>;
  /** After a pass has run `ran` jobs here: recording errors it finds (a seeding pass that left turns out of the store). */
  afterPass(pass: { readonly name: string }, ran: number, ctx: T['ctx']): string[];
  /** Work after the planned passes that is not in the job plan (A3's C-oos holdout); true when it stopped early. */
  finish(ctx: T['ctx']): Promise<boolean>;
  /** The protocol's report section (for agent protocols `protocol_metrics`, from the trace DB alone). */
  reportSection(input: T['sectionInput']): T['section'];
}

/** The agent-workload protocols' types: passes of reps recorded in the trace DB. */
export interface AgentProtocolTypes extends ProtocolTypes {
  planInput: { workloads: readonly Workload[]; reps: number; maxJobs: number };
  ctx: ProtocolContext;
  job: RunJob;
  result: WorkloadRunRecord;
  sectionInput: ReportSectionInput;
  section: BenchReport['protocol_metrics'];
}

/** A protocol over agent workloads (single, signal, A3): its passes force a model or route. */
export interface RunProtocol extends Protocol<AgentProtocolTypes> {
  readonly name: ProtocolName;
  readonly passes: readonly PassSpec[];
  /** What the protocol's own options add to the run's provenance (A3: holdout, random_arm). */
  readonly provenance: Partial<Provenance>;
  afterPass(pass: PassSpec, ran: number, ctx: ProtocolContext): string[];
  /** How many reps `finish` will run beyond the plan (A3's C-oos and Pass R), so the progress total counts them. */
  laterJobs?(jobs: readonly RunJob[], sharded: boolean): number;
}

/**
 * Where a run of protocol T is recorded (the trace DB and job ledger for agent workloads; the JSON
 * report, and the matrix DB, for streams and matrices): runSuite opens it, runs the jobs it hands
 * back, and commits each result to it. `Outcome` is what the run returns.
 */
export interface RunHost<T extends ProtocolTypes, Outcome, P extends Protocol<T> = Protocol<T>> {
  /** Plans through `protocol`, checks every input and opens the run's records; setup errors (exit 2) come from here. */
  open(protocol: P): Promise<OpenRun<T, Outcome>>;
}

/** A run as its host opened it. */
export interface OpenRun<T extends ProtocolTypes, Outcome> {
  ctx: T['ctx'];
  /** The passes this invocation runs, in order (`--passes` may select some). */
  passes: readonly { readonly name: string }[];
  /** The jobs this invocation runs: its shard of the plan, less what a resumed run already committed. */
  todo: readonly T['job'][];
  /** Jobs of one pass in flight at once. */
  concurrency: number;
  /** Records a finished job (one at a time, in finishing order); true stops the run (--max-cost, Ctrl-C). */
  commit(job: T['job'], result: T['result']): Promise<boolean>;
  /** After each pass that ran to its end, before the protocol checks it (the event bus delivers what is queued). */
  passDone(): Promise<void>;
  /** Keeps the recording errors the protocol found (each once) for the report. */
  recordingErrors(errors: readonly string[]): void;
  /** Maps an error a job or `finish` threw to the one the user sees (a replay miss is a setup error). */
  failed(e: unknown): unknown;
  /** Scores and records the run and returns its outcome; `stopped` when it did not run to its end. */
  report(stopped: boolean): Promise<Outcome>;
  /** Releases what `open` took, however the run ended. */
  close(): Promise<void>;
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
  /** `--seed`: what the random arm's coins are derived from. */
  runSeed: number;
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
