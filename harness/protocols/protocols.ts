import { createA3Protocol, DEFAULT_A3_OPTIONS, type A3Options } from './a3-protocol.ts';
import type { ProtocolName } from '../jobs/passes.ts';
import type { RunProtocol } from './run-protocol.ts';
import { signalProtocol, singleProtocol } from './single-protocol.ts';

/** The protocol a run follows, fresh for this run (A3 keeps per-run state); `a3` are A3's own options (the others have none). */
export function protocolFor(name: ProtocolName, a3: A3Options = DEFAULT_A3_OPTIONS): RunProtocol {
  return name === 'a3' ? createA3Protocol(a3) : name === 'signal' ? signalProtocol : singleProtocol;
}
