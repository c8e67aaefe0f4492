"""The numpy floor of scripts/perf/matrix-crossfit.ts: the plain K-NN cross-fit of the protocol's shape.

matrix-crossfit.ts writes the inputs to a folder and runs this file on it when python3 can import numpy:
vectors.f32 (the unit vectors, n x dim, little-endian float32) and plan.json (k, the cost weights, each task's
recorded score and cost per model, and every fold to play: the outer folds and, when the protocol nests, the
inner folds of each outer training set). Per fold, the held-out tasks' K most cosine-similar training tasks
vote as in the TypeScript floor: per model the mean recorded score and the summed cost, and per weight the
model maximising (1 - w) * score - w * (cost - min) / (max - min). The similarities come from one matrix
product per block of held-out tasks (BLAS, every core), the K best from argpartition: what a plain numpy
cross-fit does. Prints one JSON object on stdout: the CPU time of the cross-fit (all threads), its wall time,
the queries answered and the outer folds' picks, for matrix-crossfit.ts to compare with the protocol's.
"""

import json
import os
import sys
import time

import numpy as np

# Held-out tasks per matrix product: bounds the similarity block (BLOCK x training tasks float32) to ~90 MB.
BLOCK = 2048


def knn_fold(unit, score, cost, weights, k, train, test, out):
    """Fills out[w, q] with the pick of weight w for each held-out task q of this fold."""
    train = np.asarray(train, dtype=np.int64)
    test = np.asarray(test, dtype=np.int64)
    if len(test) == 0 or len(train) == 0:
        return
    kk = min(k, len(train))
    pool = unit[train]
    for start in range(0, len(test), BLOCK):
        q = test[start:start + BLOCK]
        sims = unit[q] @ pool.T
        best = np.argpartition(sims, len(train) - kk, axis=1)[:, len(train) - kk:]
        nbr = train[best]
        mean_score = score[nbr].sum(axis=1) / max(1, kk)
        spend = cost[nbr].sum(axis=1)
        lo = spend.min(axis=1, keepdims=True)
        spread = spend.max(axis=1, keepdims=True) - lo
        norm = np.divide(spend - lo, spread, out=np.zeros_like(spend), where=spread > 0)
        for i, w in enumerate(weights):
            out[i, q] = np.argmax((1 - w) * mean_score - w * norm, axis=1)


def main(folder):
    with open(os.path.join(folder, 'plan.json'), encoding='utf-8') as f:
        plan = json.load(f)
    n, dim, k = plan['n'], plan['dim'], plan['k']
    unit = np.fromfile(os.path.join(folder, 'vectors.f32'), dtype='<f4').reshape(n, dim)
    score = np.asarray(plan['score'], dtype=np.float64)
    cost = np.asarray(plan['cost'], dtype=np.float64)
    weights = [float(w) for w in plan['weights']]
    picks = np.full((len(weights), n), -1, dtype=np.int64)
    queries = 0
    c0 = time.process_time()
    t0 = time.perf_counter()
    for fold in plan['folds']:
        knn_fold(unit, score, cost, weights, k, fold['train'], fold['test'], picks)
        queries += len(fold['test'])
        inner_picks = np.full((len(weights), n), -1, dtype=np.int64)
        for inner in fold['inner']:
            knn_fold(unit, score, cost, weights, k, inner['train'], inner['test'], inner_picks)
            queries += len(inner['test'])
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    json.dump({
        'cpu_ms': round(cpu * 1000),
        'wall_ms': round(wall * 1000),
        'queries': queries,
        'numpy_version': np.__version__,
        'picks': picks.tolist(),
    }, sys.stdout)


if __name__ == '__main__':
    main(sys.argv[1])
