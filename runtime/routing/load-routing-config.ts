import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import type { RoutingFile } from '../../schemas/types/routing.ts';
import { DataFileError, loadYamlValidated } from '../core/yaml-document.ts';
import type { RoutingPolicyInvalidPayload } from './route-decision.ts';
import { defaultRoutingConfig, duplicateRuleNames, mergeRoutingConfig, routingFileValidator, type RoutingConfig } from './routing-config.ts';

/** Where a workspace keeps its routing overrides. */
export const WORKSPACE_ROUTING_PATH = join('.metis', 'routing.yaml');

/** The routing config in force for one workspace, and what the session must report about it. */
export interface RoutingLoadResult {
  /** Effective config: the workspace file over the global config, section by section. */
  config: RoutingConfig;
  /** For RouteContext.workspace_default_model: the workspace file's own `default_model`. */
  workspace_default_model: string | null;
  /** For RouteContext.global_default_model. */
  global_default_model: string | null;
  /** The workspace file applied, or null when there is none. */
  policy_path: string | null;
  /** Set when the workspace file is invalid: emit it as `routing.policy_invalid`; `config` is the last good one. */
  invalid: RoutingPolicyInvalidPayload | null;
}

/** Reads and validates one routing.yaml; problems are DataFileErrors naming file, line and column. */
export function readRoutingFile(path: string): RoutingFile {
  const text = readFileSync(path, 'utf8');
  const doc = parseDocument(text);
  // A file that is empty or all comments overrides nothing (YAML would read it as null).
  const source = doc.errors.length === 0 && doc.contents === null ? '{}' : text;
  const data = loadYamlValidated(path, routingFileValidator(), source);
  const dup = duplicateRuleNames(data.rules ?? [])[0];
  if (dup) throw new DataFileError(path, null, null, `/rules/${dup.index}/name: duplicate rule name '${dup.name}'`, 'rule names must be unique');
  return data;
}

/** Loads a global routing.yaml over the schema defaults. Throws DataFileError (a setup error) when invalid. */
export function loadGlobalRoutingConfig(path: string): RoutingConfig {
  return mergeRoutingConfig(defaultRoutingConfig(), readRoutingFile(path));
}

/** What a workspace's routing.yaml held when read: nothing, a valid file, or an invalid one. */
export type WorkspaceRoutingFile = { kind: 'none' } | { kind: 'file'; path: string; file: RoutingFile } | { kind: 'invalid'; path: string; message: string };

/** Reads `<workspace>/.metis/routing.yaml` once (applyWorkspaceRouting puts it over a global config). */
export function readWorkspaceRouting(workspaceRoot: string): WorkspaceRoutingFile {
  const path = join(workspaceRoot, WORKSPACE_ROUTING_PATH);
  if (!existsSync(path)) return { kind: 'none' };
  try {
    return { kind: 'file', path, file: readRoutingFile(path) };
  } catch (e) {
    return { kind: 'invalid', path, message: e instanceof DataFileError ? e.message : `${path}: ${(e as Error).message}` };
  }
}

/**
 * The effective routing for a workspace: `<workspace>/.metis/routing.yaml` over `global`, section by
 * section. An invalid workspace file never fails the session: the answer is `lastGood` (default: the
 * global config alone) plus an `invalid` report for `routing.policy_invalid`.
 */
export function loadRoutingConfig(global: RoutingConfig, workspaceRoot: string, lastGood?: RoutingLoadResult): RoutingLoadResult {
  return applyWorkspaceRouting(global, readWorkspaceRouting(workspaceRoot), lastGood);
}

/** loadRoutingConfig over a workspace file already read (one read may serve several global configs). */
export function applyWorkspaceRouting(global: RoutingConfig, read: WorkspaceRoutingFile, lastGood?: RoutingLoadResult): RoutingLoadResult {
  const globalOnly: RoutingLoadResult = {
    config: global,
    workspace_default_model: null,
    global_default_model: global.default_model,
    policy_path: null,
    invalid: null,
  };
  if (read.kind === 'none') return globalOnly;
  if (read.kind === 'invalid')
    return {
      ...(lastGood ?? globalOnly),
      invalid: { policy_path: read.path, errors: [read.message], using_last_known_good: true },
    };
  return {
    config: mergeRoutingConfig(global, read.file),
    workspace_default_model: read.file.default_model ?? null,
    global_default_model: global.default_model,
    policy_path: read.path,
    invalid: null,
  };
}
