import { createHash } from 'node:crypto';
import { textMemo } from '../core/text-memo.ts';
import { collectFileExtensions, intentTagsOf } from '../routing/turn-features.ts';
import type { SideEffect } from '../tools/tool.ts';
import type { Message } from '../types/content.ts';

/**
 * The v1 fingerprint of a turn (pattern-store.md §4 StructuralFeatures, plus `workload_id` from §5.2).
 * Set-valued fields are sorted and de-duplicated; `file_extensions` are lowercase with their dot.
 */
export interface StructuralFeatures {
  file_extensions: string[];
  /** Top-level workspace directories touched; `.` for files at the workspace root. */
  file_path_buckets: string[];
  tool_names: string[];
  /** `read` | `write` | `execute` | `network` (a tool declaring `none` contributes nothing). */
  side_effect_classes: string[];
  has_images: boolean;
  has_tool_calls_in_history: boolean;
  /** 0: < 1k, 1: 1k–10k, 2: 10k–100k, 3: 100k+ estimated input tokens. */
  estimated_input_tokens_bucket: number;
  intent_tags: string[];
  /** Provenance only: kept in the stored JSON (and so the signature), never in similarity. */
  workspace_hash: string;
  /** The benchmark workload, a near-key for K-NN (§5.3); null outside the harness. */
  workload_id: string | null;
}

/** What a turn's fingerprint is computed from: session state at routing time, no model call. */
export interface FingerprintInput {
  userMessage: string;
  /** Messages BEFORE this turn's user message (tool_use blocks there give tool names and paths). */
  history: readonly Message[];
  /** Side effect of each tool name, from the dispatcher's tools (unknown names contribute none). */
  toolSideEffects: Readonly<Record<string, SideEffect>>;
  estimatedInputTokens: number;
  hasImages: boolean;
  workspaceHash: string;
  workloadId: string | null;
}

