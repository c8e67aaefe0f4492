// `bench run --workload <cache-*>`: replays each named query stream through the cache and prints the
// per-tier table; with --cache off, the cache-off arm (every query computed) for a paired comparison.
// The protocol is harness/protocols/stream-protocol.ts; runSuite's runProtocol drives it.
import type { StreamCommandOptions } from '../../../cache-bench/stream-options.ts';
import type { CliIO } from '../../../io/cli-io.ts';
import { streamProtocol, streamRunHost } from '../../../protocols/stream-protocol.ts';
import { runProtocol } from '../../../protocols/drive-protocol.ts';

/** Runs the streams; exit 1 when a must-miss query was served or Ctrl-C stopped a stream (its partial figures are still printed and written), else 0. */
export function runStreamCommand(o: StreamCommandOptions, io: CliIO): Promise<number> {
  // The host stops after the stream a Ctrl-C cut short (the replay itself stops at the query in progress).
  return runProtocol(streamProtocol(o.names), streamRunHost(o, io), {});
}
