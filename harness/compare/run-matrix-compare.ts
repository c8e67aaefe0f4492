// `bench compare v1 v2 --workload <matrix>` and `bench compare --arm A=a.yaml --arm B=b.yaml --workload <matrix>`:
// each arm runs the matrix protocol (same tasks, pool, cost weights, folds and seed) into its own DB and
// JSON under the compare folder, then the two are compared task by task and the tightness of the matrix's
// clusters is measured under v1 and v2 fingerprints.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Arm, MatrixCompareArtifact } from '../../schemas/types/matrix-compare.ts';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import { DEFAULT_EMBEDDING_ALPHA } from '../../runtime/patterns/index.ts';
import { SetupError } from '../errors.ts';
import { DEFAULT_EMBEDDING_PROVIDER } from '../runs/run-pattern-store.ts';
import { compareMatrixRuns, renderMatrixCompare } from '../matrix/compare-matrix.ts';
import type { SettingName } from '../matrix/matrix-report.ts';
import { readMatrixRun } from '../matrix/matrix-run-db.ts';
import { matrixTightness, sampleByCluster } from '../matrix/matrix-tightness.ts';
import { loadOutcomeMatrix } from '../matrix/outcome-matrix.ts';
import { outcomeTable } from '../matrix/outcome-table.ts';
import { runMatrix } from '../protocols/matrix-run-protocol.ts';
import { matrixRouting, protocolDeps, type MatrixRunOptions } from '../matrix/run-matrix.ts';
import { writeJsonFile } from '../io/write-json-file.ts';

/** One arm: its label (file names in the compare folder) and how its pattern store and routing are chosen. */
export interface MatrixArmSpec {
  label: string;
  fingerprintVersion: 'v1' | 'v2' | null;
  embeddingProvider: string | null;
  routingConfigPath: string | null;
}

/** Options of a matrix comparison. */
export interface MatrixCompareOptions extends Pick<MatrixRunOptions, 'workloadDir' | 'models' | 'costWeights' | 'folds' | 'seed' | 'settings'> {
  arms: readonly [MatrixArmSpec, MatrixArmSpec];
  /** The compare-<ts>/ folder the arms' DBs and JSONs go to (absolute). */
  dir: string;
  /** Where the comparison's JSON goes (default <dir>/compare.json). */
  jsonPath: string | null;
  /** Tasks sampled per cluster for the tightness figures. */
  tightnessPerCluster: number;
}

/** The settings a comparison plays unless told otherwise: both cross-fits, so routing is judged out of sample. */
export const COMPARE_SETTINGS: readonly SettingName[] = ['unseen_tasks', 'new_workspace'];

/** Tasks per cluster the tightness figures sample by default (57 MMLU subjects: ~1,100 tasks, ~650k pairs). */
export const TIGHTNESS_PER_CLUSTER = 20;

/** Cluster tightness and test 5 on a sample of the matrix's tasks: v1 fingerprints against v2 ones under the v2 arm's embedder (or the default one). */
export async function tightnessOf(o: MatrixCompareOptions, io: { cwd: string; env: Readonly<Record<string, string | undefined>> }): Promise<MatrixCompareArtifact['tightness']> {
  const v2Arm = o.arms.find((a) => a.fingerprintVersion === 'v2' || a.embeddingProvider) ?? null;
  const r = matrixRouting({ fingerprintVersion: 'v2', embeddingProvider: v2Arm?.embeddingProvider ?? DEFAULT_EMBEDDING_PROVIDER, routingConfigPath: v2Arm?.routingConfigPath ?? null }, io.env, io.cwd);
  const matrix = await loadOutcomeMatrix(resolve(io.cwd, o.workloadDir));
  const table = outcomeTable(matrix, o.models ?? undefined);
  const sample = sampleByCluster(table.clusters, o.tightnessPerCluster, o.seed);
  const deps = protocolDeps(matrix, table, r, [0]);
  // The features come from the runtime's own pattern slot, as the arms' stores hold them (known workspace).
  const dir = mkdtempSync(join(tmpdir(), 'metis-matrix-tightness-'));
  const store = deps.openStore(join(dir, 'features.db'));
  try {
    const router = deps.routerFor(store);
    const vectors = await r.provider!.embed(sample.map((t) => matrix.tasks[t]!.text));
    return matrixTightness(
      sample.map((t, i) => ({ cluster: table.clusters[t]!, features: router.features(matrix.tasks[t]!, 'known'), embedding: vectors[i]! })),
      { providerId: r.provider!.provider_id, alpha: r.choice.embedding_alpha ?? DEFAULT_EMBEDDING_ALPHA, perCluster: o.tightnessPerCluster },
    );
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
    await r.provider?.close();
  }
}

/** Runs both arms, compares them, writes the comparison's JSON and returns it with its rendering. */
export async function runMatrixCompare(
  o: MatrixCompareOptions,
  io: { cwd: string; env: Readonly<Record<string, string | undefined>>; progress(text: string): void },
): Promise<{ artifact: MatrixCompareArtifact; jsonPath: string; text: string }> {
  if (o.arms[0].label === o.arms[1].label) throw new SetupError(`compare: both arms are labelled '${o.arms[0].label}'; give them different labels`);
  mkdirSync(o.dir, { recursive: true });
  const ran: { arm: Arm; db: string }[] = [];
  for (const spec of o.arms) {
    io.progress(`compare ${spec.label}: matrix protocol (${o.settings.join(', ')})`);
    const db = join(o.dir, `${spec.label}.db`);
    const json = join(o.dir, `${spec.label}.json`);
    const { report } = await runMatrix(
      {
        workloadDir: o.workloadDir,
        models: o.models,
        costWeights: o.costWeights,
        folds: o.folds,
        seed: o.seed,
        settings: o.settings,
        fingerprintVersion: spec.fingerprintVersion,
        embeddingProvider: spec.embeddingProvider,
        routingConfigPath: spec.routingConfigPath,
        dbPath: db,
        jsonPath: json,
      },
      { cwd: io.cwd, env: io.env, progress: io.progress },
    );
    const p = report.provenance;
    // A runner that ignored the arm's store choice would make this an A/A comparison that looks like an A/B.
    if (spec.fingerprintVersion && p.fingerprint_version !== spec.fingerprintVersion) throw new SetupError(`${json}: arm ${spec.label} asked for fingerprint ${spec.fingerprintVersion} but ran ${p.fingerprint_version}`);
    ran.push({ arm: { label: spec.label, fingerprint_version: p.fingerprint_version, embedding_provider: p.embedding_provider, routing_config: spec.routingConfigPath ? resolve(io.cwd, spec.routingConfigPath) : null, json, db }, db });
  }
  const [a, b] = ran as [(typeof ran)[0], (typeof ran)[0]];
  io.progress('compare: cluster tightness on the matrix clusters');
  const artifact: MatrixCompareArtifact = { ...compareMatrixRuns(readMatrixRun(a.db), readMatrixRun(b.db), [a.arm, b.arm]), tightness: await tightnessOf(o, io) };
  const validate = validatorFor<MatrixCompareArtifact>('matrix-compare.schema.json');
  if (!validate(artifact)) throw new Error(`matrix compare artifact does not match its schema: ${formatAjvErrors(validate.errors).join('; ')}`);
  const jsonPath = o.jsonPath ? resolve(io.cwd, o.jsonPath) : join(o.dir, 'compare.json');
  mkdirSync(dirname(jsonPath), { recursive: true });
  writeJsonFile(jsonPath, artifact);
  return { artifact, jsonPath, text: renderMatrixCompare(artifact, jsonPath) };
}
