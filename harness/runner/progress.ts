import type { Decimal } from 'decimal.js';

/** How a run shows that it is advancing: a rewritten line on a TTY, a plain line per finished workload and pass in a log, or nothing. */
export type ProgressMode = 'tty' | 'lines' | 'off';

/** Where the run is inside a rep (TTY line). */
export interface ProgressStep {
  workload: string;
  pass: string;
  rep: number;
  reps: number;
  turn: number;
  turns: number;
  spendUsd: Decimal;
  done: number;
  total: number;
}

/** A workload's reps in one pass are all finished (log line). */
export interface GroupDone {
  workload: string;
  pass: string;
  reps: number;
  meanScore: number | null;
  spendUsd: Decimal;
  done: number;
  total: number;
}

/** `h m s` text of a duration in milliseconds, for the ETA. */
export function formatEta(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/**
 * Progress of a run. `tty`: one line rewritten in place with pass, workload, rep, turn, spend and an
 * ETA (from the mean wall time of the reps finished so far). `lines`: one line per finished workload
 * and pass with the spend so far, so a CI log shows the run advancing. `off`: nothing.
 * `enabled: boolean` is the older form (true = tty, false = off).
 */
export function createProgress(mode: ProgressMode | boolean, write: (s: string) => void, nowMs: () => number = Date.now) {
  const m: ProgressMode = mode === true ? 'tty' : mode === false ? 'off' : mode;
  const started = nowMs();
  let shown = false;
  let doneAtStart: number | null = null;
  const eta = (done: number, total: number): string | null => {
    if (doneAtStart === null) doneAtStart = done;
    const finished = done - doneAtStart;
    if (finished <= 0 || total <= done) return null;
    return formatEta(((nowMs() - started) / finished) * (total - done));
  };
  return {
    update(p: ProgressStep) {
      if (m !== 'tty') return;
      shown = true;
      const e = eta(p.done, p.total);
      write(`\r\x1b[K[${p.done + 1}/${p.total}] ${p.pass} ${p.workload} rep ${p.rep + 1}/${p.reps} turn ${p.turn}/${p.turns} spend $${p.spendUsd.toFixed(4)}${e ? ` eta ${e}` : ''}`);
    },
    groupDone(g: GroupDone) {
      if (m !== 'lines') return;
      const q = g.meanScore === null ? 'n/a' : g.meanScore.toFixed(2);
      write(`[${g.done}/${g.total}] pass ${g.pass} ${g.workload}: ${g.reps} rep(s) done, quality ${q}, spend so far $${g.spendUsd.toFixed(4)}\n`);
    },
    clear() {
      if (m === 'tty' && shown) write('\r\x1b[K');
    },
  };
}
