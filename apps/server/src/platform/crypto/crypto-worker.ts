/**
 * Runs in a worker thread (worker-pool.ts): the CPU-heavy operations of JavaScript
 * post-quantum code, so the server's event loop keeps answering meanwhile.
 */
import type { AlgorithmId } from '@ksp/contracts';
import { CryptoError } from './crypto-error.js';
import { generateKey } from './generate.js';
import {
  isMlKemAlgorithm,
  isPqcSignatureAlgorithm,
  pqcImport,
  pqcSign,
  type PqcImportFormat,
} from './post-quantum.js';

export type WorkerTask =
  | { op: 'generate'; algorithm: AlgorithmId }
  | { op: 'sign'; algorithm: AlgorithmId; key: Uint8Array; data: Uint8Array; context?: Uint8Array }
  | { op: 'import'; algorithm: AlgorithmId; format: PqcImportFormat; bytes: Uint8Array };

export type WorkerResult =
  | { material: Uint8Array; publicKey: Uint8Array | null }
  | { signature: Uint8Array }
  | { imported: { secretKey: Uint8Array | null; publicKey: Uint8Array } }
  /** A key the import refused: the reason (never key bytes), rethrown as a CryptoError by the pool. */
  | { refused: string };

/** Post-quantum import, with a refusal answered as data (errors lose their class between threads). */
export function importTask(algorithm: AlgorithmId, format: PqcImportFormat, bytes: Buffer): WorkerResult {
  if (!isMlKemAlgorithm(algorithm) && !isPqcSignatureAlgorithm(algorithm))
    throw new Error(`${algorithm} is not a post-quantum algorithm`);
  try {
    const key = pqcImport(algorithm, format, bytes);
    return { imported: { secretKey: key.secretKey ?? null, publicKey: key.publicKey } };
  } catch (err) {
    if (err instanceof CryptoError) return { refused: err.message };
    throw err;
  }
}

export default function run(task: WorkerTask): WorkerResult {
  if (task.op === 'generate') {
    const key = generateKey(task.algorithm);
    return { material: key.material, publicKey: key.publicKey ?? null };
  }
  if (task.op === 'import') return importTask(task.algorithm, task.format, Buffer.from(task.bytes));
  if (!isPqcSignatureAlgorithm(task.algorithm))
    throw new Error(`${task.algorithm} is not signed in a worker`);
  return {
    signature: pqcSign(
      task.algorithm,
      Buffer.from(task.key),
      Buffer.from(task.data),
      task.context ? { context: Buffer.from(task.context) } : {},
    ),
  };
}
