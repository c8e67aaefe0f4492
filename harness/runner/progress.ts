import type { Decimal } from 'decimal.js';

/** Renders a one-line progress indicator on a TTY; silent otherwise. */
export function createProgress(enabled: boolean, write: (s: string) => void) {
  let shown = false;
  return {
    update(p: { workload: string; pass: string; rep: number; reps: number; turn: number; turns: number; spendUsd: Decimal; done: number; total: number }) {
      if (!enabled) return;
      shown = true;
      write(`\r\x1b[K[${p.done + 1}/${p.total}] ${p.pass} ${p.workload} rep ${p.rep + 1}/${p.reps} turn ${p.turn}/${p.turns} spend $${p.spendUsd.toFixed(4)}`);
    },
    clear() {
      if (enabled && shown) write('\r\x1b[K');
    },
  };
}
