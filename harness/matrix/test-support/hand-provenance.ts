import type { MatrixRunData } from '../matrix-report.ts';

/** The provenance of a hand-made two-model matrix run (cheap, strong; four clusters) for report and compare tests. */
export function handProvenance(o: { tasks: number; points: number; folds: number }, over: Partial<MatrixRunData['provenance']> = {}): MatrixRunData['provenance'] {
  return {
    run_id: '01TEST',
    matrix: 'hand',
    matrix_path: '/x/outcomes.jsonl',
    source: { name: 'hand-made', licence: 'CC0' },
    tasks: o.tasks,
    clusters: 4,
    models: ['cheap', 'strong'],
    default_model: 'cheap',
    pricing_version: null,
    fingerprint_version: 'v1',
    embedding_provider: null,
    pattern: { scoring: 'similarity_weighted', min_similarity: 0.5, min_confidence: 0.05, min_sample_size: 5 },
    cost_weights: Array.from({ length: o.points }, (_, i) => i / 10),
    folds: o.folds,
    seed: 0,
    started_at: '2026-11-25T00:00:00.000Z',
    ended_at: '2026-11-25T00:00:01.000Z',
    node_version: 'v20',
    db_path: '/x/run.db',
    ...over,
  };
}
