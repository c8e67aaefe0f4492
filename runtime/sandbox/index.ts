/** Public API of the sandbox: confined paths and confined commands (spec §7). */
export { resolveInWorkspace, scrubWorkspacePaths, workspaceRelative, displayPath, isWithin } from './workspace-path.ts';
export {
  runCommand,
  SandboxUnavailableError,
  RootUnconfinedError,
  ROOT_UNCONFINED_REFUSAL,
  isRoot,
  resourceBoundsOff,
  setResourceBoundsOffForMeasurement,
  NO_SANDBOX_WARNING,
  unshareSandboxWarning,
  type RunCommandOptions,
  type RunCommandResult,
  type SandboxMode,
  type SandboxTier,
} from './run-command.ts';
export { buildSandboxEnv, sandboxPath, SAFE_PATH_DIRS, type ScratchDirs } from './sandbox-env.ts';
export { probeBwrap, bwrapArgs, PROC_READ_ONLY, type BwrapMounts } from './bwrap.ts';
export { probeUnshare, unshareArgs, unshareReadable, unshareReadableHere, planHidden, DROP_CAPS, type UnshareMounts, type UnshareTools } from './unshare.ts';
export { shellQuote } from './shell-quote.ts';
export { parseSandboxMode, SANDBOX_ENV_VAR } from './sandbox-mode.ts';
export { removeTree } from './remove-tree.ts';
export { DEFAULT_MAX_OUTPUT_BYTES, truncationMarker, completePrefixLength } from './output-cap.ts';