const EXTENSION_AT_END = /\w\.[A-Za-z][A-Za-z0-9]{0,7}$/;
// A relative path in prose: `src/auth/login.py`, `tests/`, `./docs/guide.md` (absolute paths and URLs never match).
const MESSAGE_PATH = /(?:^|[\s`'"([])((?:\.\/)?[\w-][\w.-]*\/[\w./-]*)/g;

/** The log10 regime of an input size (§5.2), so a 50k-token turn matches a 70k one, not a 1k one. */
export function inputTokensBucket(tokens: number): number {
  if (!(tokens >= 1_000)) return 0;
  if (tokens < 10_000) return 1;
  if (tokens < 100_000) return 2;
  return 3;
}

/** Top-level bucket of a path a tool was given; null when the path leaves the workspace. */
function bucketOfToolPath(raw: string): string | null {
  const path = raw.replaceAll('\\', '/');
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return null;
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return null;
  if (parts.length === 0) return '.';
  if (parts.length === 1) return EXTENSION_AT_END.test(parts[0]!) ? '.' : parts[0]!;
  return parts[0]!;
}

/** Buckets of explicit directory paths in the message; bare file names there give extensions only. */
function collectMessageBuckets(text: string, into: Set<string>): void {
  for (const b of messageBuckets(text)) into.add(b);
}

// Read once per text (text-memo.ts): a turn's message is fingerprinted at routing and again at recording.
const messageBuckets = textMemo((text: string): readonly string[] => {
  const into = new Set<string>();
  for (const m of text.matchAll(MESSAGE_PATH)) {
    const token = m[1]!.replace(/[.,;:-]+$/, '').replace(/^\.\//, '');
    const parts = token.split('/');
    // `and/or` is prose; accept a trailing slash, a file name with an extension, or two levels or more.
    const isPath = token.endsWith('/') || EXTENSION_AT_END.test(parts.at(-1)!) || parts.filter(Boolean).length >= 3;
    if (isPath && parts[0] && parts[0] !== '..') into.add(parts[0]);
  }
  return [...into];
}, 16_384);

const sortedUnique = (values: Iterable<string>): string[] => [...new Set(values)].sort();

/** Computes a turn's structural features (§4, §5.2). Pure and deterministic. */
export function computeStructuralFeatures(input: FingerprintInput): StructuralFeatures {
  const extensions = new Set<string>();
  const buckets = new Set<string>();
  const tools = new Set<string>();
  const effects = new Set<string>();
  collectFileExtensions(input.userMessage, extensions);
  collectMessageBuckets(input.userMessage, buckets);
  for (const message of input.history) {
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      tools.add(block.name);
      const effect = Object.hasOwn(input.toolSideEffects, block.name) ? input.toolSideEffects[block.name] : undefined;
      if (effect && effect !== 'none') effects.add(effect);
      const path = block.input.path;
      if (typeof path !== 'string') continue;
      collectFileExtensions(path, extensions);
      const bucket = bucketOfToolPath(path);
      if (bucket !== null) buckets.add(bucket);
    }
  }
  return {
    file_extensions: sortedUnique(extensions),
    file_path_buckets: sortedUnique(buckets),
    tool_names: sortedUnique(tools),
    side_effect_classes: sortedUnique(effects),
    has_images: input.hasImages,
    has_tool_calls_in_history: tools.size > 0,
    estimated_input_tokens_bucket: inputTokensBucket(input.estimatedInputTokens),
    intent_tags: sortedUnique(intentTagsOf(input.userMessage)),
    workspace_hash: input.workspaceHash,
    workload_id: input.workloadId,
  };
}

/** The canonical form of features from any source: sets sorted and de-duplicated, extensions lowercase. */
export function normalizeFeatures(f: StructuralFeatures): StructuralFeatures {
  return {
    file_extensions: sortedUnique(f.file_extensions.map((e) => e.toLowerCase())),
    file_path_buckets: sortedUnique(f.file_path_buckets),
    tool_names: sortedUnique(f.tool_names),
    side_effect_classes: sortedUnique(f.side_effect_classes),
    has_images: f.has_images,
    has_tool_calls_in_history: f.has_tool_calls_in_history,
    estimated_input_tokens_bucket: f.estimated_input_tokens_bucket,
    intent_tags: sortedUnique(f.intent_tags),
    workspace_hash: f.workspace_hash,
    workload_id: f.workload_id ?? null,
  };
}

/** Canonical JSON of normalized features: keys in sorted order, so equal features give equal text. */
export function canonicalFeaturesJson(f: StructuralFeatures): string {
  return canonicalJsonOfNormalized(normalizeFeatures(f));
}

/** canonicalFeaturesJson of features already normalized (normalizeFeatures is idempotent, so the text is the same). */
export function canonicalJsonOfNormalized(n: StructuralFeatures): string {
  return JSON.stringify({
    estimated_input_tokens_bucket: n.estimated_input_tokens_bucket,
    file_extensions: n.file_extensions,
    file_path_buckets: n.file_path_buckets,
    has_images: n.has_images,
    has_tool_calls_in_history: n.has_tool_calls_in_history,
    intent_tags: n.intent_tags,
    side_effect_classes: n.side_effect_classes,
    tool_names: n.tool_names,
    workload_id: n.workload_id,
    workspace_hash: n.workspace_hash,
  });
}

/** `structural_sig` (§7.1): SHA-256 hex of the canonical JSON; one stored fingerprint per signature. */
export function structuralSignature(f: StructuralFeatures): string {
  return signatureOfCanonicalJson(canonicalFeaturesJson(f));
}

// A store meets few distinct shapes (MMLU: about 300 in 14k tasks) and records each many times: the digest
// of a canonical text is kept, up to a bound, rather than hashed again per record. FIFO: a Map keeps insertion order.
const SIGNATURE_MEMO_MAX = 4096;
const signatureMemo = new Map<string, string>();

/** Features whose object and lists are frozen: a value that cannot change, so what is derived from it may be kept. */
export function isFrozenFeatures(f: StructuralFeatures): boolean {
  return Object.isFrozen(f) && Object.isFrozen(f.file_extensions) && Object.isFrozen(f.file_path_buckets) && Object.isFrozen(f.tool_names) && Object.isFrozen(f.side_effect_classes) && Object.isFrozen(f.intent_tags);
}

/** Freezes `f` and its lists in place (see isFrozenFeatures) and returns it. */
export function freezeFeatures(f: StructuralFeatures): StructuralFeatures {
  for (const list of [f.file_extensions, f.file_path_buckets, f.tool_names, f.side_effect_classes, f.intent_tags]) Object.freeze(list);
  return Object.freeze(f);
}

/** A turn's features as a store keeps them: normalised (frozen), their canonical JSON and its signature. */
export interface CanonicalFeatures {
  features: StructuralFeatures;
  json: string;
  sig: string;
}

const canonicalMemo = new WeakMap<StructuralFeatures, CanonicalFeatures>();

/**
 * normalizeFeatures, canonicalFeaturesJson and structuralSignature of `f` in one pass; for frozen features
 * (a matrix run records each task's one features object in every fold's store) kept per object.
 */
export function canonicalForm(f: StructuralFeatures): CanonicalFeatures {
  const kept = canonicalMemo.get(f);
  if (kept) return kept;
  const features = freezeFeatures(normalizeFeatures(f));
  const json = canonicalJsonOfNormalized(features);
  const form = { features, json, sig: signatureOfCanonicalJson(json) };
  if (isFrozenFeatures(f)) canonicalMemo.set(f, form);
  // The normal form is its own canonical form (normalizeFeatures is idempotent): a caller handed it is answered without a pass.
  canonicalMemo.set(features, form);
  return form;
}

/** structuralSignature from the canonical JSON (canonicalFeaturesJson's text). */
export function signatureOfCanonicalJson(json: string): string {
  let sig = signatureMemo.get(json);
  if (sig === undefined) {
    sig = createHash('sha256').update(json).digest('hex');
    if (signatureMemo.size >= SIGNATURE_MEMO_MAX) signatureMemo.delete(signatureMemo.keys().next().value!);
    signatureMemo.set(json, sig);
  }
  return sig;
}
