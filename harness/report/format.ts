import { shellQuote } from '../../runtime/sandbox/shell-quote.ts';
import { Decimal } from 'decimal.js';
import type { Estimate, Outcomes, Provenance, Rep } from '../../schemas/types/report.ts';
import { zeroWidth } from './verdict-grammar.ts';

// One set of cell formatters for every rendering (table, Markdown, HTML), so the same report reads the same everywhere.

/** Money (Decimal text) to 4 decimals for display; the JSON keeps the exact value. */
export function usd(s: string): string {
  return fixedText(s, 4);
}

/** A percent held as Decimal text (e.g. `66.7`), to one decimal with `%`; `n/a` when null. */
export function pct(s: string | null): string {
  return s === null ? 'n/a' : `${fixedText(s, 1)}%`;
}

/** Decimal text: a sign, digits with an optional fraction, an optional exponent (what Decimal's toString and toFixed write). */
const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/;

/**
 * `new Decimal(text).toFixed(places)`, rounded half away from zero (Decimal's ROUND_HALF_UP) on the exact digits,
 * worked out on the text: a report table prints some 250 amounts, and a Decimal parsed and rounded for each was
 * most of their cost. Text of any other form, or another rounding mode, is left to Decimal.
 */
export function fixedText(text: string, places: number): string {
  const m = DECIMAL_TEXT.exec(text);
  if (!m || Decimal.rounding !== Decimal.ROUND_HALF_UP) return new Decimal(text).toFixed(places);
  const fraction = m[3] ?? '';
  const scale = fraction.length - Number(m[4] ?? 0); // text = coefficient · 10^−scale
  const coefficient = BigInt(m[2]! + fraction);
  let units: bigint; // the value in units of 10^−places, rounded
  if (scale <= places) units = coefficient * 10n ** BigInt(places - scale);
  else {
    const unit = 10n ** BigInt(scale - places);
    units = coefficient / unit;
    if (2n * (coefficient % unit) >= unit) units += 1n;
  }
  const digits = units.toString().padStart(places + 1, '0');
  const body = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  // The sign of the value, as toFixed keeps it: -0.00001 prints -0.0000, and -0 prints 0.
  return m[1] && coefficient !== 0n ? `-${body}` : body;
}

/** A plain number to `digits` decimals; `n/a` when null. */
export function num(x: number | null, digits = 3): string {
  return x === null ? 'n/a' : x.toFixed(digits);
}

/** A fraction in [0,1] as a percent to one decimal; `n/a` when null. */
export function rate(x: number | null): string {
  return x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`;
}

/** `mean±std`, with ` NOISY` when the reps disagree too much (benchmark.md §6.4); the mean alone for one rep (no spread). */
export function qualityCell(mean: number | null, std: number | null, noisy: boolean): string {
  if (mean === null) return 'n/a';
  return std === null ? num(mean) : `${num(mean)}±${num(std)}${noisy ? ' NOISY' : ''}`;
}

/** A rep as people count it: from 1 (the JSON keeps the 0-based `rep` index). */
export function repNumber(rep: number): number {
  return rep + 1;
}

/** `fix-a-bug-small, pass C, rep 2`: where a rep sits, the same way in every rendering. */
export function repLabel(workload: string, pass: string, rep: number): string {
  return `${workload}, pass ${pass}, rep ${repNumber(rep)}`;
}

/** Hidden-check passes over the reps that ran a check, `passed/ran`; `-` when none did. */
export function checkCell(reps: readonly Rep[]): string {
  const checks = reps.filter((r) => r.check !== null);
  return checks.length === 0 ? '-' : `${checks.filter((r) => r.check!.passed).length}/${checks.length}`;
}

/**
 * Solved reps as `solved/reps (rate)`, then any rep whose check could not run or was never reached, by
 * name: those are neither passes nor the model's failures.
 */
export function solvedCell(w: { solved: number; solved_rate: number | null; outcomes: Outcomes }): string {
  const n = w.outcomes.solved + w.outcomes.unsolved + w.outcomes.check_error + w.outcomes.not_reached;
  const other = [w.outcomes.check_error ? `${w.outcomes.check_error} check_error` : '', w.outcomes.not_reached ? `${w.outcomes.not_reached} not_reached` : ''].filter(Boolean);
  return `${w.solved}/${n} (${rate(w.solved_rate)})${other.length ? ` [${other.join(', ')}]` : ''}`;
}

/** An estimate with its interval, each bound through `f`: `29.1 [22.0, 35.3]`; `n/a` without an estimate. */
export function estimateCell(e: Estimate | null, f: (x: number) => string): string {
  if (e === null || e.estimate === null) return 'n/a';
  if (e.ci_low === null || e.ci_high === null) return `${f(e.estimate)} (no interval)`;
  // A zero-width interval reads as the headline words it, never as [x, x].
  return !zeroWidth(e.ci_low, e.ci_high) ? `${f(e.estimate)} [${f(e.ci_low)}, ${f(e.ci_high)}]` : `${f(e.estimate)} (no variation)`;
}

/** `pass@k / pass^k (k=N)`; `n/a` when no rep was scored. */
export function passKCell(w: { pass_at_k: number | null; pass_hat_k: number | null; k: number }): string {
  return w.pass_at_k === null ? 'n/a' : `${num(w.pass_at_k, 2)} / ${num(w.pass_hat_k, 2)} (k=${w.k})`;
}

/** `abc1234 (clean) on main`, or `unknown` parts when git was not available. */
export function commitCell(p: Provenance): string {
  const sha = p.metis_commit_sha ? p.metis_commit_sha.slice(0, 7) : 'unknown';
  const state = p.metis_dirty === null ? 'unknown' : p.metis_dirty ? 'dirty' : 'clean';
  return `${sha} (${state})${p.metis_branch ? ` on ${p.metis_branch}` : ''}`;
}

/** A word as typed into a shell: left bare when it is plain, single-quoted when it holds anything else. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : shellQuote(word);
}

/**
 * A path as it may be shared (Markdown, HTML): relative to the project when it is under `reports/`, else the
 * file name alone, so a report pasted into a deck or a CI summary carries no machine-local path.
 */
export function shareablePath(path: string): string {
  const i = path.lastIndexOf('/reports/');
  return i >= 0 ? path.slice(i + 1) : (path.split(/[\\/]/).at(-1) ?? path);
}
