import { createA3Protocol } from './a3-protocol.ts';
import type { ProtocolName } from './protocol.ts';
import type { RunProtocol } from './run-protocol.ts';
import { signalProtocol, singleProtocol } from './single-protocol.ts';

/** The protocol a run follows, fresh for this run (A3 keeps per-run state). */
export function protocolFor(name: ProtocolName): RunProtocol {
  return name === 'a3' ? createA3Protocol() : name === 'signal' ? signalProtocol : singleProtocol;
}
