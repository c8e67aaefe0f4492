// What `bench run` over agent workloads is asked (already parsed) and what it returns; run-suite.ts runs it
// and trace-run-host.ts records it, both importing these types from here.
import type { BenchReport } from '../../schemas/types/report.ts';
import type { Decimal } from 'decimal.js';
import type { HoldoutKind, ProtocolName } from '../jobs/passes.ts';
import type { RequestedProvider } from '../jobs/resolve-provider.ts';
import type { ProgressMode } from '../runner/progress.ts';
import type { ShardSpec } from '../jobs/shard.ts';
import type { OtlpTarget } from '../export/otlp/otlp-send.ts';
import type { SandboxLimits } from '../../runtime/sandbox/resource-limits.ts';

/** Everything `bench run` needs, already parsed. */
export interface RunSuiteOptions {
  /** `--cache on`: every model call goes through a run-wide semantic cache per workload (runtime/cache). */
  cache?: boolean;
  workloadsDir: string;
  workloadNames: string[];
  includeMarginal: boolean;
  provider: RequestedProvider;
  model: string;
  baseline: string;
  seedPasses: number;
  seed: number;
  temperature: number;
  dbPath: string | null;
  jsonPath: string | null;
  /** The shared pattern store; default beside the trace DB. An existing file is reused (a seeded store). */
  patternsDbPath: string | null;
  protocol: ProtocolName;
  showProgress: boolean;
  /** `tty` line with ETA, a `lines` log line per finished workload and pass, or `off`; default from showProgress. */
  progressMode?: ProgressMode;
  /** `--shard I/N`: run only this slice of the run's jobs (a stable hash of pass, workload, rep). */
  shard?: ShardSpec | null;
  /** `--passes A,B`: run only these passes of the protocol (default all). */
  passes?: string | null;
  /** `--run-id`: the run id shared by every shard; default derived from seed, suite, models, commit and prices when sharded. */
  runId?: string | null;
  /** `--resume DB`: continue the run in this DB (identity flags come from the DB). */
  resumePath?: string | null;
  /** `--retry-errors` (with --resume): also run again the reps that ended in a provider error. */
  retryErrors?: boolean;
  /** `--accept-changed` (with --resume): resume although workload files or the commit changed since the run started. */
  acceptChanged?: boolean;
  /** `--base-url` for openai-compatible servers (and proxies). */
  baseURL?: string | null;
  /** `--request-timeout` in seconds: how long one HTTP attempt of a real provider may take (default the adapters', 600). */
  requestTimeoutSeconds?: number | null;
  /** `--max-retries`: retries of a real provider's failed attempt (default the adapters', 4). */
  maxRetries?: number | null;
  /** Append every provider exchange to this JSONL cassette (spec §11). */
  recordPath?: string | null;
  /** Serve every exchange from this cassette instead of a provider. */
  replayPath?: string | null;
  /** `--max-cost`: stop before spend passes this (report incomplete, exit 1). */
  maxCostUsd?: Decimal | null;
  /** Workload reps in flight at once (default 1). Above 1, Pass C's order of learning is not fixed. */
  concurrency?: number;
  /** LLM calls per turn before the iteration guard stops it. */
  maxIterations?: number;
  /** `--fingerprint-version`: pattern store v1 or v2; default from the routing config (v1). */
  fingerprintVersion?: 'v1' | 'v2';
  /** `--embedding-provider`: the v2 embedder id (implies v2); default from the routing config, else local:hashing-384. */
  embeddingProvider?: string | null;
  /** `--routing-config`: a global routing.yaml under each workspace's own (rules, tiers, pattern knobs, fingerprint version). */
  routingConfigPath?: string | null;
  /** `--unsandboxed`: a real provider's run_shell and checks may run without bubblewrap (harness/workspace/run-sandbox.ts). */
  unsandboxed?: boolean;
  /** `--holdout workload` (A3): also run Pass C leave-one-workload-out as pass C-oos (harness/protocols/holdout.ts). */
  holdout?: HoldoutKind | null;
  /** A3: run Pass R, the random router at Pass C's strong-call share, after the planned passes (default on; `--no-random-arm`). */
  randomArm?: boolean;
  /** `--otlp-endpoint`: stream each rep's OpenTelemetry spans there while the run goes (harness/export/otlp). */
  otlp?: OtlpTarget | null;
  /** `--oracle-epsilon`: the oracles' tolerance on mean gated score (default 0.02). */
  oracleEpsilon?: number | null;
  /** `--margin`: the headline's non-inferiority margin in points (default 5). */
  marginPts?: number | null;
  /** `--limit`: the sandbox's disk, process, memory and rep wall-time bounds; default runtime/data/resource-limits.json. */
  limits?: SandboxLimits;
}

/** The finished run. */
export interface RunSuiteResult {
  report: BenchReport;
  dbPath: string;
  jsonPath: string;
}
