import type { CliIO } from '../io/cli-io.ts';
import { runProtocol } from '../protocols/drive-protocol.ts';
import { protocolFor } from '../protocols/protocols.ts';
import type { RunSuiteOptions, RunSuiteResult } from './run-suite-options.ts';
import { resolveRunIdentity, traceRunHost } from './trace-run-host.ts';

/**
 * `bench run` over agent workloads: the protocol (single, signal, A3; from the run's DB on --resume)
 * run by runProtocol over the trace DB (harness/suite/trace-run-host.ts).
 */
export async function runSuite(given: RunSuiteOptions, io: CliIO): Promise<RunSuiteResult> {
  const { opts, resume } = resolveRunIdentity(given, io);
  const protocol = protocolFor(opts.protocol, { holdout: opts.holdout ?? null, randomArm: opts.randomArm ?? true });
  return runProtocol(protocol, traceRunHost(opts, resume, io), io);
}
