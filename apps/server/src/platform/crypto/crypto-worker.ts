/**
 * Runs in a worker thread (worker-pool.ts): the CPU-heavy operations of JavaScript
 * post-quantum code, so the server's event loop keeps answering meanwhile.
 */
import type { AlgorithmId } from '@ksp/contracts';
import { generateKey } from './generate.js';
import { isPqcSignatureAlgorithm, pqcSign } from './post-quantum.js';

export type WorkerTask =
  | { op: 'generate'; algorithm: AlgorithmId }
  | { op: 'sign'; algorithm: AlgorithmId; key: Uint8Array; data: Uint8Array };

export type WorkerResult = { material: Uint8Array; publicKey: Uint8Array | null } | { signature: Uint8Array };

export default function run(task: WorkerTask): WorkerResult {
  if (task.op === 'generate') {
    const key = generateKey(task.algorithm);
    return { material: key.material, publicKey: key.publicKey ?? null };
  }
  if (!isPqcSignatureAlgorithm(task.algorithm))
    throw new Error(`${task.algorithm} is not signed in a worker`);
  return { signature: pqcSign(task.algorithm, Buffer.from(task.key), Buffer.from(task.data)) };
}
